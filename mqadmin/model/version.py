"""RocketMQ version ordinals (the ``version`` of every remoting frame) and their names (``V5_3_3``)."""

from __future__ import annotations

V4_0_0_SNAPSHOT = 212
"""Ordinal of V4_0_0_SNAPSHOT in Java's MQVersion.Version. From there on each x.y.z (y, z in 0..9)
has a SNAPSHOT ordinal followed by its release ordinal, up to V5_9_9; then HIGHER_VERSION."""
_LAST = V4_0_0_SNAPSHOT + 2 * 200 - 1


def version_desc(ordinal: int) -> str:
    """Java's ``MQVersion.getVersionDesc``: ``478`` → ``V5_3_3_SNAPSHOT``, ``479`` → ``V5_3_3``.
    Ordinals of 3.x (below 212) are shown as ``V3(<ordinal>)``."""
    if ordinal < V4_0_0_SNAPSHOT:
        return f"V3({ordinal})"
    if ordinal > _LAST:
        return "HIGHER_VERSION"
    step, release = divmod(ordinal - V4_0_0_SNAPSHOT, 2)
    major, minor, patch = 4 + step // 100, step // 10 % 10, step % 10
    return f"V{major}_{minor}_{patch}" + ("" if release else "_SNAPSHOT")
