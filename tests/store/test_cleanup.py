"""Store maintenance as Apache's DefaultMessageStore does it: expired commit-log segments deleted oldest first
(never the one being written, nor one not yet flushed), queues' min offsets moving past what was deleted, and
consume queues dropped when expired or when their topic is gone."""

from __future__ import annotations

import os
import time

from mqadmin.server.store import GetStatus

from .conftest import message

DAY = 24 * 3600


def age(store, hours: float) -> None:
    """Make every commit-log segment look last written ``hours`` ago."""
    then = time.time() - hours * 3600
    for start in store.log.segments():
        os.utime(store.log.dir / f"{start:020d}", (then, then))


async def fill(store, topic: str, count: int, queue_id: int = 0) -> None:
    for _ in range(count):
        await store.put(message(topic, queue_id, b"x" * 600))


async def test_expired_segments_are_deleted_and_queues_start_after_them(open_store):
    store = await open_store(segment_size=4096)
    await fill(store, "Old", 20)  # several segments
    await fill(store, "Mixed", 3)
    await store.flush()
    segments = store.log.segments()
    assert len(segments) >= 3
    assert await store.delete_expired_segments(72) == []  # just written: kept for fileReservedTime hours
    await fill(store, "Mixed", 8)  # into a new segment; the last flushed one now has unflushed bytes too
    age(store, 73)
    assert await store.delete_expired_segments(72) == segments[:-1]  # never one with bytes not flushed yet
    await store.flush()
    remaining = store.log.segments()
    assert await store.delete_expired_segments(72) == remaining[:-1]  # never the one being written
    assert store.log.segments() == remaining[-1:]
    assert store.min_phys_offset == remaining[-1] > 0
    low = store.min_offset("Old", 0)
    assert low == store.max_offset("Old", 0) == 20  # nothing of Old is left
    assert store.get_messages("Old", 0, 0, 32).status == GetStatus.OFFSET_TOO_SMALL
    mixed_low = store.min_offset("Mixed", 0)
    got = store.get_messages("Mixed", 0, mixed_low, 32)
    assert 3 <= mixed_low < 11
    assert got.status == GetStatus.FOUND and len(got.messages) == 11 - mixed_low

    dropped = await store.clean_expired_queues()
    assert dropped == [("Old", 0)] and store.max_offset("Old", 0) == 0  # Apache drops it: offsets restart
    assert not (store.data_dir / "consumequeue" / "Old" / "0").exists()
    assert store.max_offset("Mixed", 0) == 11


async def test_a_reopened_store_keeps_the_min_offsets(open_store):
    store = await open_store(segment_size=4096)
    await fill(store, "T", 12)
    await store.flush()
    age(store, 100)
    await fill(store, "T", 1)
    await store.flush()
    await store.delete_expired_segments(72)
    low = store.min_offset("T", 0)
    assert 0 < low < 13
    await store.close()
    again = await open_store(segment_size=4096)
    assert (again.min_offset("T", 0), again.max_offset("T", 0)) == (low, 13)
    assert again.get_messages("T", 0, low, 32).status == GetStatus.FOUND


async def test_unused_topics_lose_their_queues_system_topics_stay(open_store):
    store = await open_store()
    for topic in ("Kept", "Gone", "SCHEDULE_TOPIC_XXXX", "rmq_sys_wheel", "%LMQ%x"):
        await fill(store, topic, 1)
    assert await store.clean_unused_topics({"Kept"}) == ["Gone"]
    assert store.max_offset("Gone", 0) == 0 and store.max_offset("Kept", 0) == 1
    assert store.max_offset("SCHEDULE_TOPIC_XXXX", 0) == store.max_offset("%LMQ%x", 0) == 1
