"""Large table bodies (a broker's topic or group table of 100,000 entries, 16 MB of JSON) made without stalling
the event loop and without redoing work: each entry's JSON text is kept beside the value it was made from and made
again only once the value has been replaced (values are frozen configs or dicts replaced whole), so a table
answered again costs a sort and a join. The table is copied on the loop (a consistent view); a large one is then
put together in a worker thread: each entry is a short step, so the interpreter hands the GIL to the loop's
thread every few milliseconds and the loop keeps answering other requests meanwhile. The bytes are exactly
``fastjson.dumps_bytes`` of the whole document (compact, keys sorted)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from mqadmin.wire import fastjson

INLINE = 500
"""Tables up to this many entries are made on the loop (a thread costs more than they do)."""


def _same(value: Any) -> Any:
    return value


class Entries(list[str]):
    """A JSON object's members as ``"key":value`` texts, already encoded, in key order."""


class TableJson:
    """The JSON document of one table (``name``) with other ``fields``, entries encoded by ``to_json``."""

    def __init__(self, name: str, to_json: Callable[[Any], Any] = _same) -> None:
        self.name, self.to_json = name, to_json
        self._texts: dict[str, tuple[Any, str]] = {}

    async def body(self, fields: Mapping[str, Any], table: Mapping[str, Any]) -> bytes:
        """``fastjson.dumps_bytes({**fields, name: {k: to_json(v) for k, v in table.items()}})``."""
        entries = list(table.items())
        if len(entries) <= INLINE:
            return self._encode(dict(fields), entries)
        return await asyncio.to_thread(self._encode, dict(fields), entries)

    def entries(self, table: Mapping[str, Any]) -> Entries:
        """Each entry's ``"key":value`` text, in key order (for ``durable.dumps_table``): from the kept texts,
        so a snapshot of 100,000 topics is a sort and a join on the loop, not their encoding."""
        texts = []
        for k in sorted(table):
            v = table[k]
            kept = self._texts.get(k)
            if kept is None or kept[0] is not v:
                kept = self._texts[k] = (v, self._text(k, v))
            texts.append(kept[1])
        return Entries(texts)

    def remember(self, entries: Iterable[tuple[str, Any]]) -> None:
        """Make the texts of entries just written now, a few at a time, rather than all at the next request."""
        for k, v in entries:
            self._texts[k] = (v, self._text(k, v))

    def value_text(self, key: str) -> str:
        """The JSON text of the value last remembered or encoded for ``key``."""
        return self._texts[key][1][len(fastjson.dumps(key)) + 1 :]

    def _text(self, key: str, value: Any) -> str:
        return f"{fastjson.dumps(key)}:{fastjson.dumps(self.to_json(value))}"

    def _encode(self, fields: dict[str, Any], entries: list[tuple[str, Any]]) -> bytes:
        entries.sort(key=lambda e: e[0])
        old, texts = self._texts, {}
        for k, v in entries:
            kept = old.get(k)
            if kept is None or kept[0] is not v:
                kept = (v, self._text(k, v))
            texts[k] = kept
        self._texts = texts  # entries deleted since are dropped
        table = "{" + ",".join(text for _, text in texts.values()) + "}"
        parts = sorted([(k, fastjson.dumps(v)) for k, v in fields.items()] + [(self.name, table)])
        return ("{" + ",".join(f"{fastjson.dumps(k)}:{text}" for k, text in parts) + "}").encode()
