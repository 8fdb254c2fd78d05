"""Points in time given on the command line (``resetOffsetByTime -s``), as milliseconds since the epoch.

Accepted: a millisecond timestamp (``1700000000000``; ``0`` is the beginning of time), ``now``, ISO 8601
(``2024-05-01``, ``2024-05-01T03:00``, ``2024-05-01 03:00:00+02:00``, ``…Z``; local time when no zone is
given), Java mqadmin's ``yyyy-MM-dd#HH:mm:ss:SSS`` (local time), and a time relative to now: a sign and
one or more amounts with a unit, ``-1h``, ``-30m``, ``-2d``, ``-1h30m``, ``+10s`` (units ``ms``, ``s``,
``m``, ``h``, ``d``, ``w``).
"""

from __future__ import annotations

import re
import time
from datetime import datetime

FORMATS_HINT = (
    "give milliseconds since the epoch, now, an ISO date (2024-05-01T03:00:00, local time unless a zone "
    "is given), yyyy-MM-dd#HH:mm:ss:SSS, or a relative time such as -1h, -30m, -2d"
)
SECONDS_LIMIT = 100_000_000_000
"""Timestamps below this (before 1973 in milliseconds) are taken for seconds and refused, except 0."""

_UNITS_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}
_RELATIVE = re.compile(r"^([+-])((?:\d+(?:ms|s|m|h|d|w))+)$")
_PART = re.compile(r"(\d+)(ms|s|m|h|d|w)")
_JAVA = re.compile(r"^(\d{4})-(\d{2})-(\d{2})#(\d{2}):(\d{2}):(\d{2}):(\d{3})$")


class BadTime(ValueError):
    pass


def parse_time(value: str, now_ms: int | None = None) -> int:
    """``value`` as milliseconds since the epoch; BadTime saying why it is not a time."""
    text = value.strip()
    now = int(time.time() * 1000) if now_ms is None else now_ms
    if text.lower() == "now":
        return now
    if text.isdigit():
        ms = int(text)
        if 0 < ms < SECONDS_LIMIT:
            raise BadTime(f"{value!r} looks like seconds; timestamps are in milliseconds ({ms * 1000})")
        return ms
    if m := _RELATIVE.match(text.lower()):
        amount = sum(int(n) * _UNITS_MS[unit] for n, unit in _PART.findall(m.group(2)))
        return now - amount if m.group(1) == "-" else now + amount
    if m := _JAVA.match(text):
        year, month, day, hour, minute, second, milli = (int(g) for g in m.groups())
        return _local_ms(value, year, month, day, hour, minute, second, milli * 1000)
    return _iso_ms(value, text)


def _local_ms(value: str, year: int, month: int, day: int, hour: int, minute: int, second: int, micro: int) -> int:
    try:
        return int(datetime(year, month, day, hour, minute, second, micro).timestamp() * 1000)
    except ValueError as e:
        raise BadTime(f"{value!r} is not a valid date: {e}") from None


def _iso_ms(value: str, text: str) -> int:
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        raise BadTime(f"{value!r} is not a time") from None
    return int(dt.timestamp() * 1000)  # naive datetimes are local time, as timestamp() assumes
