"""Binding Java property names to the servers' config attributes (the text format is in ``mqadmin.wire.properties``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mqadmin.model.names import shown
from mqadmin.model.rpc.spec import RequestRefused
from mqadmin.wire.address import split_addr_list
from mqadmin.wire.codes import ResponseCode

JAVA_INT_MAX = 2**31 - 1
TEXT_MAX_LENGTH = 1024
"""The longest text value an update may set (and never one with control characters or lone surrogates)."""


@dataclass(frozen=True, slots=True)
class Prop:
    """How a Java property name maps onto a config attribute.

    ``kind``: ``str``, ``int``, ``bool``, ``ms`` (attribute in seconds, property in
    milliseconds), ``addrs`` (``a;b`` list) or ``path``. ``runtime``: may be changed by an
    update request (the others are reported, and set at start-up only). ``low``/``high``: the
    allowed range of an ``int`` or ``ms`` property, in the property's unit.
    """

    attr: str
    kind: str = "str"
    runtime: bool = True
    low: int = 0
    high: int = JAVA_INT_MAX


def properties_of(obj: Any, specs: dict[str, Prop]) -> dict[str, str]:
    return {java: _format(getattr(obj, p.attr), p.kind) for java, p in specs.items()}


def apply_properties(
    obj: Any, specs: dict[str, Prop], props: dict[str, str], blacklist: frozenset[str] = frozenset()
) -> list[str]:
    """Apply an update request to ``obj``: no key may be in ``blacklist`` (RequestRefused NO_PERMISSION,
    Java's answer), every key must be a setting that changes at runtime and every value valid and in
    range. All are checked before any is applied; RequestRefused (SYSTEM_ERROR) names the first bad key,
    so a refused update changes nothing. Returns the Java names applied."""
    refuse_blacklisted(props, blacklist)
    try:
        return _apply(obj, specs, props)
    except ValueError as e:
        raise RequestRefused(str(e)) from None


def refuse_blacklisted(props: dict[str, str], blacklist: frozenset[str]) -> None:
    """RequestRefused NO_PERMISSION, Java's answer, when an update names a key of ``blacklist``."""
    if blacklist & props.keys():
        raise RequestRefused("Can not update config in black list.", ResponseCode.NO_PERMISSION)


def _apply(obj: Any, specs: dict[str, Prop], props: dict[str, str]) -> list[str]:
    for java in props:
        spec = specs.get(java)
        if spec is None:
            raise ValueError(f"{shown(java)} is not a setting this server knows")
        if not spec.runtime:
            raise ValueError(f"{java} cannot be changed at runtime; it is read at start-up only")
    parsed = {java: _parse(java, raw, specs[java]) for java, raw in props.items()}
    for java, value in parsed.items():
        setattr(obj, specs[java].attr, value)
    return list(parsed)


def _format(value: Any, kind: str) -> str:
    if kind == "bool":
        return "true" if value else "false"
    if kind == "ms":
        return str(int(round(value * 1000)))
    if kind == "addrs":
        return ";".join(value)
    return str(value)


def _parse(java: str, raw: str, spec: Prop) -> Any:
    raw = raw.strip()
    kind = spec.kind
    if kind == "bool":
        if raw.lower() not in ("true", "false"):
            raise ValueError(f"{java}={shown(raw)} is not true or false")
        return raw.lower() == "true"
    if kind in ("int", "ms"):
        try:
            n = int(raw)
        except ValueError:
            raise ValueError(f"{java}={shown(raw)} is not an integer") from None
        if not spec.low <= n <= spec.high:
            raise ValueError(f"{java}={n} is out of range {spec.low}..{spec.high}")
        return n / 1000 if kind == "ms" else n
    if not raw.isprintable() or len(raw) > TEXT_MAX_LENGTH:
        raise ValueError(f"{java}={shown(raw)} must be printable text of at most {TEXT_MAX_LENGTH} characters")
    if kind == "addrs":
        return split_addr_list(raw)
    if kind == "path":
        return Path(raw)
    return raw
