"""Java ``Properties`` text, as GET/UPDATE_BROKER_CONFIG and the name-server config carry it."""

from __future__ import annotations

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
