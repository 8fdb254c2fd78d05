"""Reading fastjson bodies, writing standard compact JSON.

Java brokers and name servers serialize maps with non-String keys raw: ``{0:"127.0.0.1:10911"}``
and ``{{"brokerName":"b","queueId":0,"topic":"T"}:{...}}``. Python's ``json`` rejects both.
``loads`` tries the fast standard parser first and falls back to a tolerant one that accepts
bare keys and whole values as keys. A non-string key becomes the compact standard JSON text of
that key (``"0"``, ``'{"brokerName":"b","queueId":0,"topic":"T"}'``); ``object_key`` reads
such a key back.

fastjson reads standard JSON, so everything we write is standard (``dumps``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from json.scanner import make_scanner
from typing import Any

_scanstring = json.decoder.scanstring  # type: ignore[attr-defined]  # public in json.decoder, not in typeshed
_scan_once = make_scanner(json.JSONDecoder())  # type: ignore[arg-type]  # typeshed types the context as make_scanner
"""The standard parser's reading of one value at an offset: (value, end)."""
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_BARE = re.compile(r"[A-Za-z_$][\w$]*")
_WS = re.compile(r"[ \t\n\r]*")
_COLON = re.compile(r"[ \t\n\r]*:[ \t\n\r]*")
_NEXT = re.compile(r"[ \t\n\r]*([,}])[ \t\n\r]*")


class BodyError(ValueError):
    """A body that is neither JSON nor fastjson's relaxed form."""


def _text(data: bytes | str) -> str:
    return data.decode("utf-8") if isinstance(data, bytes | bytearray | memoryview) else data


def loads(data: bytes | str) -> Any:
    text = _text(data)
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    parser = _Parser(text)
    value = parser.value()
    parser.skip_ws()
    if parser.pos != len(text):
        raise BodyError(f"trailing data at offset {parser.pos}")
    return value


def loads_converting(data: bytes | str, convert: Mapping[str, Callable[[str, Any], Any]]) -> Any:
    """``loads(data)`` of an object whose members named in ``convert`` are tables (objects) converted entry by
    entry as they are read: each ``key: value`` of the table ``name`` becomes ``key: convert[name](key, value)``
    before the next is read, so a broker's table of 100,000 topics is never held as 100,000 dicts. Each value is
    read by the standard parser where it can (in C), else in fastjson's relaxed form; anything but an object is
    read as ``loads`` reads it."""
    text = _text(data)
    parser = _Parser(text)
    parser.skip_ws()
    if not text.startswith("{", parser.pos):
        return loads(text)

    def member(key: str) -> Any:
        table = convert.get(key)
        if table is None or not text.startswith("{", parser.pos):
            return parser.standard_value()
        return parser.obj(lambda k: table(k, parser.standard_value()))

    value = parser.obj(member)
    parser.skip_ws()
    if parser.pos != len(text):
        raise BodyError(f"trailing data at offset {parser.pos}")
    return value


dumps = json.JSONEncoder(separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode
"""Compact, key-sorted standard JSON (what fastjson writes, minus its quirks); one encoder made once, as
``json.dumps`` with these options would make a new one per call."""


def dumps_bytes(obj: Any) -> bytes:
    return dumps(obj).encode()


def dumps_object_keyed(fields: dict[str, Any], table: list[tuple[dict[str, Any], Any]], name: str) -> bytes:
    """``fields`` plus the map ``name`` whose keys are whole objects, written as a Java broker writes
    them (``{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:{...}}}``): Java's fastjson and
    the Go and Rust admin clients read exactly this raw form; ``loads`` reads it back."""
    rows = ",".join(f"{dumps(key)}:{dumps(value)}" for key, value in table)
    items = [f"{dumps(k)}:{dumps(v)}" for k, v in fields.items()]
    items.append(f"{dumps(name)}:{{{rows}}}")
    return ("{" + ",".join(sorted(items)) + "}").encode()


def object_key(key: str) -> dict[str, Any]:
    """Parse a map key that fastjson wrote as a whole object (e.g. a MessageQueue)."""
    value = json.loads(key)
    if not isinstance(value, dict):
        raise BodyError(f"map key is not an object: {key!r}")
    return value


class _Parser:
    __slots__ = ("text", "pos")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def skip_ws(self) -> None:
        self.pos = _WS.match(self.text, self.pos).end()  # type: ignore[union-attr]  # [ \t\n\r]* always matches

    def fail(self, what: str) -> BodyError:
        snippet = self.text[self.pos : self.pos + 20]
        return BodyError(f"expected {what} at offset {self.pos} near {snippet!r}")

    def value(self) -> Any:
        self.skip_ws()
        if self.pos >= len(self.text):
            raise self.fail("a value")
        ch = self.text[self.pos]
        if ch == "{":
            return self.obj()
        if ch == "[":
            return self.arr()
        if ch == '"':
            s, self.pos = _scanstring(self.text, self.pos + 1)
            return s
        m = _NUMBER.match(self.text, self.pos)
        if m:
            self.pos = m.end()
            tok = m.group()
            return float(tok) if any(c in tok for c in ".eE") else int(tok)
        m = _BARE.match(self.text, self.pos)
        if m:
            word = m.group()
            consts = {"true": True, "false": False, "null": None}
            if word in consts:
                self.pos = m.end()
                return consts[word]
        raise self.fail("a value")

    def standard_value(self) -> Any:
        """The value at ``pos``, read by the standard parser where it is standard JSON, else by ``value``."""
        try:
            value, self.pos = _scan_once(self.text, self.pos)
        except (json.JSONDecodeError, StopIteration):  # StopIteration: no standard value starts here
            return self.value()
        return value

    def key(self) -> str:
        self.skip_ws()
        ch = self.text[self.pos : self.pos + 1]
        if ch == '"':
            s: str
            s, self.pos = _scanstring(self.text, self.pos + 1)
            return s
        if ch in ("{", "["):
            return dumps(self.value())
        m = _NUMBER.match(self.text, self.pos) or _BARE.match(self.text, self.pos)
        if not m:
            raise self.fail("a key")
        self.pos = m.end()
        return m.group()

    def obj(self, member: Callable[[str], Any] | None = None) -> dict[str, Any]:
        """The object here; ``member(key)`` reads each value at ``pos`` (default: ``value``)."""
        text = self.text
        out: dict[str, Any] = {}
        self.pos += 1
        self.skip_ws()
        if text.startswith("}", self.pos):
            self.pos += 1
            return out
        while True:
            if text.startswith('"', self.pos):  # the usual key, read without key()'s look at the others
                k, self.pos = _scanstring(text, self.pos + 1)
            else:
                k = self.key()
            colon = _COLON.match(text, self.pos)
            if colon is None:
                self.skip_ws()
                raise self.fail("':'")
            self.pos = colon.end()
            out[k] = self.value() if member is None else member(k)
            end = _NEXT.match(text, self.pos)
            if end is None:
                self.skip_ws()
                raise self.fail("',' or '}'")
            self.pos = end.end()
            if end.group(1) == "}":
                return out

    def arr(self) -> list[Any]:
        self.pos += 1
        out: list[Any] = []
        self.skip_ws()
        if self.text.startswith("]", self.pos):
            self.pos += 1
            return out
        while True:
            out.append(self.value())
            self.skip_ws()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                continue
            if self.text.startswith("]", self.pos):
                self.pos += 1
                return out
            raise self.fail("',' or ']'")
