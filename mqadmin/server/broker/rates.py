"""Per-topic put and per-group get rates: the TPS figures of topicStatus and consumerProgress, and the
minute/hour/day counts of VIEW_BROKER_STATS_DATA (statsAll)."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

WINDOW = 60
"""Seconds the rates average over (Java's per-minute statistics)."""
HOUR = 3600
DAY = 86400

Key = tuple[str, ...]


class Rates:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._buckets: dict[Key, deque[list[int]]] = {}
        """Per-second counts of the last WINDOW seconds (older ones leave at the next count)."""
        self._minutes: dict[Key, deque[list[int]]] = {}
        """Per-minute counts of the seconds that left ``_buckets``, for a day."""

    def put(self, topic: str, n: int) -> None:
        self._add(("put", topic), n)

    def got(self, group: str, topic: str, n: int) -> None:
        self._add(("get", group, topic), n)

    def put_tps(self, topic: str) -> float:
        return self._tps(("put", topic))

    def get_tps(self, group: str, topic: str) -> float:
        return self._tps(("get", group, topic))

    def put_counts(self, topic: str) -> tuple[int, int, int] | None:
        """Messages put into ``topic`` in the last minute, hour and day; None if none ever was."""
        return self._counts(("put", topic))

    def get_counts(self, group: str, topic: str) -> tuple[int, int, int] | None:
        """Messages ``group`` got from ``topic`` in the last minute, hour and day; None if none ever were."""
        return self._counts(("get", group, topic))

    def _add(self, key: Key, n: int) -> None:
        now = int(self._clock())
        dq = self._buckets.setdefault(key, deque())
        if dq and dq[-1][0] == now:
            dq[-1][1] += n
            return
        dq.append([now, n])
        while dq[0][0] <= now - WINDOW:
            second, count = dq.popleft()
            self._archive(key, second, count, now)

    def _archive(self, key: Key, second: int, n: int, now: int) -> None:
        minutes = self._minutes.setdefault(key, deque())
        minute = second // 60
        if minutes and minutes[-1][0] == minute:
            minutes[-1][1] += n
        else:
            minutes.append([minute, n])
        while minutes and minutes[0][0] * 60 <= now - DAY:
            minutes.popleft()

    def _tps(self, key: Key) -> float:
        now = int(self._clock())
        dq = self._buckets.get(key)
        if not dq:
            return 0.0
        return round(sum(n for sec, n in dq if sec > now - WINDOW) / WINDOW, 2)

    def _counts(self, key: Key) -> tuple[int, int, int] | None:
        if key not in self._buckets:
            return None
        now = int(self._clock())
        seconds = [(sec, n) for sec, n in self._buckets[key]]
        seconds += [(minute * 60, n) for minute, n in self._minutes.get(key, ())]

        def since(start: int) -> int:
            return sum(n for sec, n in seconds if sec > start)

        return since(now - WINDOW), since(now - HOUR), since(now - DAY)
