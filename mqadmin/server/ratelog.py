"""Rate-limited one-line logging, for events a hostile peer can trigger at will (bad frames,
timeouts): at most ``burst`` lines per ``period`` seconds, then one line saying how many were
left out, so a flood cannot fill the disk or drown other messages."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable


class RateLimitedLog:
    def __init__(
        self,
        logger: logging.Logger,
        period: float = 10.0,
        burst: int = 10,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._log = logger
        self._period = period
        self._burst = burst
        self._clock = clock
        self._window = -period
        self._count = 0
        self.suppressed = 0
        """Lines left out in the current window (reported when the next window opens)."""

    def log(self, level: int, msg: str, *args: object) -> None:
        now = self._clock()
        if now - self._window >= self._period:
            if self.suppressed:
                self._log.log(level, "%d similar message(s) left out in the last %.0f s", self.suppressed, self._period)
            self._window, self._count, self.suppressed = now, 0, 0
        if self._count < self._burst:
            self._count += 1
            self._log.log(level, msg, *args)
        else:
            self.suppressed += 1

    def info(self, msg: str, *args: object) -> None:
        self.log(logging.INFO, msg, *args)

    def warning(self, msg: str, *args: object) -> None:
        self.log(logging.WARNING, msg, *args)
