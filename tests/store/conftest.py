"""Helpers for store tests: messages, and a store that "crashes" (no final flush) like kill -9 would."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from mqadmin.server.store import MessageStore
from mqadmin.wire.message import MessageExt, new_uniq_key


def message(topic: str = "T", queue_id: int = 0, body: bytes = b"hello", *, tags: str | None = None, keys: str = ""):
    props = {"UNIQ_KEY": new_uniq_key()}
    if tags:
        props["TAGS"] = tags
    if keys:
        props["KEYS"] = keys
    return MessageExt(topic=topic, body=body, queue_id=queue_id, properties=props, born_timestamp=1)


async def crash(store: MessageStore) -> None:
    """Stop a store the way a killed process stops: what was written stays in the OS, nothing else
    happens (no final flush, no checkpoint, no index tails)."""
    for task in store._tasks:
        task.cancel()
    await asyncio.gather(*store._tasks, return_exceptions=True)
    store.closed = True
    store.log.close()


@pytest.fixture
async def open_store(tmp_path: Path):
    """``await open_store(**kwargs)`` opens (or reopens) the store under tmp_path; closed at the end."""
    stores: list[MessageStore] = []

    async def factory(**kwargs) -> MessageStore:
        kwargs.setdefault("flush_interval", 3600)
        store = await MessageStore.open(tmp_path / "store", **kwargs)
        stores.append(store)
        return store

    yield factory
    for s in stores:
        await s.close()
