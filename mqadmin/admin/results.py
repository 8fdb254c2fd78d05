"""Per-target results of fan-out operations: one row per broker or name server, never an early stop."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from mqadmin.model.topic import TopicConfig


class Status(StrEnum):
    OK = "ok"
    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    DELETED = "deleted"
    WRITTEN = "written"
    FAILED = "failed"


@dataclass(slots=True)
class TargetResult:
    """What happened on one broker (``name`` = broker name) or one name server (``name`` = "namesrv")."""

    name: str
    addr: str
    status: Status
    reason: str | None = None
    previous: TopicConfig | None = None

    @property
    def ok(self) -> bool:
        return self.status != Status.FAILED

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "addr": self.addr, "status": str(self.status), "reason": self.reason}


def outcome(results: list[TargetResult]) -> str:
    """``ok`` when every target succeeded, ``failed`` when none did, else ``partial``."""
    failed = sum(1 for r in results if not r.ok)
    if failed == 0:
        return "ok"
    return "failed" if failed == len(results) else "partial"
