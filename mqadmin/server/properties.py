"""Binding Java property names to the servers' config attributes (the text format is in ``mqadmin.wire.properties``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True, slots=True)
class Prop:
    """How a Java property name maps onto a config attribute.

    ``kind``: ``str``, ``int``, ``bool``, ``ms`` (attribute in seconds, property in
    milliseconds), ``addrs`` (``a;b`` list) or ``path``. ``runtime``: may be changed by an
    update request (others are reported but not changed).
    """

    attr: str
    kind: str = "str"
    runtime: bool = True


def properties_of(obj: Any, specs: dict[str, Prop]) -> dict[str, str]:
    return {java: _format(getattr(obj, p.attr), p.kind) for java, p in specs.items()}


def apply_properties(obj: Any, specs: dict[str, Prop], props: dict[str, str]) -> list[str]:
    """Apply the runtime-changeable keys among ``props`` to ``obj``; unknown and start-up-only keys
    are ignored, as Java ignores unknown keys. All values are checked before any is applied;
    raises ValueError naming the bad one. Returns the Java names applied."""
    parsed = {java: _parse(java, raw, specs[java].kind) for java, raw in props.items() if _changeable(specs, java)}
    for java, value in parsed.items():
        setattr(obj, specs[java].attr, value)
    return list(parsed)


def _changeable(specs: dict[str, Prop], java: str) -> bool:
    spec = specs.get(java)
    return spec is not None and spec.runtime


def _format(value: Any, kind: str) -> str:
    if kind == "bool":
        return "true" if value else "false"
    if kind == "ms":
        return str(int(round(value * 1000)))
    if kind == "addrs":
        return ";".join(value)
    return str(value)


def _parse(java: str, raw: str, kind: str) -> Any:
    raw = raw.strip()
    if kind == "bool":
        if raw.lower() not in ("true", "false"):
            raise ValueError(f"{java}={raw!r} is not true or false")
        return raw.lower() == "true"
    if kind in ("int", "ms"):
        try:
            n = int(raw)
        except ValueError:
            raise ValueError(f"{java}={raw!r} is not an integer") from None
        if n < 0:
            raise ValueError(f"{java}={raw!r} must not be negative")
        return n / 1000 if kind == "ms" else n
    if kind == "addrs":
        return [a.strip() for a in raw.split(";") if a.strip()]
    if kind == "path":
        return Path(raw)
    return raw
