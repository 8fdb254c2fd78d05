"""getNamesrvConfig: the config of every name server."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqadmin.cli.command import command
from mqadmin.cli.params import NamesrvOpt
from mqadmin.cli.views.config import ConfigsDoc

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


@command(
    "getNamesrvConfig",
    "mqadmin getNamesrvConfig -n 127.0.0.1:9876",
    "mqadmin getNamesrvConfig -n 'ns1:9876;ns2:9876' | grep orderMessageEnable",
    blocking=True,
    document=ConfigsDoc,
)
def get_namesrv_config(namesrv: NamesrvOpt = None) -> None:
    """Show the config of every name server of -n (GET_NAMESRV_CONFIG), asked concurrently.

    One KEY/VALUE row per config key; with several name servers, each row starts with the name server's
    address. A name server that does not answer is reported after the others (exit 3, or 1 if none answered).
    """
    from mqadmin.cli.runner import run_admin
    from mqadmin.cli.views.config import show_configs

    async def go(admin: AdminClient) -> list[TargetResult]:
        return await admin.namesrv_configs()

    results = run_admin(namesrv, go)
    show_configs(
        results, "getNamesrvConfig", single=len(results) == 1, who=["NAME SERVER"], who_of=lambda r: (r.addr,),
        kind="NAME SERVER",
    )  # fmt: skip
