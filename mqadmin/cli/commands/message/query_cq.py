"""queryCq: the consume-queue entries of one queue (commit-log offset, size, tags code of each message)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.message._shared import run_messaging
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt, TopicOpt, check_topic

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, Target, TargetResult


class CqEntryDoc(TypedDict):
    physicOffset: Annotated[int, "the message's commit-log offset"]
    physicSize: int
    tagsCode: Annotated[int, "the tag's hash code (or a delay level's delivery time)"]
    extendDataJson: str | None
    bitMap: str | None
    eval: bool
    msg: Annotated[Any, "as the broker sends it"]


class CqBrokerDoc(TypedDict):
    broker: str | None
    addr: str
    minQueueIndex: int | None
    maxQueueIndex: int | None
    subscriptionData: Annotated[dict[str, Any] | None, "-g: the group's subscription, as the broker sends it"]
    filterData: str | None
    queueData: list[CqEntryDoc]
    error: Annotated[str | None, "why the broker could not be read (null: it was)"]


class ConsumeQueueDoc(TypedDict):
    topic: str
    queueId: int
    index: Annotated[int, "the first consume-queue index read"]
    brokers: list[CqBrokerDoc]


@command(
    "queryCq",
    "mqadmin queryCq -t Orders -q 0 -i 0",
    "mqadmin queryCq -t Orders -q 0 -i 100 -c 20 -b 127.0.0.1:10911 -g OrdersConsumer",
    document=ConsumeQueueDoc,
)
def query_cq(
    topic: TopicOpt,
    queue_id: Annotated[int, Option("-q", "--queue", min=0, metavar="N", help="The queue id.")],
    index: Annotated[int, Option("-i", "--index", min=0, metavar="N", help="The first queue offset to show.")],
    namesrv: NamesrvOpt = None,
    count: Annotated[int, Option("-c", "--count", min=1, max=10000, metavar="N", help="How many entries.")] = 10,
    broker_addr: Annotated[
        str | None,
        Option(
            "-b",
            "--broker",
            metavar="HOST:PORT",
            help="Only this broker [every broker of the topic].",
            show_default=False,
        ),
    ] = None,  # fmt: skip
    group: Annotated[
        str | None,
        Option(
            "-g",
            "--consumer",
            metavar="GROUP",
            help="Also show this group's subscription and filter.",
            show_default=False,
        ),
    ] = None,  # fmt: skip
) -> None:
    """Show the consume-queue entries of one queue: for each queue offset from -i, where the message is
    in the commit log, its size and its tags hash code (for SCHEDULE_TOPIC_XXXX, its delivery time).

    Asks one broker (-b) or every broker of the topic's route (Java asks only the first). With -g the
    broker also reports the group's subscription, or that it is not online.
    """
    from mqadmin.admin.fanout import Target, fan_out
    from mqadmin.admin.queries import broker_addrs
    from mqadmin.admin.results import Status, TargetResult
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import check_broker_addr, exit_for_results

    check_topic(topic)
    check_broker_addr(broker_addr)

    async def go(admin: AdminClient) -> list[TargetResult]:
        if broker_addr is not None:
            from mqadmin.admin.fanout import target_of

            targets = [target_of(broker_addr, await admin.cluster_info())]
        else:
            targets = [Target(name, addr) for name, addr in broker_addrs(await admin.topic_route(topic)).items()]

        async def one(t: Target) -> TargetResult:
            view = await admin.query_consume_queue(t.addr, topic, queue_id, index, count, group)
            return TargetResult(t.name, t.addr, Status.OK, data=view)

        return await fan_out(targets, one)

    results = run_messaging(namesrv, go)
    if json_output():
        print_json({"topic": topic, "queueId": queue_id, "index": index, "brokers": [_json(r) for r in results]})
    else:
        _print(results, index, group)
    exit_for_results(results, f"queryCq {topic} queue {queue_id}")


def _print(results: list[TargetResult], index: int, group: str | None) -> None:
    from mqadmin.cli.render import Column, print_lines, print_table

    with_error = any(r.reason for r in results)
    cols = [Column("BROKER"), Column("ADDRESS"), Column("MIN", True), Column("MAX", True)]
    rows = []
    for r in results:
        row: list[object] = [r.name or "?", r.addr]
        row += [r.data.min_queue_index, r.data.max_queue_index] if r.ok else ["", ""]
        rows.append(row + [r.reason or ""] if with_error else row)
    print_table(cols + [Column("ERROR")] if with_error else cols, rows)
    if group is not None:
        print_lines(
            line
            for r in results
            if r.ok
            for line in ("", f"{r.name or r.addr}: subscription of {group}: {r.data.subscription_data}",
                         f"{r.name or r.addr}: filter data: {r.data.filter_data}")
        )  # fmt: skip
    entries = [(r.name or r.addr, index + i, e.physic_offset, e.physic_size, e.tags_code)
               for r in results if r.ok for i, e in enumerate(r.data.queue_data)]  # fmt: skip
    if entries:
        print_lines([""])
        cols = [Column("BROKER"), Column("INDEX", True), Column("PHYSIC OFFSET", True), Column("PHYSIC SIZE", True),
                Column("TAGS CODE", True)]  # fmt: skip
        print_table(cols, entries)


def _json(r: TargetResult) -> dict[str, Any]:
    view = r.data.to_json() if r.ok else {}
    return {
        "broker": r.name or None, "addr": r.addr, "minQueueIndex": view.get("minQueueIndex"),
        "maxQueueIndex": view.get("maxQueueIndex"), "subscriptionData": view.get("subscriptionData"),
        "filterData": view.get("filterData"), "queueData": view.get("queueData", []), "error": r.reason,
    }  # fmt: skip
