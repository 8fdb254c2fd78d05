"""consumerProgress: a group's offsets and lag per queue with totals, or every group's lag."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, NotRequired, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.errors import usage_error
from mqadmin.cli.params import NamesrvOpt, check_topic, parse_bool

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult
    from mqadmin.admin.consumers import GroupProgress, GroupSummary

SORTS = ("lag", "queue", "name")


class QueueProgressDoc(TypedDict):
    topic: str
    brokerName: str
    queueId: int
    brokerOffset: Annotated[int, "the queue's max offset"]
    consumerOffset: Annotated[int, "the group's committed offset"]
    lag: int
    inflight: Annotated[int, "pulled and not yet committed (POP: not acknowledged)"]
    lastTimestamp: Annotated[int | None, "store time (ms) of the last consumed message (null: none)"]
    clientIp: NotRequired[Annotated[str | None, "-s true: the client consuming the queue"]]


class DepthDoc(TypedDict):
    topic: str
    depth: Annotated[int | None, "messages in it (null: it does not exist)"]


class GroupProgressDoc(TypedDict):
    """With -g: the group's progress per queue."""

    group: str
    topic: Annotated[str | None, "-t (null: every topic of the group)"]
    online: Annotated[bool, "whether a consumer of the group is connected"]
    clients: int
    consumeType: str | None
    messageModel: str | None
    queues: list[QueueProgressDoc]
    consumeTps: float
    lagTotal: int
    inflightTotal: int
    retry: DepthDoc
    dlq: DepthDoc
    results: Annotated[list[TargetResultDoc], "each broker asked"]
    outcome: Outcome


class GroupSummaryDoc(TypedDict):
    group: str
    clients: Annotated[int, "consumers online"]
    version: Annotated[str | None, "the clients' version, e.g. V4_9_8 (null: none online)"]
    consumeType: str | None
    messageModel: str | None
    consumeTps: float
    lag: int
    retryDepth: int | None
    dlqDepth: int | None
    error: Annotated[str | None, "why the group could not be read (null: it was)"]


class GroupsProgressDoc(TypedDict):
    """Without -g: every group, largest lag first."""

    groups: list[GroupSummaryDoc]
    lagTotal: int


@command(
    "consumerProgress",
    "mqadmin consumerProgress                          # every group, largest lag first",
    "mqadmin consumerProgress -g OrdersConsumer        # per queue: offsets, lag, last consume time",
    "mqadmin consumerProgress -g OrdersConsumer -t Orders -s true --sort lag",
    document=GroupProgressDoc | GroupsProgressDoc,
)
def consumer_progress(
    namesrv: NamesrvOpt = None,
    group: Annotated[
        str | None,
        Option("-g", "--groupName", metavar="GROUP", help="Consumer group [every group].", show_default=False),
    ] = None,
    topic: Annotated[
        str | None,
        Option("-t", "--topicName", metavar="TOPIC", help="Only this topic (with -g).", show_default=False),
    ] = None,
    show_client_ip: Annotated[
        str | None,
        Option("-s", "--showClientIP", metavar="true|false", help="Show the client of each queue (with -g)."),
    ] = None,
    cluster: Annotated[
        str | None,
        Option("-c", "--cluster", metavar="CLUSTER", help="Only brokers of this cluster.", show_default=False),
    ] = None,
    sort: Annotated[
        str | None,
        Option("--sort", metavar="lag|queue|name", help="Row order [groups: lag, largest first; queues: queue]."),
    ] = None,
) -> None:
    """A group's progress per queue: broker offset, consumer offset, lag, in-flight messages and the store
    time of the last consumed message, then the totals, the messages waiting in the group's retry topic
    and in its dead-letter topic, and who is online. Without -g, one line per group (every group with a
    retry topic or committed offsets): clients online, version, type, model, TPS, lag, retry and dead
    letters, largest lag first. A group that never had a consumer online (offsets set by resetOffsetByTime,
    say: no retry topic) is found in the masters' offset tables. Brokers (or groups) that cannot be read are
    listed, and the exit code is 3 (1 if none could).
    """
    if sort is not None and sort not in SORTS:
        raise usage_error(f"--sort {sort!r} is not one of {', '.join(SORTS)}", "for example: --sort lag")
    if topic is not None:
        check_topic(topic)
    if group is None:
        if topic is not None or show_client_ip is not None:
            raise usage_error("-t and -s need -g GROUP", "without -g every group is listed")
        _all_groups(namesrv, cluster, sort or "lag")
        return
    from mqadmin.cli.commands.consumer._shared import check_group

    check_group(group)
    _one_group(namesrv, group, topic, cluster, bool(parse_bool(show_client_ip, "-s")), sort or "queue")


def _one_group(
    namesrv: str | None, group: str, topic: str | None, cluster: str | None, with_clients: bool, sort: str
) -> None:
    from mqadmin.cli.commands.consumer._shared import run_consumers
    from mqadmin.cli.render import json_output, note, print_json
    from mqadmin.cli.runner import exit_for_results

    async def go(admin: AdminClient) -> GroupProgress:
        return await admin.group_progress(group, topic, cluster=cluster, with_clients=with_clients)

    p = run_consumers(namesrv, go)
    if sort == "lag":
        p.queues.sort(key=lambda q: (-q.lag, q.topic, q.broker_name, q.queue_id))
    if json_output():
        print_json(_progress_json(p, with_clients))
    else:
        _print_progress(p, with_clients)
        if not p.queues and all(r.ok for r in p.brokers):
            note(f"mqadmin: {group} holds no offset{' on ' + topic if topic else ''} (never consumed, or broadcasting)")
    exit_for_results(p.brokers, f"consumerProgress {group}")


def _progress_json(p: GroupProgress, with_clients: bool) -> dict[str, Any]:
    from mqadmin.admin import outcome
    from mqadmin.admin.consumers import dlq_topic, retry_topic
    from mqadmin.model.queue import MessageQueue, queue_json

    conn = p.connection
    queues = []
    for q in p.queues:
        mq = MessageQueue(q.topic, q.broker_name, q.queue_id)
        extra = {"clientIp": p.clients.get(mq)} if with_clients else {}
        queues.append(
            queue_json(
                mq,
                brokerOffset=q.broker_offset,
                consumerOffset=q.consumer_offset,
                lag=q.lag,
                inflight=q.inflight,
                lastTimestamp=q.last_timestamp or None,
                **extra,
            )
        )
    return {
        "group": p.group,
        "topic": p.topic,
        "online": conn is not None,
        "clients": len(conn.connections) if conn else 0,
        "consumeType": conn.consume_type if conn else None,
        "messageModel": conn.message_model if conn else None,
        "queues": queues,
        "consumeTps": round(p.consume_tps, 2),
        "lagTotal": p.lag_total,
        "inflightTotal": p.inflight_total,
        "retry": {"topic": retry_topic(p.group), "depth": p.retry_depth},
        "dlq": {"topic": dlq_topic(p.group), "depth": p.dlq_depth},
        "results": [r.to_json() for r in p.brokers],
        "outcome": outcome(p.brokers),
    }


def _print_progress(p: GroupProgress, with_clients: bool) -> None:
    from mqadmin.admin.consumers import dlq_topic, retry_topic
    from mqadmin.cli.commands.consumer._shared import local_time
    from mqadmin.cli.render import Column, print_lines, print_table
    from mqadmin.cli.runner import print_results
    from mqadmin.model.clients import CONSUME_TYPE_NAMES
    from mqadmin.model.queue import MessageQueue

    cols = [Column("TOPIC"), Column("BROKER"), Column("QID", numeric=True), Column("BROKER OFFSET", numeric=True),
            Column("CONSUMER OFFSET", numeric=True)]  # fmt: skip
    cols += [Column("CLIENT IP")] if with_clients else []
    cols += [Column("LAG", numeric=True), Column("INFLIGHT", numeric=True), Column("LAST CONSUMED")]
    rows = []
    for q in p.queues:
        row: list[object] = [q.topic, q.broker_name, q.queue_id, q.broker_offset, q.consumer_offset]
        if with_clients:
            row.append(p.clients.get(MessageQueue(q.topic, q.broker_name, q.queue_id), "N/A"))
        rows.append([*row, q.lag, q.inflight, local_time(q.last_timestamp)])
    print_table(cols, rows)
    conn = p.connection
    if conn is None:
        online = "none online"
    else:
        kind = CONSUME_TYPE_NAMES.get(conn.consume_type, conn.consume_type)
        online = f"{len(conn.connections)} online ({kind}, {conn.message_model})"
    lines = [
        f"Consume TPS: {p.consume_tps:.2f}",
        f"Lag total: {p.lag_total}",
        f"Inflight total: {p.inflight_total}",
        f"Retry ({retry_topic(p.group)}): {_depth(p.retry_depth)}",
        f"Dead letters ({dlq_topic(p.group)}): {_depth(p.dlq_depth)}",
        f"Consumers: {online}",
    ]
    if rows:
        print()
    print_lines(lines)
    failed = [r for r in p.brokers if not r.ok]
    if failed:
        print()
        print_results(failed, "BROKER", "Brokers that did not answer")


def _depth(value: int | None) -> str:
    return "-" if value is None else str(value)


def _all_groups(namesrv: str | None, cluster: str | None, sort: str) -> None:
    from mqadmin.admin import Status, TargetResult
    from mqadmin.cli.commands.consumer._shared import run_consumers
    from mqadmin.cli.render import json_output, print_json, warn
    from mqadmin.cli.runner import exit_for_results

    async def go(admin: AdminClient) -> tuple[list[GroupSummary], list[TargetResult]]:
        return await admin.all_groups_progress(cluster)

    groups, unread = run_consumers(namesrv, go)
    if sort == "lag":
        groups.sort(key=lambda g: (-g.lag, g.group))
    if json_output():
        print_json({"groups": [_summary_json(g) for g in groups], "lagTotal": sum(g.lag for g in groups)})
    else:
        _print_summaries(groups)
    for r in unread:
        warn(f"the offset table of {r.name} ({r.addr}) could not be read: {r.reason}; groups only it holds are missing")
    results = [
        TargetResult(g.group, "", Status.FAILED if g.error else Status.OK, g.error, error=g.cause) for g in groups
    ]
    exit_for_results(results + unread, "consumerProgress")


def _summary_json(g: GroupSummary) -> dict[str, Any]:
    from mqadmin.model.version import version_desc

    return {
        "group": g.group,
        "clients": g.clients,
        "version": version_desc(g.version) if g.clients and g.version is not None else None,
        "consumeType": g.consume_type or None,
        "messageModel": g.message_model or None,
        "consumeTps": round(g.consume_tps, 2),
        "lag": g.lag,
        "retryDepth": g.retry_depth,
        "dlqDepth": g.dlq_depth,
        "error": g.error,
    }


def _print_summaries(groups: list[GroupSummary]) -> None:
    from mqadmin.cli.render import Column, print_table
    from mqadmin.model.clients import CONSUME_TYPE_NAMES
    from mqadmin.model.version import version_desc

    cols = [Column("GROUP"), Column("CLIENTS", numeric=True), Column("VERSION"), Column("TYPE"), Column("MODEL"),
            Column("TPS", numeric=True), Column("LAG", numeric=True), Column("RETRY", numeric=True),
            Column("DLQ", numeric=True)]  # fmt: skip
    with_error = any(g.error for g in groups)
    cols += [Column("ERROR")] if with_error else []
    rows = []
    for g in groups:
        online = g.clients > 0
        row: list[object] = [
            g.group,
            g.clients,
            version_desc(g.version) if online and g.version is not None else "OFFLINE",
            CONSUME_TYPE_NAMES.get(g.consume_type, g.consume_type) if online else "",
            g.message_model if online else "",
            int(g.consume_tps),  # Java prints the TPS truncated
            g.lag,
            _depth(g.retry_depth),
            _depth(g.dlq_depth),
        ]
        rows.append(row + ([g.error or ""] if with_error else []))
    print_table(cols, rows)
