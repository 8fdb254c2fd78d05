"""Batcher: one flush per batch of concurrent submits; errors reach exactly that batch's callers."""

from __future__ import annotations

import asyncio

import pytest

from mqadmin.server.batcher import Batcher


async def test_concurrent_submits_share_one_flush_and_later_ones_get_the_next():
    flushed: list[list[int]] = []
    gate = asyncio.Event()

    async def flush(items: list[int]) -> None:
        flushed.append(items)
        await gate.wait()

    b: Batcher[int] = Batcher(flush)
    first = asyncio.ensure_future(b.submit(0))
    await asyncio.sleep(0)  # the flusher takes [0] and blocks on the gate
    rest = [asyncio.ensure_future(b.submit(i)) for i in range(1, 6)]
    await asyncio.sleep(0)
    assert not first.done()
    gate.set()
    await asyncio.gather(first, *rest)
    assert flushed == [[0], [1, 2, 3, 4, 5]]


async def test_a_failed_flush_fails_its_batch_only():
    calls = 0

    async def flush(items: list[str]) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise OSError("disk full")

    b: Batcher[str] = Batcher(flush)
    with pytest.raises(OSError, match="disk full"):
        await b.submit("a")
    await b.submit("b")  # the next batch is flushed normally
    assert calls == 2


async def test_a_cancelled_caller_does_not_cancel_the_batch_for_others():
    gate = asyncio.Event()
    done: list[list[int]] = []

    async def flush(items: list[int]) -> None:
        await gate.wait()
        done.append(items)

    b: Batcher[int] = Batcher(flush)
    a, c = asyncio.ensure_future(b.submit(1)), asyncio.ensure_future(b.submit(2))
    await asyncio.sleep(0)
    a.cancel()
    gate.set()
    await c
    assert done == [[1, 2]]
