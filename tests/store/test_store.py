"""The message store: append/read, consume queues, reopening, torn-tail recovery, key index."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from mqadmin.model.tags import build_subscription
from mqadmin.server.store import FlushDiskType, GetStatus, PutStatus
from mqadmin.wire.message import decode_messages, offset_msg_id, parse_offset_msg_id

from .conftest import crash, message


def bodies(result) -> list[bytes]:
    return [m.body for m in decode_messages(b"".join(result.messages))]


async def test_put_then_read_back_in_order(open_store):
    store = await open_store()
    r1 = await store.put(message(body=b"one"))
    r2 = await store.put(message(body=b"two"))
    r3 = await store.put(message(queue_id=1, body=b"other queue"))
    assert [r1.status, r2.status, r3.status] == [PutStatus.PUT_OK] * 3
    assert (r1.queue_offset, r2.queue_offset, r3.queue_offset) == (0, 1, 0)
    assert r2.phys_offset == r1.phys_offset + r1.wrote_bytes
    got = store.get_messages("T", 0, 0, 32)
    assert got.status == GetStatus.FOUND
    assert bodies(got) == [b"one", b"two"]
    assert (got.next_begin_offset, got.min_offset, got.max_offset) == (2, 0, 2)
    msgs = decode_messages(b"".join(got.messages))
    assert [m.queue_offset for m in msgs] == [0, 1]
    assert msgs[1].msg_id == r2.msg_id == offset_msg_id(("127.0.0.1", 10911), r2.phys_offset)
    assert parse_offset_msg_id(r2.msg_id)[1] == r2.phys_offset
    assert bodies(store.get_messages("T", 1, 0, 32)) == [b"other queue"]


async def test_concurrent_puts_get_distinct_consecutive_offsets(open_store):
    store = await open_store()
    results = await asyncio.gather(*(store.put(message(body=f"m{i}".encode())) for i in range(50)))
    assert sorted(r.queue_offset for r in results) == list(range(50))
    got = store.get_messages("T", 0, 0, 100)
    assert len(got.messages) == 32  # at most 32 per pull, as RocketMQ
    rest = store.get_messages("T", 0, got.next_begin_offset, 100)
    assert bodies(got) + bodies(rest) == [f"m{i}".encode() for i in range(50)]


async def test_a_failing_waiter_costs_no_other_write_its_answer(open_store):
    store = await open_store()
    told: list[PutStatus] = []

    def broken(status: PutStatus) -> None:
        told.append(status)
        raise RuntimeError("a handler bug")

    queued = store.enqueue([message(body=b"first")], broken)
    assert queued.status == PutStatus.PUT_OK
    after = await store.put(message(body=b"second"))  # committed in the same turn as the first
    assert told == [PutStatus.PUT_OK] and after.status == PutStatus.PUT_OK
    assert bodies(store.get_messages("T", 0, 0, 32)) == [b"first", b"second"]


async def test_pull_statuses_match_rocketmq(open_store):
    store = await open_store()
    assert store.get_messages("T", 0, 0, 32).status == GetStatus.NO_MATCHED_LOGIC_QUEUE
    await store.put(message())
    assert store.get_messages("T", 0, 1, 32).status == GetStatus.OFFSET_OVERFLOW_ONE
    bad = store.get_messages("T", 0, 9, 32)
    assert (bad.status, bad.next_begin_offset) == (GetStatus.OFFSET_OVERFLOW_BADLY, 1)
    assert store.get_messages("T", 0, -1, 32).status == GetStatus.OFFSET_TOO_SMALL


async def test_tag_filter_skips_other_tags_but_advances(open_store):
    store = await open_store()
    for tags in ("A", "B", "A", "C"):
        await store.put(message(body=tags.encode(), tags=tags))
    sub = build_subscription("T", "A || C")
    got = store.get_messages("T", 0, 0, 32, sub)
    assert bodies(got) == [b"A", b"A", b"C"]
    assert got.next_begin_offset == 4
    only_b = store.get_messages("T", 0, 3, 32, build_subscription("T", "B"))
    assert (only_b.status, only_b.next_begin_offset) == (GetStatus.NO_MATCHED_MESSAGE, 4)


async def test_batch_gets_consecutive_offsets_and_ids(open_store):
    store = await open_store()
    r = await store.put_batch([message(body=b"a"), message(body=b"b"), message(body=b"c")])
    assert r.status == PutStatus.PUT_OK
    assert r.queue_offset == 0 and len(r.msg_ids) == 3 and r.msg_id.count(",") == 2
    assert [m.queue_offset for m in decode_messages(b"".join(store.get_messages("T", 0, 0, 32).messages))] == [0, 1, 2]


async def test_reopen_keeps_messages_and_offsets(open_store):
    store = await open_store()
    for i in range(5):
        await store.put(message(body=b"%d" % i))
    await store.close()
    store = await open_store()
    assert store.max_offset("T", 0) == 5
    r = await store.put(message(body=b"5"))
    assert r.queue_offset == 5
    assert bodies(store.get_messages("T", 0, 0, 32)) == [b"%d" % i for i in range(6)]


async def test_segments_roll_and_records_never_span_them(open_store, tmp_path: Path):
    store = await open_store(segment_size=4096)
    results = [await store.put(message(body=bytes(1000))) for _ in range(10)]
    seg = store.log.segments()
    assert len(seg) >= 3 and all(s % 4096 == 0 for s in seg)
    for r in results:
        assert r.phys_offset // 4096 == (r.phys_offset + r.wrote_bytes - 1) // 4096
    assert len(bodies(store.get_messages("T", 0, 0, 32))) == 10
    await store.close()
    store = await open_store(segment_size=4096)
    assert len(bodies(store.get_messages("T", 0, 0, 32))) == 10
    assert (await store.put(message())).queue_offset == 10


async def test_message_larger_than_a_segment_is_illegal(open_store):
    store = await open_store(segment_size=4096)
    r = await store.put(message(body=bytes(5000)))
    assert r.status == PutStatus.MESSAGE_ILLEGAL and "segment" in r.detail
    assert store.max_offset("T", 0) == 0


async def test_crash_keeps_every_acknowledged_message(open_store):
    store = await open_store()
    for i in range(20):
        await store.put(message(body=b"%d" % i, keys=f"k{i}"))
    await crash(store)  # no checkpoint, no consume-queue or index files were written
    store = await open_store()
    assert store.max_offset("T", 0) == 20
    assert bodies(store.get_messages("T", 0, 0, 32)) == [b"%d" % i for i in range(20)]
    assert len(store.query("T", "k7", 32)) == 1


async def test_torn_tail_is_cut_and_appends_continue(open_store, tmp_path: Path):
    store = await open_store()
    results = [await store.put(message(body=b"good %d" % i)) for i in range(3)]
    await store.flush()  # the checkpoint now covers the three good messages
    torn = await store.put(message(body=b"torn" * 100))
    await crash(store)
    segment = tmp_path / "store" / "commitlog" / f"{0:020d}"
    with open(segment, "r+b") as f:
        f.truncate(torn.phys_offset + torn.wrote_bytes // 2)  # the last record is half written
    store = await open_store()
    assert store.max_offset("T", 0) == 3
    assert bodies(store.get_messages("T", 0, 0, 32)) == [b"good 0", b"good 1", b"good 2"]
    assert os.path.getsize(segment) == torn.phys_offset
    nxt = await store.put(message(body=b"after"))
    assert (nxt.queue_offset, nxt.phys_offset) == (3, torn.phys_offset)
    assert bodies(store.get_messages("T", 0, 3, 32)) == [b"after"]
    assert store.read_message(results[1].phys_offset) is not None


async def test_corrupt_record_after_checkpoint_is_cut_with_everything_after_it(open_store, tmp_path: Path):
    store = await open_store()
    await store.put(message(body=b"kept"))
    await store.flush()
    bad = await store.put(message(body=b"flipped"))
    await store.put(message(body=b"after the bad one"))
    await store.flush()  # index files and checkpoint now include the bad record
    await crash(store)
    segment = tmp_path / "store" / "commitlog" / f"{0:020d}"
    data = bytearray(segment.read_bytes())
    data[bad.phys_offset + bad.wrote_bytes - 40] ^= 0xFF  # inside the body: CRC no longer matches
    segment.write_bytes(bytes(data))
    # as if the last flush had happened just before the damaged record: recovery validates from there
    (tmp_path / "store" / "checkpoint").write_text(f'{{"dispatched": {bad.phys_offset}}}')
    store = await open_store()
    assert bodies(store.get_messages("T", 0, 0, 32)) == [b"kept"]
    assert store.max_offset("T", 0) == 1
    assert (await store.put(message(body=b"new"))).queue_offset == 1


async def test_lost_consume_queue_files_are_rebuilt(open_store, tmp_path: Path):
    store = await open_store()
    for i in range(4):
        await store.put(message(queue_id=i % 2, body=b"%d" % i))
    await store.close()
    for p in (tmp_path / "store" / "consumequeue" / "T").iterdir():
        p.unlink()
    store = await open_store()
    assert bodies(store.get_messages("T", 0, 0, 32)) == [b"0", b"2"]
    assert bodies(store.get_messages("T", 1, 0, 32)) == [b"1", b"3"]


async def test_query_by_key_and_unique_key(open_store):
    store = await open_store()
    m1 = message(body=b"first", keys="order-1 shared")
    m2 = message(body=b"second", keys="order-2 shared")
    await store.put(m1)
    await store.put(m2)
    await store.put(message(topic="Other", body=b"other topic", keys="shared"))
    assert [m.body for m in decode_messages(b"".join(store.query("T", "shared", 32)))] == [b"second", b"first"]
    assert [m.body for m in decode_messages(b"".join(store.query("T", "order-1", 32)))] == [b"first"]
    assert len(store.query("T", "shared", 1)) == 1
    assert store.query("T", "order-1", 32, begin=0, end=1) == []  # outside the time range
    uniq = m2.properties["UNIQ_KEY"]
    assert [m.body for m in decode_messages(b"".join(store.query("T", uniq, 32, unique=True)))] == [b"second"]
    assert store.query("T", uniq, 32) == []  # a unique key is not one of the message's KEYS


async def test_key_index_survives_restart(open_store):
    store = await open_store()
    await store.put(message(body=b"x", keys="persisted"))
    await store.close()
    store = await open_store()
    assert len(store.query("T", "persisted", 32)) == 1


async def test_read_message_by_offset_only_at_record_starts(open_store):
    store = await open_store()
    r = await store.put(message(body=b"view me"))
    data = store.read_message(r.phys_offset)
    assert data is not None and decode_messages(data)[0].body == b"view me"
    assert store.read_message(r.phys_offset + 1) is None
    assert store.read_message(r.phys_offset + r.wrote_bytes) is None
    assert store.read_message(-5) is None


async def test_sync_flush_acknowledges_after_fsync(open_store):
    store = await open_store(flush_disk_type=FlushDiskType.SYNC)
    results = await asyncio.gather(*(store.put(message(body=b"%d" % i)) for i in range(20)))
    assert all(r.status == PutStatus.PUT_OK for r in results)
    assert store._synced >= results[-1].phys_offset


async def test_search_offset_and_store_time(open_store):
    store = await open_store()
    await store.put(message(body=b"a"))
    t = store.store_time("T", 0, 0)
    assert t > 0
    assert store.search_offset("T", 0, t) == 0
    assert store.search_offset("T", 0, t + 10_000) == 1
    assert store.store_time("T", 0, 5) == 0


async def test_arrival_listener_sees_committed_queue(open_store):
    store = await open_store()
    seen = []
    store.add_arrival_listener(lambda t, q, n: seen.append((t, q, n, store.max_offset(t, q))))
    await store.put(message(queue_id=2))
    assert seen == [("T", 2, 1, 1)]


async def test_put_after_close_is_service_not_available(open_store):
    store = await open_store()
    await store.close()
    assert (await store.put(message())).status == PutStatus.SERVICE_NOT_AVAILABLE
