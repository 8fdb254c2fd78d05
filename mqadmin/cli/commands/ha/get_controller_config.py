"""getControllerConfig: the config of every controller of -a."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqadmin.cli.command import command
from mqadmin.cli.commands.ha._shared import FoundControllerOpt
from mqadmin.cli.params import NamesrvOpt
from mqadmin.cli.views.config import ConfigsDoc

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


@command(
    "getControllerConfig",
    "mqadmin getControllerConfig -a 127.0.0.1:9878",
    "mqadmin getControllerConfig -a 'c1:9878;c2:9878' | grep electPolicy",
    document=ConfigsDoc,
)
def get_controller_config(controller: FoundControllerOpt = None, namesrv: NamesrvOpt = None) -> None:
    """Show the config of every controller of -a (GET_CONTROLLER_CONFIG), asked concurrently.

    One KEY/VALUE row per config key; with several controllers each row starts with the controller's address.
    A controller that does not answer is reported after the others (exit 3, or 1 if none answered).
    """
    from mqadmin.cli.commands.ha._shared import controllers, run_controller
    from mqadmin.cli.views.config import show_configs

    addrs = controllers(controller, namesrv)

    async def go(admin: AdminClient) -> list[TargetResult]:
        return await admin.controller_configs(addrs)

    results = run_controller(addrs, go)
    show_configs(
        results, "getControllerConfig", single=len(results) == 1, who=["CONTROLLER"], who_of=lambda r: (r.addr,),
        kind="CONTROLLER",
    )  # fmt: skip
