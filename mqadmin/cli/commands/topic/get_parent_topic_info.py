"""getParentTopicInfo: a lite parent topic on each broker of its route (RocketMQ 5.5)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.topic._lite import ParentTopicOpt
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


class ParentTopicDoc(TypedDict):
    topic: str
    ttl: int
    liteTopicCount: int
    lmqNum: int
    groups: list[str]


class ParentTopicResultDoc(TargetResultDoc):
    info: Annotated[ParentTopicDoc | None, "null: failed"]


class ParentTopicInfoDoc(TypedDict):
    parentTopic: str
    results: Annotated[list[ParentTopicResultDoc], "each broker of the route"]
    outcome: Outcome


@command("getParentTopicInfo", "mqadmin getParentTopicInfo -p Chats", document=ParentTopicInfoDoc)
def get_parent_topic_info(parent_topic: ParentTopicOpt, namesrv: NamesrvOpt = None) -> None:
    """Show a lite parent topic on each broker of its route: the lite topics' TTL (seconds), how many lite
    topics and LMQs the broker holds, and the lite groups bound to the topic. Needs 5.5 brokers."""
    from mqadmin.cli.commands.topic._lite import broker_json, check_names, print_broker_rows
    from mqadmin.cli.render import Column, json_output, print_json
    from mqadmin.cli.runner import exit_for_results, run_admin

    check_names(parent_topic)

    async def go(admin: AdminClient) -> list[TargetResult]:
        return await admin.on_route_brokers(parent_topic, lambda addr: admin.parent_topic_info(addr, parent_topic))

    results = run_admin(namesrv, go)
    if json_output():
        print_json(broker_json(results, lambda i: i.to_json(), parentTopic=parent_topic))
    else:
        print_broker_rows(
            results,
            [
                Column("TTL", numeric=True),
                Column("LITE TOPICS", numeric=True),
                Column("LMQ NUM", numeric=True),
                Column("GROUPS"),
            ],
            lambda i: [i.ttl, i.lite_topic_count, i.lmq_num, ",".join(i.groups)],
        )
    exit_for_results(results, f"getParentTopicInfo {parent_topic}")
