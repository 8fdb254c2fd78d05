"""Long polling: pulls that found nothing wait here until a message arrives in their queue."""

from __future__ import annotations

import asyncio

MAX_SUSPENDED_PULLS = 10_000
"""Pulls held at once; beyond that a pull that finds nothing is answered at once."""


class LongPolling:
    """Pulls waiting for a message to arrive in their queue."""

    def __init__(self, limit: int = MAX_SUSPENDED_PULLS) -> None:
        self.limit = limit
        self._waiting: dict[tuple[str, int], set[asyncio.Future[None]]] = {}
        self.suspended = 0

    def on_arrival(self, topic: str, queue_id: int, max_offset: int) -> None:
        for fut in self._waiting.pop((topic, queue_id), ()):
            if not fut.done():
                fut.set_result(None)

    async def wait(self, topic: str, queue_id: int, timeout: float) -> bool:
        """Wait for an arrival in the queue; False when the timeout ended it or no slot was free."""
        if self.suspended >= self.limit or timeout <= 0:
            return False
        key = (topic, queue_id)
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        waiters = self._waiting.setdefault(key, set())
        waiters.add(fut)
        self.suspended += 1
        try:
            await asyncio.wait_for(fut, timeout)
            return True
        except TimeoutError:
            return False
        finally:
            self.suspended -= 1
            waiters.discard(fut)
            if not waiters and self._waiting.get(key) is waiters:
                del self._waiting[key]
