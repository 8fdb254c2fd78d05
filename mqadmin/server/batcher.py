"""Group commit: many concurrent callers, one flush for all of them.

``await submit(items)`` queues the items and returns once a flush that *started after* they were
queued has finished (or raises that flush's error). One flusher task runs at a time; while it
works, new items gather for the next flush, so batches grow by themselves under load while an
isolated submit is flushed at once. Used for durable config files and for announcing new topics
to the name servers.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Batcher(Generic[T]):
    def __init__(self, flush: Callable[[list[T]], Awaitable[None]]) -> None:
        self._flush = flush
        self._items: list[T] = []
        self._dirty = False
        self._batch: asyncio.Future[None] | None = None
        self._task: asyncio.Task[None] | None = None

    async def submit(self, *items: T) -> None:
        await asyncio.shield(self.post(*items))

    def post(self, *items: T) -> asyncio.Future[None]:
        """Queue the items without waiting: the future of the flush that will take them (``drain`` waits too)."""
        loop = asyncio.get_running_loop()
        self._items.extend(items)
        self._dirty = True
        if self._batch is None:
            self._batch = loop.create_future()
            self._batch.add_done_callback(_retrieve)
        batch = self._batch
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._run())
        return batch

    async def _run(self) -> None:
        while self._dirty:
            items, batch = self._items, self._batch
            self._items, self._batch, self._dirty = [], None, False
            try:
                await self._flush(items)
            except Exception as e:
                if batch is not None:
                    batch.set_exception(e)
            else:
                if batch is not None:
                    batch.set_result(None)

    async def drain(self) -> None:
        """Wait until nothing is queued or being flushed."""
        while self._task is not None and not self._task.done():
            with contextlib.suppress(Exception):
                await asyncio.shield(self._task)


def _retrieve(fut: asyncio.Future[None]) -> None:
    if not fut.cancelled():
        fut.exception()
