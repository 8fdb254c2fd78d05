"""Per-target results of fan-out operations: one row per broker or name server, never an early stop."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Self

from mqadmin.admin.errors import ResponseError, reason_of
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
    (a config, statistics), for commands that read. ``error``: what failed, when the target raised (a server's
    refusal is a ``ResponseError`` with its response ``code``); ``reason`` is its one-line text for people.
    """

    name: str
    addr: str
    status: Status
    reason: str | None = None
    changes: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    data: Any = None
    error: Exception | None = None

    @classmethod
    def failure(cls, name: str, addr: str, error: Exception, reason: str | None = None, **more: Any) -> Self:
        """A FAILED (or NOT_SENT) row for ``error`` (``reason``: a text other than the error's own)."""
        why = reason if reason is not None else reason_of(error)
        return cls(name, addr, failure_status(error), why, error=error, **more)

    @property
    def ok(self) -> bool:
        return self.status not in NOT_DONE

    @property
    def code(self) -> int | None:
        """The response code the server refused with; None when it did not answer with one."""
        return self.error.code if isinstance(self.error, ResponseError) else None

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
