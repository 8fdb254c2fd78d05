"""Options, checks and output shared by the consumer, producer and offset commands."""

from __future__ import annotations

import datetime
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypedDict, TypeVar

from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.errors import CliError, ExitCode, usage_error

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult
    from mqadmin.model.clients import Connection

T = TypeVar("T")

GROUPS_HINT = "list the groups with: mqadmin consumerProgress"


class ConnectionDoc(TypedDict):
    clientId: str
    clientAddr: Annotated[str, "host:port"]
    language: Annotated[str, "JAVA, CPP, GO, ..."]
    version: Annotated[int, "the client's version number"]
    versionDesc: Annotated[str, "e.g. V5_3_3"]


class QueueMoveDoc(TypedDict):
    topic: str
    brokerName: str
    queueId: int
    oldOffset: Annotated[int | None, "the committed offset before (null: the broker reported none)"]
    newOffset: int
    moved: bool
    done: Annotated[bool, "whether the broker has the new offset (false in a dry run)"]


class OffsetResultDoc(TargetResultDoc):
    how: Annotated[
        Literal["broker", "committed", "planned"] | None,
        "broker: the broker moved them; committed: one commit per queue; planned: --dry-run (null: failed)",
    ]
    note: str | None
    queues: list[QueueMoveDoc]


class ResetOffsetDoc(TypedDict):
    group: str
    topic: str
    timestamp: Annotated[int, "ms since the epoch the offsets go to (-1: the end of each queue)"]
    force: bool
    dryRun: bool
    results: Annotated[list[OffsetResultDoc], "each master"]
    outcome: Outcome


class CloneOffsetDoc(TypedDict):
    srcGroup: str
    destGroup: str
    topic: str
    dryRun: bool
    results: Annotated[list[OffsetResultDoc], "each master"]
    outcome: Outcome


def check_group(group: str, option: str = "-g") -> None:
    """A usage error for a group name the brokers would refuse."""
    from mqadmin.model.names import group_problem

    problem = group_problem(group)
    if problem:
        raise usage_error(f"{option}: {problem}", "use letters, digits, '-', '_', '|' or '%', at most 127 characters")


def parse_when(value: str, option: str = "-s") -> int:
    """A point in time of the command line, in milliseconds (usage error naming the value otherwise)."""
    from mqadmin.cli.timespec import FORMATS_HINT, BadTime, parse_time

    try:
        return parse_time(value)
    except BadTime as e:
        raise usage_error(f"{option}: {e}", FORMATS_HINT) from None


def run_consumers(namesrv: str | None, fn: Callable[[AdminClient], Awaitable[T]]) -> T:
    """run_admin, with the consumer operations' own failures as one-line errors."""
    from mqadmin.admin.consumers import GroupNotFound, GroupOffline, ProducerGroupNotFound
    from mqadmin.admin.errors import AdminError
    from mqadmin.admin.offsets import NotInRoute, OffsetOutOfRange
    from mqadmin.cli.runner import run_admin

    try:
        return run_admin(namesrv, fn)
    except GroupNotFound as e:
        raise CliError(str(e), f"check the group name; {GROUPS_HINT}", ExitCode.FAILURE) from None
    except GroupOffline as e:
        hint = "its consumers are stopped or not connected to these brokers"
        raise CliError(str(e), hint, ExitCode.FAILURE) from None
    except ProducerGroupNotFound as e:
        raise CliError(str(e), "is the producer running? check the group and topic names", ExitCode.FAILURE) from None
    except OffsetOutOfRange as e:
        raise usage_error(str(e), "see the queue's offsets with: mqadmin topicStatus -t <topic>") from None
    except NotInRoute as e:
        raise usage_error(str(e)) from None
    except CliError:
        raise
    except AdminError as e:
        from mqadmin.cli.runner import as_cli_error

        mapped = as_cli_error(e)
        if mapped is e:
            raise CliError(str(e), None, ExitCode.FAILURE) from None
        raise mapped from None


def local_time(ms: int) -> str:
    """Java's ``yyyy-MM-dd HH:mm:ss`` in local time, ``N/A`` for never."""
    if ms <= 0:
        return "N/A"
    return datetime.datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M:%S")


def print_connections(connections: Sequence[Connection], title: str | None = None) -> None:
    from mqadmin.cli.render import Column, print_table

    cols = [Column("CLIENT ID"), Column("CLIENT ADDR"), Column("LANGUAGE"), Column("VERSION")]
    rows = [(c.client_id, c.client_addr, c.language, c.version_desc) for c in connections]
    print_table(cols, rows, title)


def offset_results_json(results: Sequence[TargetResult], **fields: Any) -> dict[str, Any]:
    """A fan-out document whose entries carry how each broker moved the offsets and every queue."""
    from mqadmin.cli.runner import results_json

    doc = results_json(results, **fields)
    for entry, r in zip(doc["results"], results, strict=True):
        change = r.data
        entry["how"] = change.how if change is not None else None
        entry["note"] = change.note if change is not None else None
        entry["queues"] = [q.to_json() for q in change.queues] if change is not None else []
    return doc


def print_offset_results(results: Sequence[TargetResult]) -> None:
    """One row per queue (old → new, how), then the brokers that failed and every note."""
    from mqadmin.cli.render import Column, print_table, warn
    from mqadmin.cli.runner import print_results

    cols = [
        Column("BROKER"), Column("QID", numeric=True), Column("OLD OFFSET", numeric=True),
        Column("NEW OFFSET", numeric=True), Column("MOVED", numeric=True), Column("RESULT", styled=True),
    ]  # fmt: skip
    rows = []
    for r in results:
        for q in r.data.queues if r.data is not None else []:
            old = "-" if q.old is None else q.old
            moved = "-" if q.old is None else f"{q.new - q.old:+d}"
            rows.append((r.name, q.mq.queue_id, old, q.new, moved, _queue_result(r.data.how, q)))
    print_table(cols, rows)
    failed = [r for r in results if not r.ok]
    if failed:
        print()
        print_results(failed, "BROKER", "Brokers that failed")
    notes: dict[str, list[str]] = {}
    for r in results:
        if r.data is not None and r.data.note:
            notes.setdefault(r.data.note, []).append(r.name or r.addr)
    for text, brokers in notes.items():
        warn(f"{', '.join(brokers)}: {text}")


def _queue_result(how: str, q: Any) -> str:
    if not q.moved:
        return "unchanged"
    if how == "planned":
        return "would update"
    return "updated" if q.done else "not moved"
