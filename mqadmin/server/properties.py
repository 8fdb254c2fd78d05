"""Java ``Properties`` text, as GET/UPDATE_BROKER_CONFIG and the name-server config carry it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


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
