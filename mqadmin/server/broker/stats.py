"""Put/get counters and the TPS figures GET_BROKER_RUNTIME_INFO reports.

The message path calls ``record_put(n)`` after storing messages and ``record_get(n)`` after
handing messages to a consumer. TPS is computed over sliding windows of 10 s, 60 s and 600 s
(Java's ``putTps`` is ``"<10s> <1min> <10min>"``).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from datetime import date

WINDOWS = (10, 60, 600)


class BrokerStats:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.boot_timestamp = int(time.time() * 1000)
        """When the broker started, ms since the epoch (runtime info's bootTimestamp)."""
        self.put_total = 0
        self.get_total = 0
        self._samples: deque[tuple[float, int, int]] = deque()
        self._day = date.today()
        self.put_today_morning = 0
        self.get_today_morning = 0
        self.put_yesterday_morning = 0
        self.get_yesterday_morning = 0
        self._sample()

    def record_put(self, n: int = 1) -> None:
        self._sample()
        self.put_total += n

    def record_get(self, n: int = 1) -> None:
        self._sample()
        self.get_total += n

    def _sample(self) -> None:
        """Keep at most one sample per second, covering the largest window."""
        now = self._clock()
        if self._samples and now - self._samples[-1][0] < 1.0:
            return  # the day can only have turned at a new sample; date.today() per message cost ~2%
        self._samples.append((now, self.put_total, self.get_total))
        while len(self._samples) > 2 and now - self._samples[1][0] > WINDOWS[-1]:
            self._samples.popleft()
        today = date.today()
        if today != self._day:
            self._day = today
            self.put_yesterday_morning, self.get_yesterday_morning = self.put_today_morning, self.get_today_morning
            self.put_today_morning, self.get_today_morning = self.put_total, self.get_total

    def _tps(self, window: float, index: int) -> float:
        now = self._clock()
        total = (self.put_total, self.get_total)[index]
        base = next((s for s in self._samples if now - s[0] <= window), None)
        if base is None or now - base[0] <= 0:
            return 0.0
        return (total - base[1 + index]) / max(now - base[0], 1.0)

    def put_tps(self) -> str:
        self._sample()
        return " ".join(f"{self._tps(w, 0):.1f}" for w in WINDOWS)

    def get_tps(self) -> str:
        self._sample()
        return " ".join(f"{self._tps(w, 1):.1f}" for w in WINDOWS)
