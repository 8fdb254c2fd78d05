"""getControllerConfig: the config of every controller of -a."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqadmin.cli.command import command
from mqadmin.cli.commands.ha._shared import ControllerOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


@command(
    "getControllerConfig",
    "mqadmin getControllerConfig -a 127.0.0.1:9878",
    "mqadmin getControllerConfig -a 'c1:9878;c2:9878' | grep electPolicy",
)
def get_controller_config(controller: ControllerOpt) -> None:
    """Show the config of every controller of -a (GET_CONTROLLER_CONFIG), asked concurrently.

    One KEY/VALUE row per config key; with several controllers each row starts with the controller's address.
    A controller that does not answer is reported after the others (exit 3, or 1 if none answered).
    """
    from mqadmin.cli.commands.ha._shared import controller_addrs, run_controller
    from mqadmin.cli.render import Column, json_output, print_json, print_table
    from mqadmin.cli.runner import exit_for_results, print_results, results_json

    addrs = controller_addrs(controller)

    async def go(admin: AdminClient) -> list[TargetResult]:
        return await admin.controller_configs(addrs)

    results = run_controller(addrs, go)
    if json_output():
        doc = results_json(results)
        for entry, r in zip(doc["results"], results, strict=True):
            entry["config"] = dict(sorted(r.data.items())) if r.ok else None
        print_json(doc)
    else:
        answered = [r for r in results if r.ok]
        if len(results) == 1:
            print_table([Column("KEY"), Column("VALUE")], sorted(answered[0].data.items()) if answered else [])
        else:
            rows = [(r.addr, k, v) for r in answered for k, v in sorted(r.data.items())]
            print_table([Column("CONTROLLER"), Column("KEY"), Column("VALUE")], rows)
        failed = [r for r in results if not r.ok]
        if failed:
            print()
            print_results(failed, "CONTROLLER")
    exit_for_results(results, "getControllerConfig")
