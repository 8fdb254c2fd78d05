"""getLiteClientInfo: one client's lite subscriptions on each broker of a parent topic's route."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.topic._lite import LiteGroupOpt, ParentTopicOpt
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult
    from mqadmin.model.lite import LiteClientInfo


class LiteClientDoc(TypedDict):
    liteTopicCount: int | None
    liteTopics: list[str]
    lastAccessTime: Annotated[int | None, "ms since the epoch (null: never)"]
    lastConsumeTime: Annotated[int | None, "ms since the epoch (null: never)"]


class LiteClientResultDoc(TargetResultDoc):
    info: Annotated[LiteClientDoc | None, "null: failed"]


class LiteClientInfoDoc(TypedDict):
    parentTopic: str
    group: str
    clientId: str
    results: Annotated[list[LiteClientResultDoc], "each broker of the route"]
    outcome: Outcome


@command(
    "getLiteClientInfo",
    "mqadmin getLiteClientInfo -p Chats -g ChatReaders -c 10.0.0.7@12345 -s",
    document=LiteClientInfoDoc,
)
def get_lite_client_info(
    parent_topic: ParentTopicOpt,
    group: LiteGroupOpt,
    client_id: Annotated[str, Option("-c", "--clientId", metavar="CLIENT_ID", help="The consumer's client id.")],
    namesrv: NamesrvOpt = None,
    show_detail: Annotated[bool, Option("-s", "--showDetail", help="List the client's lite topics.")] = False,
) -> None:
    """Show one client's lite subscriptions on each broker of the parent topic's route: how many lite
    topics it subscribes to (at most 1000 listed with -s), and when it last accessed and consumed.
    Needs 5.5 brokers."""
    from mqadmin.cli.commands.topic._lite import broker_json, check_names, print_broker_rows
    from mqadmin.cli.commands.topic._shared import java_time
    from mqadmin.cli.render import Column, json_output, print_json
    from mqadmin.cli.runner import exit_for_results, run_admin

    check_names(parent_topic, group=group)

    async def go(admin: AdminClient) -> list[TargetResult]:
        return await admin.on_route_brokers(
            parent_topic, lambda a: admin.lite_client_info(a, parent_topic, group, client_id)
        )

    results = run_admin(namesrv, go)
    if json_output():
        print_json(broker_json(results, _info, parentTopic=parent_topic, group=group, clientId=client_id))
    else:
        columns = [Column("LITE TOPICS", numeric=True), Column("LAST ACCESS"), Column("LAST CONSUME")]
        print_broker_rows(
            results,
            columns + ([Column("TOPICS")] if show_detail else []),
            lambda i: [
                i.lite_topic_count if i.lite_topic_count >= 0 else "",
                java_time(i.last_access_time),
                java_time(i.last_consume_time),
                *([" ".join(i.lite_topics)] if show_detail else []),
            ],
        )
    exit_for_results(results, f"getLiteClientInfo {client_id}")


def _info(i: LiteClientInfo) -> dict[str, Any]:
    from mqadmin.cli.commands.topic._lite import never_null

    return {
        "liteTopicCount": i.lite_topic_count if i.lite_topic_count >= 0 else None,
        "liteTopics": i.lite_topics,
        "lastAccessTime": never_null(i.last_access_time),
        "lastConsumeTime": never_null(i.last_consume_time),
    }
