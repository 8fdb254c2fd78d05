"""Changing one config key on a server that answers SUCCESS whatever it did with it (name servers and brokers
merge only the keys they have, and ignore values they cannot parse): read before, send, read after."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from mqadmin.admin.fanout import Target
from mqadmin.admin.results import Status, TargetResult


def same_value(a: str | None, b: str | None) -> bool:
    """Config values that mean the same to Java (``TRUE`` and ``true``, ``010`` and ``10``)."""
    if a is None or b is None:
        return a is b
    a, b = a.strip(), b.strip()
    if a.lower() == b.lower():
        return True
    try:
        return float(a) == float(b)
    except ValueError:
        return False


async def change_config_key(
    t: Target,
    key: str,
    value: str,
    read: Callable[[str], Awaitable[dict[str, str]]],
    write: Callable[[str, dict[str, str]], Awaitable[object]],
    server: str,
) -> TargetResult:
    """Updated (old → new), unchanged (already that value; nothing sent) or failed: the server's refusal, "unknown key"
    for a key the server's config does not list (not sent), "not applied" when the value did not change. ``data`` is
    the value after."""
    before = await read(t.addr)
    if key not in before:
        reason = f"unknown key {key!r}: this {server} has no such config key"
        return TargetResult(t.name, t.addr, Status.FAILED, reason)
    old = before[key]
    if old == value:
        return TargetResult(t.name, t.addr, Status.UNCHANGED, data=old)
    await write(t.addr, {key: value})
    new = (await read(t.addr)).get(key)
    if new is not None and new != old:
        return TargetResult(t.name, t.addr, Status.UPDATED, changes={key: (old, new)}, data=new)
    if same_value(old, value):
        return TargetResult(t.name, t.addr, Status.UNCHANGED, data=old)
    reason = f"not applied: {key} is still {old!r} (a value the {server} cannot take, or a start-up key)"
    return TargetResult(t.name, t.addr, Status.FAILED, reason, data=old)
