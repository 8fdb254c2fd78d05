"""startMonitoring: Java's consumer monitor, every group's unconsumed messages per topic, round after round."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.admin.monitor import MonitorRound


class UndoneDoc(TypedDict):
    consumerGroup: str
    topic: str
    undoneMsgsTotal: Annotated[int, "messages not consumed yet"]
    undoneMsgsSingleMQ: Annotated[int, "the most in one queue"]
    undoneMsgsDelayTimeMills: Annotated[int, "how long the oldest has waited, ms"]


class MonitorErrorDoc(TypedDict):
    consumerGroup: str
    reason: str


class MonitorRoundDoc(TypedDict):
    """One round, one line (NDJSON)."""

    round: int
    timestamp: Annotated[int, "ms since the epoch, when the round began"]
    undoneMsgs: list[UndoneDoc]
    offlineGroups: list[str]
    errors: list[MonitorErrorDoc]


@command(
    "startMonitoring",
    "mqadmin startMonitoring",
    "mqadmin startMonitoring --interval 10 --count 3 --format json",
    document=MonitorRoundDoc,
)
def start_monitoring(
    namesrv: NamesrvOpt = None,
    interval: Annotated[
        float, Option("--interval", min=1, metavar="SECONDS", help="Time between rounds (Java: 60).")
    ] = 60.0,
    count: Annotated[
        int | None, Option("--count", min=1, metavar="N", help="Stop after N rounds [until Ctrl-C].")
    ] = None,
) -> None:
    """Monitor every consumer group, round after round until Ctrl-C (or --count rounds), as Java's
    MonitorService does: for each group with a retry topic and a consumer online, per topic, the messages not
    consumed in total and on the queue furthest behind, and the delay (store time of the newest message minus
    that of the newest consumed, the largest over the queues).

    Each round is a table (GROUP, TOPIC, UNDONE, UNDONE MAX QUEUE, DELAY MS), then the groups that could not be
    examined; with --format json each round is one JSON line. Java logs the same figures ("reportUndoneMsgs") to
    its log file, waits 20 s before the first round and also reports offset-moved events and consumers whose
    subscriptions differ; mqadmin starts at once and reports the unconsumed messages only.
    """
    import asyncio
    import time

    from mqadmin.cli.render import json_output, print_json_line
    from mqadmin.cli.runner import run_admin

    shown: list[int] = []

    async def go(admin: AdminClient) -> None:
        while True:
            began = int(time.time() * 1000)
            found = await admin.monitor_round()
            if json_output():
                print_json_line(round_json(len(shown), began, found))
            else:
                print_round(len(shown), began, found)
            shown.append(began)
            if count is not None and len(shown) >= count:
                return
            await asyncio.sleep(interval)

    try:
        run_admin(namesrv, go)
    except KeyboardInterrupt:
        if not shown:
            raise


def round_json(n: int, began: int, found: MonitorRound) -> dict[str, Any]:
    return {
        "round": n + 1,
        "timestamp": began,
        "undoneMsgs": [u.to_json() for u in found.undone],
        "offlineGroups": found.offline,
        "errors": [{"consumerGroup": g, "reason": r} for g, r in sorted(found.errors.items())],
    }


def print_round(n: int, began: int, found: MonitorRound) -> None:
    from mqadmin.cli.commands.consumer._shared import local_time
    from mqadmin.cli.render import Column, print_lines, print_table

    if n:
        print()
    print_lines([f"round {n + 1} at {local_time(began)}: {len(found.undone)} group/topic pairs, "
                 f"{len(found.offline)} group(s) offline"])  # fmt: skip
    print_table(
        [
            Column("GROUP"),
            Column("TOPIC"),
            Column("UNDONE", numeric=True),
            Column("UNDONE MAX QUEUE", numeric=True),
            Column("DELAY MS", numeric=True),
        ],  # fmt: skip
        [(u.group, u.topic, u.total, u.single_mq, u.delay_ms) for u in found.undone],
    )
    if found.errors:
        print()
        print_table([Column("GROUP"), Column("REASON")], sorted(found.errors.items()))
