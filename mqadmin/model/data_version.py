"""DataVersion: the counter a broker bumps on every config change so name servers notice it."""

from __future__ import annotations

import time
from typing import Any


class DataVersion:
    __slots__ = ("counter", "state_version", "timestamp")

    def __init__(self, counter: int = 0, state_version: int = 0, timestamp: int | None = None) -> None:
        self.counter = counter
        self.state_version = state_version
        self.timestamp = int(time.time() * 1000) if timestamp is None else timestamp

    def next(self) -> None:
        """What Java's ``nextVersion()`` does: ``counter++`` and ``timestamp = now``."""
        self.counter += 1
        self.timestamp = max(int(time.time() * 1000), self.timestamp)

    def to_json(self) -> dict[str, Any]:
        return {"counter": self.counter, "stateVersion": self.state_version, "timestamp": self.timestamp}

    @classmethod
    def from_json(cls, obj: Any) -> DataVersion:
        if not isinstance(obj, dict):
            return cls()
        return cls(int(obj.get("counter", 0)), int(obj.get("stateVersion", 0)), int(obj.get("timestamp", 0)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DataVersion) and self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash((self.counter, self.state_version, self.timestamp))

    def __repr__(self) -> str:
        return f"DataVersion({self.counter}, {self.state_version}, {self.timestamp})"


def data_version_from_file(obj: Any) -> DataVersion:
    """A DataVersion read back from a file; ValueError when it is there but not three integers."""
    if obj is None:
        return DataVersion()
    if not isinstance(obj, dict):
        raise ValueError("dataVersion is not an object")
    for key in ("counter", "stateVersion", "timestamp"):
        value = obj.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"dataVersion.{key}={value!r:.40} is not an integer")
    return DataVersion.from_json(obj)
