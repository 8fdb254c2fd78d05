"""Large table bodies (a broker's topic or group table of 100,000 entries, 16 MB of JSON) built without stalling
the event loop: the table is copied on the loop (a consistent view), then encoded in a worker thread in chunks of
``CHUNK`` entries. Each chunk holds the GIL for a few milliseconds at most, so the loop keeps answering other
requests (a heartbeat, a route look-up, the next request of the same client) while the body is made. The bytes
are exactly ``fastjson.dumps_bytes`` of the whole document (compact, keys sorted)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from mqadmin.wire import fastjson

CHUNK = 500
"""Entries encoded per step: about a millisecond of work, after which the loop may take the GIL."""


def _same(value: Any) -> Any:
    return value


async def table_body(
    fields: Mapping[str, Any], name: str, table: Mapping[str, Any], to_json: Callable[[Any], Any] = _same
) -> bytes:
    """``fastjson.dumps_bytes({**fields, name: {k: to_json(v) for k, v in table.items()}})``, made off the loop
    when the table is large. The values must not change in place (frozen configs, dicts replaced whole)."""
    entries = list(table.items())
    if len(entries) <= CHUNK:
        return fastjson.dumps_bytes({**fields, name: {k: to_json(v) for k, v in entries}})
    return await asyncio.to_thread(_encode, dict(fields), name, entries, to_json)


def _encode(fields: dict[str, Any], name: str, entries: list[tuple[str, Any]], to_json: Callable[[Any], Any]) -> bytes:
    entries.sort(key=lambda e: e[0])
    chunks = []
    for i in range(0, len(entries), CHUNK):
        chunks.append(fastjson.dumps({k: to_json(v) for k, v in entries[i : i + CHUNK]})[1:-1])
    parts = [(k, fastjson.dumps(v)) for k, v in fields.items()]
    parts.append((name, "{" + ",".join(chunks) + "}"))
    parts.sort(key=lambda p: p[0])
    return ("{" + ",".join(f"{fastjson.dumps(k)}:{text}" for k, text in parts) + "}").encode()
