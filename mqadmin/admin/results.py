"""Per-target results of fan-out operations: one row per broker or name server, never an early stop."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from mqadmin.transport.errors import Interrupted


class Status(StrEnum):
    OK = "ok"
    CREATED = "created"
    UPDATED = "updated"
    WOULD_UPDATE = "would update"
    UNCHANGED = "unchanged"
    DELETED = "deleted"
    WOULD_DELETE = "would delete"
    NOT_FOUND = "not found"
    WRITTEN = "written"
    SKIPPED = "skipped"
    FAILED = "failed"
    NOT_SENT = "not sent"
    """Left undone: the command was interrupted (Ctrl-C) before sending it."""


NOT_DONE = frozenset({Status.FAILED, Status.NOT_SENT})


def failure_status(error: BaseException) -> Status:
    """NOT_SENT for a request held back by an interruption, else FAILED."""
    return Status.NOT_SENT if isinstance(error, Interrupted) else Status.FAILED


@dataclass(slots=True)
class TargetResult:
    """What happened on one broker (``name`` = broker name) or one name server (``name`` = "namesrv").

    ``changes`` maps a changed field to its (old, new) values; ``data`` is what the target answered
    (a config, statistics), for commands that read.
    """

    name: str
    addr: str
    status: Status
    reason: str | None = None
    changes: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    data: Any = None

    @property
    def ok(self) -> bool:
        return self.status not in NOT_DONE

    def to_json(self) -> dict[str, Any]:
        changes = {k: {"old": old, "new": new} for k, (old, new) in self.changes.items()}
        status = str(self.status)
        return {"name": self.name, "addr": self.addr, "status": status, "reason": self.reason, "changes": changes}


def outcome(results: Sequence[TargetResult]) -> str:
    """``ok`` when every target succeeded, ``failed`` when none did (or there was none), else ``partial``."""
    return overall_status(["ok" if r.ok else "failed" for r in results])


def overall_status(statuses: Sequence[str]) -> str:
    """``ok`` when everything is ok, ``failed`` when nothing is (or there is nothing), else ``partial``:
    the one rule for command outcomes and export manifests."""
    if statuses and all(s == "ok" for s in statuses):
        return "ok"
    if not statuses or all(s == "failed" for s in statuses):
        return "failed"
    return "partial"
