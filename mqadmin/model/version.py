"""RocketMQ's client and server versions: the ordinal a frame carries and its name (``MQVersion.Version``).

Clients and brokers send the ordinal of their release in every frame (``"version": 409``); Java's tools
print its name (``V4_9_8``). The names are generated here in Java's order: the 3.0.0 pre-releases, then
a ``_SNAPSHOT`` and a release for every version from 3.0.1 to 5.9.9 (3.3 to 3.9 have no x.y.0), and
``HIGHER_VERSION`` for every ordinal past the end.
"""

from __future__ import annotations

from functools import cache

_PRE_RELEASES = (
    "V3_0_0_SNAPSHOT", "V3_0_0_ALPHA1", "V3_0_0_BETA1", "V3_0_0_BETA2", "V3_0_0_BETA3", "V3_0_0_BETA4",
    "V3_0_0_BETA5", "V3_0_0_BETA6_SNAPSHOT", "V3_0_0_BETA6", "V3_0_0_BETA7_SNAPSHOT", "V3_0_0_BETA7",
    "V3_0_0_BETA8_SNAPSHOT", "V3_0_0_BETA8", "V3_0_0_BETA9_SNAPSHOT", "V3_0_0_BETA9", "V3_0_0_FINAL",
)  # fmt: skip

HIGHER_VERSION = "HIGHER_VERSION"


def _releases() -> list[tuple[int, int, int]]:
    out = [(3, 0, p) for p in range(1, 16)]
    out += [(3, minor, p) for minor in (1, 2) for p in range(10)]
    out += [(3, minor, p) for minor in range(3, 10) for p in range(1, 10)]
    out += [(major, minor, p) for major in (4, 5) for minor in range(10) for p in range(10)]
    return out


@cache
def _names() -> tuple[str, ...]:
    names = list(_PRE_RELEASES)
    for major, minor, patch in _releases():
        release = f"V{major}_{minor}_{patch}"
        names += [f"{release}_SNAPSHOT", release]
    names.append(HIGHER_VERSION)
    return tuple(names)


def version_desc(ordinal: int) -> str:
    """``409`` → ``"V4_9_8"``, as ``MQVersion.getVersionDesc`` (past the end: ``HIGHER_VERSION``)."""
    names = _names()
    if ordinal < 0:
        return str(ordinal)
    return names[min(ordinal, len(names) - 1)]


def version_ordinal(name: str) -> int:
    """``"V5_3_3"`` → ``479``; ValueError for a name that is not a RocketMQ version."""
    try:
        return _names().index(name)
    except ValueError:
        raise ValueError(f"{name!r} is not a RocketMQ version name (such as V5_3_3)") from None


# --- the versions behaviour depends on: every check of a peer's version uses these ------------------------
# Literal ordinals (start-up: no table built to import them); tests/unit/test_version.py checks each against
# its name.

V3_0_7_SNAPSHOT = 28
"""Clients from here on take RESET_CONSUMER_CLIENT_OFFSET and GET_CONSUMER_STATUS_FROM_CLIENT."""
V3_1_8_SNAPSHOT = 62
"""Clients from here on answer GET_CONSUMER_RUNNING_INFO through the broker."""
V4_9_4 = 401
"""Clients from here on read standard JSON route bodies (the name server answers them so)."""
V5_0_0 = 413
"""Brokers from here on keep topic attributes, and group configs with consumeMessageOrderly, groupRetryPolicy,
groupSysFlag and consumeTimeoutMinute."""
V5_1_0 = 433
"""Brokers from here on store ``order`` from UPDATE_AND_CREATE_TOPIC, and reset offsets themselves
(``useServerSideResetOffset``, RIP-48)."""
V5_1_3 = 439
"""Brokers from here on keep group attributes."""
V5_3_0 = 473
"""Brokers from here on have UPDATE_AND_CREATE_TOPIC_LIST (18)."""
V5_3_1 = 475
"""Brokers from here on have UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST (225)."""
UNKNOWN = 0
"""The version of a peer that did not say (tests' in-memory brokers): taken to have everything."""


def at_least(version: int, since: int) -> bool:
    """Whether a peer of ``version`` is ``since`` or later; a peer of unknown version (0) counts as the latest."""
    return version >= since or version == UNKNOWN
