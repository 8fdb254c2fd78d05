"""Per-topic put and per-group get rates: the TPS figures of topicStatus and consumerProgress."""

from __future__ import annotations

import time
from collections import deque

WINDOW = 60
"""Seconds the rates average over (Java's per-minute statistics)."""


class Rates:
    def __init__(self) -> None:
        self._buckets: dict[tuple[str, ...], deque[list[int]]] = {}

    def put(self, topic: str, n: int) -> None:
        self._add(("put", topic), n)

    def got(self, group: str, topic: str, n: int) -> None:
        self._add(("get", group, topic), n)

    def put_tps(self, topic: str) -> float:
        return self._tps(("put", topic))

    def get_tps(self, group: str, topic: str) -> float:
        return self._tps(("get", group, topic))

    def _add(self, key: tuple[str, ...], n: int) -> None:
        now = int(time.monotonic())
        dq = self._buckets.setdefault(key, deque())
        if dq and dq[-1][0] == now:
            dq[-1][1] += n
            return
        dq.append([now, n])
        while dq[0][0] <= now - WINDOW:
            dq.popleft()

    def _tps(self, key: tuple[str, ...]) -> float:
        now = int(time.monotonic())
        dq = self._buckets.get(key)
        if not dq:
            return 0.0
        return round(sum(n for sec, n in dq if sec > now - WINDOW) / WINDOW, 2)
