"""Running many requests with at most ``limit`` in flight (one topic per request, one chunk per
request), keeping each item's outcome: its value or the Exception it raised."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar, cast

T = TypeVar("T")
R = TypeVar("R")


async def map_bounded(items: Sequence[T], fn: Callable[[T], Awaitable[R]], limit: int) -> list[R | Exception]:
    """``fn`` on every item, at most ``limit`` at a time, in order; an item that raises an Exception yields
    that exception (cancellation and other BaseExceptions propagate)."""
    import asyncio  # here: the modules that import this one also serve commands that run without asyncio

    gate = asyncio.Semaphore(max(1, limit))

    async def one(item: T) -> R:
        async with gate:
            return await fn(item)

    outcomes = await asyncio.gather(*(one(i) for i in items), return_exceptions=True)
    for out in outcomes:
        if isinstance(out, BaseException) and not isinstance(out, Exception):
            raise out
    return cast("list[R | Exception]", outcomes)  # BaseExceptions were raised above
