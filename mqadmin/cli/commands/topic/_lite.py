"""What the lite-topic commands (RocketMQ 5.5) share: their options, one row per broker with the
broker's answer, and the JSON document with each broker's answer under ``info``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any

from mqadmin.cli.declare import Option

if TYPE_CHECKING:
    from mqadmin.admin import TargetResult
    from mqadmin.cli.render import Column

ParentTopicOpt = Annotated[
    str, Option("-p", "--parentTopic", metavar="TOPIC", help="Parent topic (a topic whose message.type is LITE).")
]
LiteGroupOpt = Annotated[str, Option("-g", "--group", metavar="GROUP", help="Lite consumer group.")]


def check_names(*topics: str, group: str | None = None) -> None:
    """Usage errors for names a broker would refuse (a group: at most 255 of ``%|a-zA-Z0-9_-``)."""
    from mqadmin.cli.errors import usage_error
    from mqadmin.cli.params import check_topic
    from mqadmin.model.names import group_problem

    for topic in topics:
        check_topic(topic)
    if group is not None and (problem := group_problem(group, creating=False)):
        raise usage_error(problem, "use letters, digits, '-', '_', '|' or '%'")


def print_broker_rows(
    results: Sequence[TargetResult], columns: list[Column], cells: Callable[[Any], list[object]]
) -> None:
    """One row per broker: BROKER, ADDRESS, then ``cells(answer)``; a broker that failed gets empty cells
    and its reason in a REASON column."""
    from mqadmin.cli.render import Column, print_table

    failed = any(not r.ok for r in results)
    head = [Column("BROKER"), Column("ADDRESS"), *columns] + ([Column("REASON")] if failed else [])
    rows = []
    for r in results:
        row: list[object] = [r.name, r.addr, *(cells(r.data) if r.ok else [""] * len(columns))]
        rows.append(row + ([r.reason or ""] if failed else []))
    print_table(head, rows)


def broker_json(
    results: Sequence[TargetResult], info: Callable[[Any], dict[str, Any]], **fields: Any
) -> dict[str, Any]:
    """``results_json`` with each broker's answer as ``info`` (null when it failed)."""
    from mqadmin.cli.runner import results_json

    doc = results_json(results, **fields)
    for entry, r in zip(doc["results"], results, strict=True):
        entry["info"] = info(r.data) if r.ok and r.data is not None else None
    return doc


def never_null(ms: int) -> int | None:
    """A time for JSON: milliseconds, or null for never (0 or -1 on the wire)."""
    return ms if ms > 0 else None
