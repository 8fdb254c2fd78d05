"""Points in time on the command line (resetOffsetByTime -s)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from mqadmin.cli.timespec import BadTime, parse_time

NOW = 1_700_000_000_000


def local_ms(*fields: int) -> int:
    return int(datetime(*fields).timestamp() * 1000)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("now", NOW),
        ("NOW", NOW),
        ("0", 0),
        ("1700000000123", 1_700_000_000_123),
        ("-1h", NOW - 3_600_000),
        ("-30m", NOW - 1_800_000),
        ("-2d", NOW - 2 * 86_400_000),
        ("-1h30m", NOW - 5_400_000),
        ("-1w", NOW - 7 * 86_400_000),
        ("-250ms", NOW - 250),
        ("+10s", NOW + 10_000),
        (" -5m ", NOW - 300_000),
        ("2024-05-01T03:00:00Z", int(datetime(2024, 5, 1, 3, tzinfo=UTC).timestamp() * 1000)),
        ("2024-05-01 03:00:00+02:00", int(datetime(2024, 5, 1, 1, tzinfo=UTC).timestamp() * 1000)),
        ("2024-05-01T03:00:00.250+00:00", int(datetime(2024, 5, 1, 3, tzinfo=UTC).timestamp() * 1000) + 250),
    ],
)
def test_accepted_forms(text: str, expected: int) -> None:
    assert parse_time(text, NOW) == expected


def test_dates_without_a_zone_are_local_time() -> None:
    assert parse_time("2024-05-01", NOW) == local_ms(2024, 5, 1)
    assert parse_time("2024-05-01T03:04", NOW) == local_ms(2024, 5, 1, 3, 4)
    assert parse_time("2024-05-01#03:04:05:678", NOW) == local_ms(2024, 5, 1, 3, 4, 5) + 678  # Java's form


def test_now_without_a_clock_given_is_the_current_time() -> None:
    before = int(datetime.now().timestamp() * 1000)
    assert before - 1000 <= parse_time("now") <= before + timedelta(minutes=1).total_seconds() * 1000


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("yesterday", "is not a time"),
        ("-1x", "is not a time"),
        ("-h", "is not a time"),
        ("1h", "is not a time"),  # a relative time needs its sign
        ("", "is not a time"),
        ("2024-02-30#03:00:00:000", "is not a valid date"),
        ("2024-13-01", "is not a time"),
        ("1700000000", "looks like seconds"),
    ],
)
def test_refused_forms_name_the_value(text: str, why: str) -> None:
    with pytest.raises(BadTime, match=why) as e:
        parse_time(text, NOW)
    assert repr(text) in str(e.value)
