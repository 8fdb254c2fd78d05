"""getLiteTopicInfo: one lite topic's offsets and subscribers on each broker of its parent's route."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.topic._lite import ParentTopicOpt
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult
    from mqadmin.model.lite import LiteTopicInfo


class LiteSubscriberDoc(TypedDict):
    clientId: str
    group: str


class LiteTopicDoc(TypedDict):
    minOffset: int
    maxOffset: int
    lastUpdateTimestamp: Annotated[int | None, "ms since the epoch (null: never)"]
    shardingToBroker: bool
    subscribers: list[LiteSubscriberDoc]


class LiteTopicResultDoc(TargetResultDoc):
    info: Annotated[LiteTopicDoc | None, "null: failed"]


class LiteTopicInfoDoc(TypedDict):
    parentTopic: str
    liteTopic: str
    lmqName: Annotated[str, "the LMQ the lite topic is stored in"]
    results: Annotated[list[LiteTopicResultDoc], "each broker of the route"]
    outcome: Outcome


@command(
    "getLiteTopicInfo",
    "mqadmin getLiteTopicInfo -p Chats -l room-42",
    "mqadmin getLiteTopicInfo -p Chats -l room-42 -s",
    document=LiteTopicInfoDoc,
)
def get_lite_topic_info(
    parent_topic: ParentTopicOpt,
    lite_topic: Annotated[str, Option("-l", "--liteTopic", metavar="LITE", help="Lite topic name.")],
    namesrv: NamesrvOpt = None,
    show_client_id: Annotated[bool, Option("-s", "--showClientId", help="List every subscriber.")] = False,
) -> None:
    """Show one lite topic on each broker of its parent topic's route: min and max offset, last update,
    whether the lite topic is sharded to that broker, and its subscribers (client@group with -s).
    Needs 5.5 brokers."""
    from mqadmin.cli.commands.topic._lite import broker_json, check_names, print_broker_rows
    from mqadmin.cli.commands.topic._shared import java_time
    from mqadmin.cli.render import Column, json_output, note, print_json
    from mqadmin.cli.runner import exit_for_results, run_admin
    from mqadmin.model.lite import lmq_name

    check_names(parent_topic)
    if not lite_topic.strip():
        from mqadmin.cli.errors import usage_error

        raise usage_error("-l is blank", "give the lite topic's name")

    async def go(admin: AdminClient) -> list[TargetResult]:
        return await admin.on_route_brokers(parent_topic, lambda a: admin.lite_topic_info(a, parent_topic, lite_topic))

    results = run_admin(namesrv, go)
    lmq = lmq_name(parent_topic, lite_topic)
    if json_output():
        print_json(broker_json(results, _info, parentTopic=parent_topic, liteTopic=lite_topic, lmqName=lmq))
    else:
        note(f"lite topic {lite_topic} of {parent_topic} (LMQ {lmq})")
        columns = [Column("MIN OFFSET", numeric=True), Column("MAX OFFSET", numeric=True), Column("LAST UPDATE")]
        columns += [Column("SHARDED HERE"), Column("SUBSCRIBERS", numeric=True)]
        columns += [Column("CLIENT@GROUP")] if show_client_id else []
        print_broker_rows(
            results,
            columns,
            lambda i: [
                i.min_offset,
                i.max_offset,
                java_time(i.last_update_timestamp),
                "true" if i.sharding_to_broker else "false",
                len(i.subscribers),
                *([" ".join(f"{c}@{g}" for c, g in i.subscribers)] if show_client_id else []),
            ],
        )
    exit_for_results(results, f"getLiteTopicInfo {parent_topic} {lite_topic}")


def _info(i: LiteTopicInfo) -> dict[str, Any]:
    from mqadmin.cli.commands.topic._lite import never_null

    return {
        "minOffset": i.min_offset,
        "maxOffset": i.max_offset,
        "lastUpdateTimestamp": never_null(i.last_update_timestamp),
        "shardingToBroker": i.sharding_to_broker,
        "subscribers": [{"clientId": c, "group": g} for c, g in i.subscribers],
    }
