"""getLiteGroupInfo: a lite group's lag on each broker of its parent topic's route (RocketMQ 5.5)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.topic._lite import LiteGroupOpt, ParentTopicOpt
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult
    from mqadmin.model.lite import LiteGroupInfo, LiteLag


class LiteOffsetsDoc(TypedDict):
    brokerOffset: int
    consumerOffset: int
    lagCount: int
    lastTimestamp: int | None


class LiteGroupDoc(TypedDict):
    totalLagCount: int | None
    earliestUnconsumedTimestamp: int | None
    liteTopicOffsets: Annotated[LiteOffsetsDoc | None, "-l: the lite topic's offsets"]


class LiteGroupResultDoc(TargetResultDoc):
    info: Annotated[LiteGroupDoc | None, "null: failed"]


class LiteLagDoc(TypedDict):
    liteTopic: str
    lagCount: int
    earliestUnconsumedTimestamp: int | None


class LiteGroupInfoDoc(TypedDict):
    parentTopic: str
    group: str
    liteTopic: Annotated[str | None, "-l (null: every lite topic)"]
    results: Annotated[list[LiteGroupResultDoc], "each broker of the route"]
    outcome: Outcome
    totalLagCount: Annotated[int, "over the brokers that answered"]
    earliestUnconsumedTimestamp: int | None
    lagCountTopK: Annotated[list[LiteLagDoc], "the lite topics with the largest lag (-k)"]
    lagTimestampTopK: Annotated[list[LiteLagDoc], "the lite topics with the oldest unconsumed message (-k)"]


@command(
    "getLiteGroupInfo",
    "mqadmin getLiteGroupInfo -p Chats -g ChatReaders",
    "mqadmin getLiteGroupInfo -p Chats -g ChatReaders -k 5",
    "mqadmin getLiteGroupInfo -p Chats -g ChatReaders -l room-42",
    document=LiteGroupInfoDoc,
)
def get_lite_group_info(
    parent_topic: ParentTopicOpt,
    group: LiteGroupOpt,
    namesrv: NamesrvOpt = None,
    lite_topic: Annotated[
        str | None, Option("-l", "--liteTopic", metavar="LITE", help="Only this lite topic's offsets.")
    ] = None,
    top_k: Annotated[
        int, Option("-k", "--topK", min=1, max=10000, metavar="K", help="Lite topics each broker ranks.")
    ] = 20,
) -> None:
    """Show a lite group's lag on each broker of the parent topic's route: the lag count and earliest
    unconsumed message per broker, the totals, and the lite topics with the largest lag (each broker's top
    K by count and by age). With -l, one lite topic's broker and consumer offsets instead.
    Needs 5.5 brokers."""
    from mqadmin.cli.commands.topic._lite import broker_json, check_names
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import exit_for_results, run_admin

    check_names(parent_topic, group=group)

    async def go(admin: AdminClient) -> list[TargetResult]:
        return await admin.on_route_brokers(parent_topic, lambda a: admin.lite_group_info(a, group, lite_topic, top_k))

    results = run_admin(namesrv, go)
    infos: list[LiteGroupInfo] = [r.data for r in results if r.ok]
    total = sum(max(i.total_lag_count, 0) for i in infos)
    earliest = min((i.earliest_unconsumed_timestamp for i in infos if i.earliest_unconsumed_timestamp > 0), default=0)
    by_count = sorted((lag for i in infos for lag in i.lag_count_top_k), key=lambda x: -x.lag_count)
    by_age = sorted((lag for i in infos for lag in i.lag_timestamp_top_k), key=_age_key)
    if json_output():
        from mqadmin.cli.commands.topic._lite import never_null

        doc = broker_json(results, _info, parentTopic=parent_topic, group=group, liteTopic=lite_topic)
        doc["totalLagCount"] = total
        doc["earliestUnconsumedTimestamp"] = never_null(earliest)
        doc["lagCountTopK"] = [_lag_json(x) for x in by_count]
        doc["lagTimestampTopK"] = [_lag_json(x) for x in by_age]
        print_json(doc)
    else:
        _print(results, lite_topic, total, earliest, by_count, by_age)
    exit_for_results(results, f"getLiteGroupInfo {group}")


def _age_key(lag: LiteLag) -> tuple[bool, int]:
    """Oldest unconsumed first; lite topics with nothing unconsumed (-1) last."""
    return (lag.earliest_unconsumed_timestamp <= 0, lag.earliest_unconsumed_timestamp)


def _print(
    results: list[TargetResult],
    lite_topic: str | None,
    total: int,
    earliest: int,
    by_count: list[LiteLag],
    by_age: list[LiteLag],
) -> None:
    import time

    from mqadmin.cli.commands.topic._lite import print_broker_rows
    from mqadmin.cli.commands.topic._shared import java_time
    from mqadmin.cli.render import Column, print_table

    if lite_topic:
        columns = [Column("BROKER OFFSET", numeric=True), Column("CONSUMER OFFSET", numeric=True)]
        columns += [Column("LAG", numeric=True), Column("LAST CONSUMED")]

        def cells(i: LiteGroupInfo) -> list[object]:
            o = i.lite_topic_offsets
            if o is None:
                return ["", "", "", ""]
            return [
                o.broker_offset,
                o.consumer_offset,
                o.broker_offset - o.consumer_offset,
                java_time(o.last_timestamp),
            ]

        print_broker_rows(results, columns, cells)
    else:
        columns = [Column("LAG COUNT", numeric=True), Column("EARLIEST UNCONSUMED")]
        print_broker_rows(
            results, columns, lambda i: [max(i.total_lag_count, 0), java_time(i.earliest_unconsumed_timestamp)]
        )
    age = f" ({int(time.time() - earliest / 1000)} s ago)" if earliest > 0 else ""
    print(f"\ntotal lag count: {total}; earliest unconsumed: {java_time(earliest) or 'none'}{age}")
    lag_columns = [Column("NO", numeric=True), Column("LITE TOPIC"), Column("LAG COUNT", numeric=True)]
    lag_columns.append(Column("EARLIEST UNCONSUMED"))
    for title, lags in (("top lite topics by lag count", by_count), ("top lite topics by lag age", by_age)):
        if lags:
            print()
            rows = [
                [n, x.lite_topic, x.lag_count, java_time(x.earliest_unconsumed_timestamp)]
                for n, x in enumerate(lags, 1)
            ]
            print_table(lag_columns, rows, title)


def _info(i: LiteGroupInfo) -> dict[str, Any]:
    from mqadmin.cli.commands.topic._lite import never_null

    o = i.lite_topic_offsets
    offsets = None
    if o is not None:
        offsets = {
            "brokerOffset": o.broker_offset,
            "consumerOffset": o.consumer_offset,
            "lagCount": o.broker_offset - o.consumer_offset,
            "lastTimestamp": never_null(o.last_timestamp),
        }
    return {
        "totalLagCount": i.total_lag_count if i.total_lag_count >= 0 else None,
        "earliestUnconsumedTimestamp": never_null(i.earliest_unconsumed_timestamp),
        "liteTopicOffsets": offsets,
    }


def _lag_json(x: LiteLag) -> dict[str, Any]:
    from mqadmin.cli.commands.topic._lite import never_null

    return {
        "liteTopic": x.lite_topic,
        "lagCount": x.lag_count,
        "earliestUnconsumedTimestamp": never_null(x.earliest_unconsumed_timestamp),
    }
