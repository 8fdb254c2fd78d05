"""updateNamesrvConfig: change one config key on every name server, showing old → new on each."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.namesrv._shared import config_key, config_value
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import SettingDoc
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


@command(
    "updateNamesrvConfig",
    "mqadmin updateNamesrvConfig -n 'ns1:9876;ns2:9876' -k orderMessageEnable -v true",
    blocking=True,
    document=SettingDoc,
)
def update_namesrv_config(
    key: Annotated[str, Option("-k", "--key", metavar="KEY", help="Config key.")],
    value: Annotated[str, Option("-v", "--value", metavar="VALUE", help="New value.")],
    namesrv: NamesrvOpt = None,
) -> None:
    """Change one config key on every name server of -n (UPDATE_NAMESRV_CONFIG), concurrently.

    Each name server's config is read before and after: it reports updated (old→new), unchanged (already
    that value; nothing sent) or failed with the reason, which is the server's answer for a refused key
    (configStorePath, kvConfigPath, configBlackList: NO_PERMISSION), "unknown key" for a key the name server
    does not have (Java mqadmin reports success and nothing changes), or "not applied" for a value the name
    server did not take.
    """
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import exit_for_results, print_results, results_json, run_admin

    key, value = config_key(key), config_value(value)

    async def go(admin: AdminClient) -> list[TargetResult]:
        return await admin.update_namesrv_config(key, value)

    results = run_admin(namesrv, go)
    if json_output():
        print_json(results_json(results, key=key, value=value))
    else:
        print_results(results, "NAME SERVER")
    exit_for_results(results, f"updateNamesrvConfig {key}")
