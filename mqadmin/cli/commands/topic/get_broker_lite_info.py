"""getBrokerLiteInfo: a broker's lite-topic metadata (RocketMQ 5.5), for one broker or every master."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetGiven, TargetResultDoc
from mqadmin.cli.params import BrokerAddrOpt, NamesrvOpt, exactly_one

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, Target, TargetResult
    from mqadmin.model.lite import BrokerLiteInfo


class BrokerLiteDoc(TypedDict):
    storeType: str
    maxLmqNum: int
    currentLmqNum: int
    liteSubscriptionCount: int
    orderInfoCount: int
    cqTableSize: int
    offsetTableSize: int
    eventMapSize: int
    topicMeta: Annotated[dict[str, int], "parent topic -> its lite topics"]
    groupMeta: Annotated[dict[str, list[str]], "group -> its parent topics"]


class BrokerLiteResultDoc(TargetResultDoc):
    info: Annotated[BrokerLiteDoc | None, "null: failed"]


class BrokerLiteInfoDoc(TypedDict):
    target: TargetGiven
    results: list[BrokerLiteResultDoc]
    outcome: Outcome


@command(
    "getBrokerLiteInfo",
    "mqadmin getBrokerLiteInfo -c DefaultCluster",
    "mqadmin getBrokerLiteInfo -b 127.0.0.1:10911 -d",
    document=BrokerLiteInfoDoc,
)
def get_broker_lite_info(
    namesrv: NamesrvOpt = None,
    broker_addr: BrokerAddrOpt = None,
    cluster: Annotated[
        str | None, Option("-c", "--cluster", metavar="CLUSTER", help="Every master of this cluster.")
    ] = None,
    show_detail: Annotated[
        bool, Option("-d", "--showDetail", help="Also list each parent topic's TTL and lite groups.")
    ] = False,
) -> None:
    """Show a broker's lite-topic metadata: store type, LMQ numbers, lite subscriptions, order infos and
    table sizes, for one broker (-b) or every master of a cluster (-c). Needs 5.5 brokers."""
    from mqadmin.cli.commands.topic._lite import broker_json, print_broker_rows
    from mqadmin.cli.render import Column, json_output, print_json, print_table
    from mqadmin.cli.runner import broker_targets, exit_for_results, run_admin

    exactly_one(broker_addr, cluster)

    async def go(admin: AdminClient) -> list[TargetResult]:
        from mqadmin.admin import Status, TargetResult, fan_out

        async def one(t: Target) -> TargetResult:
            return TargetResult(t.name, t.addr, Status.OK, data=await admin.broker_lite_info(t.addr))

        return await fan_out(await broker_targets(admin, broker_addr, cluster, masters_only=False), one)

    results = run_admin(namesrv, go)
    if json_output():
        target = {"cluster": cluster} if cluster else {"brokerAddr": broker_addr}
        print_json(broker_json(results, lambda i: i.to_json(), target=target))
    else:
        columns = ["STORE TYPE", "MAX LMQ", "CURRENT LMQ", "SUBSCRIPTIONS", "ORDER INFOS", "CQ TABLE", "OFFSET TABLE"]
        print_broker_rows(
            results,
            [Column(columns[0])] + [Column(c, numeric=True) for c in [*columns[1:], "EVENT MAP"]],
            lambda i: [
                i.store_type, i.max_lmq_num, i.current_lmq_num, i.lite_subscription_count, i.order_info_count,
                i.cq_table_size, i.offset_table_size, i.event_map_size,
            ],
        )  # fmt: skip
        if show_detail:
            rows = [_detail_rows(r.name, r.data) for r in results if r.ok]
            print()
            print_table(
                [Column("BROKER"), Column("PARENT TOPIC"), Column("TTL", numeric=True), Column("LITE GROUPS")],
                [row for broker_rows in rows for row in broker_rows],
            )
    exit_for_results(results, "getBrokerLiteInfo")


def _detail_rows(broker: str, info: BrokerLiteInfo) -> list[list[object]]:
    topics = sorted(set(info.topic_meta) | set(info.group_meta))
    return [[broker, t, info.topic_meta.get(t, ""), ",".join(info.group_meta.get(t, []))] for t in topics]
