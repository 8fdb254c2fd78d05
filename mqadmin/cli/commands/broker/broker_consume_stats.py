"""brokerConsumeStats: every subscription group's offsets and lag on one broker."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt, parse_bool

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.model.broker_consume import BrokerConsumeStats


class GroupQueueDoc(TypedDict):
    topic: str
    group: str
    brokerName: str
    queueId: int
    brokerOffset: int
    consumerOffset: int
    diff: Annotated[int, "brokerOffset - consumerOffset"]
    lastTimestamp: Annotated[int, "store time (ms) of the last consumed message (0: none)"]


class BrokerConsumeStatsDoc(TypedDict):
    broker: str
    isOrder: bool
    level: Annotated[int, "-l: only queues at least this far behind"]
    queues: list[GroupQueueDoc]
    totalDiff: int
    totalInflightDiff: int


@command(
    "brokerConsumeStats",
    "mqadmin brokerConsumeStats -b 127.0.0.1:10911",
    "mqadmin brokerConsumeStats -b 127.0.0.1:10911 -l 1000   # only queues 1000 or more behind",
    document=BrokerConsumeStatsDoc,
)
def broker_consume_stats(
    broker_addr: Annotated[str, Option("-b", "--brokerAddr", metavar="HOST:PORT", help="Address of the broker.")],
    namesrv: NamesrvOpt = None,
    timeout_ms: Annotated[
        int | None,
        Option("-t", "--timeoutMillis", metavar="MS", min=1, help="Request timeout in ms [50000].", show_default=False),
    ] = None,
    level: Annotated[int, Option("-l", "--level", metavar="DIFF", help="Only queues at least this far behind.")] = 0,
    order: Annotated[
        str | None,
        Option("-o", "--order", metavar="true|false", help="Only ordered topics.", show_default=False),
    ] = None,
) -> None:
    """Every subscription group's offsets on one broker (GET_BROKER_CONSUME_STATS): one row per group, topic
    and queue with the broker's max offset, the group's offset, the difference and when the group last
    consumed, then the broker's total difference.

    -l hides queues less than DIFF behind; -o true keeps only topics configured as ordered. Java mqadmin also
    hides queues the group never consumed from (no last time); mqadmin shows them, as their lag counts.
    """
    from mqadmin.cli.commands.consumer._shared import local_time
    from mqadmin.cli.render import Column, json_output, print_json, print_table
    from mqadmin.cli.runner import check_broker_addr, run_admin

    check_broker_addr(broker_addr)
    is_order = bool(parse_bool(order, "-o"))
    timeout = (timeout_ms or 50_000) / 1000

    async def go(admin: AdminClient) -> BrokerConsumeStats:
        return await admin.broker_consume_stats(broker_addr, is_order, timeout)

    stats = run_admin(namesrv, go)
    rows = queue_rows(stats, level)
    if json_output():
        print_json(
            {
                "broker": broker_addr,
                "isOrder": is_order,
                "level": level,
                "queues": rows,
                "totalDiff": stats.total_diff,
                "totalInflightDiff": stats.total_inflight_diff,
            }
        )
        return
    columns = [Column("TOPIC"), Column("GROUP"), Column("BROKER"), Column("QID", numeric=True)]
    columns += [Column(name, numeric=True) for name in ("BROKER OFFSET", "CONSUMER OFFSET", "DIFF")]
    columns.append(Column("LAST TIME"))
    table = [
        (
            r["topic"], r["group"], r["brokerName"], r["queueId"], r["brokerOffset"], r["consumerOffset"],
            r["diff"], local_time(r["lastTimestamp"]),
        )
        for r in rows
    ]  # fmt: skip
    print_table(columns, table)
    print(f"\nDiff Total: {stats.total_diff}")


def queue_rows(stats: BrokerConsumeStats, level: int) -> list[GroupQueueDoc]:
    """One row per group, topic and queue at least ``level`` behind, sorted by topic, group and queue."""
    rows: list[GroupQueueDoc] = [
        {
            "topic": q.topic,
            "group": group,
            "brokerName": q.broker_name,
            "queueId": q.queue_id,
            "brokerOffset": q.broker_offset,
            "consumerOffset": q.consumer_offset,
            "diff": q.broker_offset - q.consumer_offset,
            "lastTimestamp": q.last_timestamp,
        }
        for group, per_topic in stats.groups.items()
        for s in per_topic
        for q in s.queues
        if q.broker_offset - q.consumer_offset >= level
    ]
    return sorted(rows, key=lambda r: (r["topic"], r["group"], r["queueId"]))
