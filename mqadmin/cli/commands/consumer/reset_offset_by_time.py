"""resetOffsetByTime: move a consumer group on a topic back (or forward) to a point in time."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.consumer._shared import ResetOffsetDoc
from mqadmin.cli.declare import Option
from mqadmin.cli.errors import usage_error
from mqadmin.cli.params import NamesrvOpt, check_topic, parse_bool

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult

DryRunOpt = Annotated[bool, Option("--dry-run", help="Only show the offsets each queue would get; change nothing.")]
ForceOpt = Annotated[
    str | None,
    Option("-f", "--force", metavar="true|false", help="false: a queue only moves back, never forward [true]."),
]
ResetClusterOpt = Annotated[
    str | None,
    Option("-c", "--cluster", metavar="CLUSTER", help="Only the topic's brokers in this cluster.", show_default=False),
]


@command(
    "resetOffsetByTime",
    "mqadmin resetOffsetByTime -g OrdersConsumer -t Orders -s -1h --dry-run   # what would move",
    "mqadmin resetOffsetByTime -g OrdersConsumer -t Orders -s -1h",
    "mqadmin resetOffsetByTime -g OrdersConsumer -t Orders -s 2024-05-01T03:00:00",
    "mqadmin resetOffsetByTime -g OrdersConsumer -t Orders -s now -b 127.0.0.1:10911 -q 3 -o 1200",
    document=ResetOffsetDoc,
)
def reset_offset_by_time(
    group: Annotated[str, Option("-g", "--group", metavar="GROUP", help="Consumer group name.")],
    topic: Annotated[str, Option("-t", "--topic", metavar="TOPIC", help="Topic name.")],
    timestamp: Annotated[
        str,
        Option(
            "-s",
            "--timestamp",
            metavar="TIME",
            help="ms since the epoch, now, an ISO date (local time unless a zone is given), "
            "yyyy-MM-dd#HH:mm:ss:SSS, or relative: -1h, -30m, -2d.",
        ),
    ],  # fmt: skip
    namesrv: NamesrvOpt = None,
    force: ForceOpt = None,
    cluster: ResetClusterOpt = None,
    broker_addr: Annotated[
        str | None,
        Option("-b", "--broker", metavar="HOST:PORT", help="Only this broker's queues.", show_default=False),
    ] = None,
    queue_id: Annotated[
        int | None, Option("-q", "--queue", min=0, metavar="QID", help="Only this queue (with -b).")
    ] = None,
    offset: Annotated[
        int | None,
        Option("-o", "--offset", min=0, metavar="OFFSET", help="Move that queue to this offset (with -b and -q)."),
    ] = None,
    dry_run: DryRunOpt = False,
) -> None:
    """Move a consumer group on every queue of a topic to the first message stored at or after a time,
    without restarting its consumers, and print each queue's offset before and after.

    Online consumers follow at once on 5.x brokers (and mqadmin's), which reset the offsets themselves;
    4.9 brokers tell each online consumer to move, and Java consumers commit the new offsets about ten
    seconds later. For a group with no consumer online the offsets are committed directly. Each broker is
    reported on its own; when one fails, the table still shows which queues moved. With -b only that
    broker's queues move; with -b and -q only that queue (to -o when given, checked against the queue's
    range). --dry-run reads everything and changes nothing.
    """
    from mqadmin.cli.commands.consumer._shared import check_group, parse_when

    check_group(group)
    check_topic(topic)
    when = parse_when(timestamp)
    if queue_id is not None and broker_addr is None:
        raise usage_error("-q needs -b (the broker of that queue)", "for example: -b 127.0.0.1:10911 -q 3")
    if offset is not None and queue_id is None:
        raise usage_error("-o needs -b and -q (the queue to move)", "for example: -b 127.0.0.1:10911 -q 3 -o 1200")
    if broker_addr and cluster:
        raise usage_error("give either -b (one broker) or -c (a cluster), not both")
    run_reset(
        "resetOffsetByTime", namesrv, group, topic, when, parse_bool(force, "-f") is not False, cluster, dry_run,
        broker_addr=broker_addr, queue_id=queue_id, offset=offset,
    )  # fmt: skip


def run_reset(
    name: str,
    namesrv: str | None,
    group: str,
    topic: str,
    when: int,
    force: bool,
    cluster: str | None,
    dry_run: bool,
    *,
    broker_addr: str | None = None,
    queue_id: int | None = None,
    offset: int | None = None,
) -> None:
    """Reset (or, with ``when`` TO_END, skip) and print the result; shared with skipAccumulatedMessage."""
    from mqadmin.admin.offsets import TO_END
    from mqadmin.cli.commands.consumer._shared import (
        local_time,
        offset_results_json,
        print_offset_results,
        run_consumers,
    )
    from mqadmin.cli.render import json_output, note, print_json
    from mqadmin.cli.runner import broker_targets, check_broker_addr, exit_for_results

    check_broker_addr(broker_addr)

    async def go(admin: AdminClient) -> list[TargetResult]:
        if queue_id is None:
            return await admin.reset_offsets(
                group, topic, when, force=force, dry_run=dry_run, cluster=cluster, broker_addr=broker_addr
            )
        (target,) = await broker_targets(admin, broker_addr, None, masters_only=True, what="resetting offsets")
        return [await admin.reset_queue(target, group, topic, queue_id, when, offset=offset, dry_run=dry_run)]

    results = run_consumers(namesrv, go)
    to = {TO_END: "the end of each queue", 0: "the beginning (0)"}.get(when) or f"{local_time(when)} ({when})"
    if json_output():
        print_json(offset_results_json(results, group=group, topic=topic, timestamp=when, force=force, dryRun=dry_run))
    else:
        note(f"{'would move' if dry_run else 'moving'} {group} on {topic} to {to}")
        print_offset_results(results)
    if dry_run:
        note("dry run: nothing was changed")
    exit_for_results(results, f"{name} {group} {topic}")
