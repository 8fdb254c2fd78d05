"""triggerLiteDispatch: make brokers dispatch a lite group's events again (RocketMQ 5.5)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.topic._lite import LiteGroupOpt, ParentTopicOpt
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


class LiteDispatchDoc(TypedDict):
    parentTopic: str
    group: str
    clientId: Annotated[str | None, "-c (null: every client of the group)"]
    results: list[TargetResultDoc]
    outcome: Outcome


@command(
    "triggerLiteDispatch",
    "mqadmin triggerLiteDispatch -p Chats -g ChatReaders",
    "mqadmin triggerLiteDispatch -p Chats -g ChatReaders -c 10.0.0.7@12345 -b broker-a",
    document=LiteDispatchDoc,
)
def trigger_lite_dispatch(
    parent_topic: ParentTopicOpt,
    group: LiteGroupOpt,
    namesrv: NamesrvOpt = None,
    client_id: Annotated[
        str | None, Option("-c", "--clientId", metavar="CLIENT_ID", help="Only this client of the group.")
    ] = None,
    broker_name: Annotated[
        str | None, Option("-b", "--brokerName", metavar="BROKER", help="Only this broker of the route.")
    ] = None,
) -> None:
    """Ask each broker of the parent topic's route (or only -b) to dispatch every lite event of the group
    (or of one client, -c) again. Prints one row per broker: ok or failed with the reason.
    Needs 5.5 brokers."""
    from mqadmin.cli.commands.topic._lite import check_names
    from mqadmin.cli.errors import usage_error
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import exit_for_results, print_results, results_json, run_admin

    check_names(parent_topic, group=group)

    async def go(admin: AdminClient) -> list[TargetResult]:
        results = await admin.on_route_brokers(
            parent_topic, lambda a: admin.trigger_lite_dispatch(a, group, client_id), broker_name
        )
        if broker_name is not None and not results:
            names = ", ".join(sorted(b.broker_name for b in (await admin.topic_route(parent_topic)).broker_datas))
            raise usage_error(
                f"broker {broker_name!r} is not in the route of {parent_topic}", f"the route has: {names}"
            )
        return results

    results = run_admin(namesrv, go)
    if json_output():
        print_json(results_json(results, parentTopic=parent_topic, group=group, clientId=client_id))
    else:
        print_results(results)
    exit_for_results(results, f"triggerLiteDispatch {group}")
