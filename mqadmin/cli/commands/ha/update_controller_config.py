"""updateControllerConfig: change one config key on every controller of -a, showing old → new on each."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.ha._shared import FoundControllerOpt
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import SettingDoc
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


@command(
    "updateControllerConfig",
    "mqadmin updateControllerConfig -a 127.0.0.1:9878 -k notifyBrokerRoleChanged -v false",
    document=SettingDoc,
)
def update_controller_config(
    key: Annotated[str, Option("-k", "--key", metavar="KEY", help="Config key.")],
    value: Annotated[str, Option("-v", "--value", metavar="VALUE", help="New value.")],
    controller: FoundControllerOpt = None,
    namesrv: NamesrvOpt = None,
) -> None:
    """Change one config key on every controller of -a (UPDATE_CONTROLLER_CONFIG), concurrently.

    Each controller's config is read before and after: it reports updated (old→new), unchanged (already that
    value; nothing sent) or failed with the reason: the controller's answer for a refused key (configBlackList
    and the store paths: NO_PERMISSION), "unknown key" for a key the controller does not have (Java mqadmin
    reports success and nothing changes), or "not applied" for a value the controller did not take.
    """
    from mqadmin.cli.commands.ha._shared import controllers, run_controller
    from mqadmin.cli.commands.namesrv._shared import config_key, config_value
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import exit_for_results, print_results, results_json

    addrs = controllers(controller, namesrv)
    key, value = config_key(key), config_value(value)

    async def go(admin: AdminClient) -> list[TargetResult]:
        return await admin.update_controller_config(addrs, key, value)

    results = run_controller(addrs, go)
    if json_output():
        print_json(results_json(results, key=key, value=value))
    else:
        print_results(results, "CONTROLLER")
    exit_for_results(results, f"updateControllerConfig {key}")
