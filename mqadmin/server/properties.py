"""Java ``Properties`` text, as GET/UPDATE_BROKER_CONFIG and the name-server config carry it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mqadmin.model.names import shown

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
JAVA_INT_MAX = 2**31 - 1
TEXT_MAX_LENGTH = 1024
"""The longest text value an update may set (and never one with control characters or lone surrogates)."""


def parse_properties(text: str) -> dict[str, str]:
    """``key=value`` / ``key: value`` / ``key value`` lines; ``#`` and ``!`` comments; ``\\`` escapes
    and line continuations. Raises ValueError on a bad ``\\uXXXX`` escape."""
    out: dict[str, str] = {}
    lines = iter(text.splitlines())
    for raw in lines:
        line = raw.lstrip()
        if not line or line[0] in "#!":
            continue
        while _continues(line):
            line = line[:-1] + next(lines, "").lstrip()
        key, value = _split(line)
        out[_unescape(key)] = _unescape(value)
    return out


def format_properties(props: dict[str, str]) -> str:
    """``k=v`` lines sorted by key (5.x sorts GET_BROKER_CONFIG's body)."""
    return "".join(f"{k}={v}\n" for k, v in sorted(props.items()))


def _continues(line: str) -> bool:
    backslashes = len(line) - len(line.rstrip("\\"))
    return backslashes % 2 == 1


def _split(line: str) -> tuple[str, str]:
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            i += 2
            continue
        if ch in "=: \t\f":
            key = line[:i]
            rest = line[i:].lstrip(" \t\f")
            if rest[:1] in ("=", ":"):
                rest = rest[1:]
            return key, rest.lstrip(" \t\f")
        i += 1
    return line, ""


def _unescape(s: str) -> str:
    if "\\" not in s:
        return s
    out: list[str] = []
    i = 0
    while i < len(s):
        ch = s[i]
        if ch != "\\" or i + 1 >= len(s):
            out.append(ch)
            i += 1
            continue
        nxt = s[i + 1]
        if nxt == "u":
            hexdigits = s[i + 2 : i + 6]
            if len(hexdigits) != 4:
                raise ValueError(f"malformed \\uxxxx escape in {s!r}")
            out.append(chr(int(hexdigits, 16)))
            i += 6
            continue
        out.append(_ESCAPES.get(nxt, nxt))
        i += 2
    return "".join(out)


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


def apply_properties(obj: Any, specs: dict[str, Prop], props: dict[str, str]) -> list[str]:
    """Apply an update request to ``obj``: every key must be a setting that changes at runtime and
    every value valid and in range. All are checked before any is applied; raises ValueError naming
    the first bad key, so a refused update changes nothing. Returns the Java names applied."""
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
        return [a.strip() for a in raw.split(";") if a.strip()]
    if kind == "path":
        return Path(raw)
    return raw
