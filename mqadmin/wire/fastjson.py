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
from typing import Any

_scanstring = json.decoder.scanstring  # type: ignore[attr-defined]  # public in json.decoder, not in typeshed
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_BARE = re.compile(r"[A-Za-z_$][\w$]*")
_WS = re.compile(r"[ \t\n\r]*")


class BodyError(ValueError):
    """A body that is neither JSON nor fastjson's relaxed form."""


def loads(data: bytes | str) -> Any:
    text = data.decode("utf-8") if isinstance(data, bytes | bytearray | memoryview) else data
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

    def obj(self) -> dict[str, Any]:
        self.pos += 1
        out: dict[str, Any] = {}
        self.skip_ws()
        if self.text.startswith("}", self.pos):
            self.pos += 1
            return out
        while True:
            k = self.key()
            self.skip_ws()
            if not self.text.startswith(":", self.pos):
                raise self.fail("':'")
            self.pos += 1
            out[k] = self.value()
            self.skip_ws()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                continue
            if self.text.startswith("}", self.pos):
                self.pos += 1
                return out
            raise self.fail("',' or '}'")

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
