"""getNamesrvConfig: the config of every name server."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqadmin.cli.command import command
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


@command(
    "getNamesrvConfig",
    "mqadmin getNamesrvConfig -n 127.0.0.1:9876",
    "mqadmin getNamesrvConfig -n 'ns1:9876;ns2:9876' | grep orderMessageEnable",
)
def get_namesrv_config(namesrv: NamesrvOpt = None) -> None:
    """Show the config of every name server of -n (GET_NAMESRV_CONFIG), asked concurrently.

    One KEY/VALUE row per config key; with several name servers, each row starts with the name server's
    address. A name server that does not answer is reported after the others (exit 3, or 1 if none answered).
    """
    from mqadmin.cli.render import Column, json_output, print_json, print_table
    from mqadmin.cli.runner import exit_for_results, print_results, results_json, run_admin

    async def go(admin: AdminClient) -> list[TargetResult]:
        return await admin.namesrv_configs()

    results = run_admin(namesrv, go)
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
            print_table([Column("NAME SERVER"), Column("KEY"), Column("VALUE")], rows)
        failed = [r for r in results if not r.ok]
        if failed:
            print()
            print_results(failed, "NAME SERVER")
    exit_for_results(results, "getNamesrvConfig")
