"""Writing: queue offsets and commit-log offsets are given at once, records are written by one
commit per event-loop turn and acknowledged once written (and, with SYNC_FLUSH, fsynced); see
``mqadmin.server.store.store``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import struct
import time
from collections.abc import Callable
from functools import partial

from mqadmin.model.tags import tags_code
from mqadmin.server.paths import UnsafePath
from mqadmin.server.store.consumequeue import ENTRY, ENTRY_SIZE, ConsumeQueue
from mqadmin.server.store.state import Queued, Stored, StoreState, tell
from mqadmin.server.store.types import Encoder, FlushDiskType, PutResult, PutStatus, Records, Refused
from mqadmin.wire.message import (
    PROPERTY_KEYS,
    PROPERTY_TAGS,
    PROPERTY_UNIQ_KEY,
    MessageExt,
    encode_message,
    offset_msg_id,
)

log = logging.getLogger(__name__)


class StoreWriting(StoreState):
    async def put(self, msg: MessageExt) -> PutResult:
        return await self.put_batch([msg])

    async def put_batch(self, msgs: list[MessageExt]) -> PutResult:
        """Store messages of one queue (or one message) atomically, with consecutive queue offsets."""
        return await self.put_encoded(lambda stored: self.enqueue(msgs, stored))

    async def put_encoded(self, enqueue: Callable[[Stored], PutResult]) -> PutResult:
        """``enqueue`` (``self.enqueue`` or ``self.enqueue_records``) and wait until it is stored."""
        fut: asyncio.Future[PutStatus] = asyncio.get_running_loop().create_future()

        def stored(status: PutStatus) -> None:
            if not fut.done():  # cancelled by SYNC_FLUSH's timeout
                fut.set_result(status)

        result = enqueue(stored)
        if result.stored:
            result.status = await self._wait_stored(fut)
        return result

    def enqueue(self, msgs: list[MessageExt], stored: Stored) -> PutResult:
        """``put_batch`` without waiting: a result that is refused at once (it says why; ``stored`` is never
        called), or PUT_OK once queued, and ``stored`` gets the final status when the records are committed
        (ASYNC_FLUSH) or fsynced (SYNC_FLUSH; its timeout is ``put_batch``'s)."""
        if not msgs:
            return PutResult(PutStatus.MESSAGE_ILLEGAL, detail="no message to store")
        return self.enqueue_records(msgs[0].topic, msgs[0].queue_id, partial(_encode_messages, msgs), stored)

    def enqueue_records(self, topic: str, queue_id: int, encode: Encoder, stored: Stored) -> PutResult:
        """``enqueue`` for records the caller encodes (a batch straight from its request body) at the queue
        offsets and commit-log offset the store gives: one unit, in one segment, one consume-queue extension."""
        if self.closed:
            return PutResult(PutStatus.SERVICE_NOT_AVAILABLE, detail="the message store is closed")
        key = (topic, queue_id)
        if key not in self._cqs:
            try:
                self._cq(topic, queue_id)
            except UnsafePath as e:
                return PutResult(PutStatus.MESSAGE_ILLEGAL, detail=str(e))
        qoff = self._next_queue_offset(key)
        phys = self._next_phys
        now = int(time.time() * 1000)
        if now < self._last_store_ts:
            now = self._last_store_ts
        store_host = self.store_host
        try:
            records = encode(qoff, phys, now, store_host)
            size = len(records.data)
            if size > self._segment_size:
                raise Refused(
                    PutStatus.MESSAGE_ILLEGAL,
                    f"the stored messages take {size} bytes, more than a commit-log segment ({self._segment_size})",
                )
            placed = self.log.place(phys, size)
            if placed != phys:  # the rest of this segment is too small: the next one starts with them
                phys = placed
                records = encode(qoff, phys, now, store_host)
        except Refused as e:
            return PutResult(e.status, detail=str(e))
        self._last_store_ts = now
        self._next_phys = phys + size
        count = len(records.entries) // ENTRY_SIZE
        self._next_qoff[key] = qoff + count
        self._queued.append((phys, records.data, topic, queue_id, records.entries, records.keys))
        self._waiters.append(stored)
        if self._commit_handle is None:
            self._commit_handle = asyncio.get_running_loop().call_soon(self._commit)
        return PutResult(PutStatus.PUT_OK, msg_ids=records.msg_ids, queue_offset=qoff, phys_offset=phys,
                         wrote_bytes=size)  # fmt: skip

    def _next_queue_offset(self, key: tuple[str, int]) -> int:
        qoff = self._next_qoff.get(key)
        if qoff is None:
            cq = self._cqs.get(key)
            qoff = cq.count if cq is not None else 0
        return qoff

    async def _wait_stored(self, fut: asyncio.Future[PutStatus]) -> PutStatus:
        if self.flush_disk_type == FlushDiskType.ASYNC:
            return await fut
        try:
            return await asyncio.wait_for(asyncio.shield(fut), self.sync_flush_timeout)
        except TimeoutError:
            return PutStatus.FLUSH_DISK_TIMEOUT

    def _commit(self) -> None:
        """Write every queued record, index it, then acknowledge (see the module docstring)."""
        self._commit_handle = None
        queued, self._queued = self._queued, []
        waiters, self._waiters = self._waiters, []
        if not queued:
            return
        try:
            self._write(queued)
        except OSError as e:
            log.error("store: writing the commit log failed: %s", e)
            self._rollback()
            tell(waiters, PutStatus.SERVICE_NOT_AVAILABLE)
            return
        index = self.index
        touched: dict[tuple[str, int], ConsumeQueue] = {}
        for _phys, _data, topic, qid, entries, keys in queued:
            key = (topic, qid)
            cq = touched.get(key)
            if cq is None:
                cq = touched[key] = self._cq(topic, qid)
            cq.extend(entries)
            if keys:
                index.add_all(topic, keys)
        last = queued[-1]
        self._end = last[0] + len(last[1])
        for (topic, qid), cq in touched.items():
            for listener in self._listeners:
                try:
                    listener(topic, qid, cq.count)
                except Exception:  # a listener bug must not lose the acknowledgement
                    log.exception("store: arrival listener failed")
        if self.flush_disk_type == FlushDiskType.SYNC and self._sync_event is not None:
            self._sync_waiters.extend(waiters)
            self._sync_event.set()
        else:
            tell(waiters, PutStatus.PUT_OK)

    def _write(self, queued: list[Queued]) -> None:
        """One pwrite per run of records that are contiguous within one segment."""
        run_start = queued[0][0]
        run: list[bytes | bytearray] = []
        pos = run_start
        for phys, data, *_ in queued:
            if phys != pos:
                self.log.write(run_start, b"".join(run))
                run_start, run = phys, []
            run.append(data)
            pos = phys + len(data)
        self.log.write(run_start, b"".join(run) if len(run) > 1 else run[0])

    def _rollback(self) -> None:
        self._next_phys = self._end
        self._next_qoff.clear()
        with contextlib.suppress(OSError):
            self.log.truncate(self._end)


def _encode_messages(msgs: list[MessageExt], qoff: int, phys: int, now: int, store_host: tuple[str, int]) -> Records:
    """The ``Encoder`` of messages of one queue (bound to them with ``partial``): each encoded by
    ``encode_message`` at its place."""
    parts: list[bytes] = []
    entries = bytearray()
    keys: list[tuple[bytes, int]] = []
    ids = []
    for m in msgs:
        m.queue_offset, m.commit_log_offset, m.store_timestamp, m.store_host = qoff, phys, now, store_host
        try:
            data = encode_message(m)
        except struct.error as e:
            raise Refused(PutStatus.MESSAGE_ILLEGAL, f"a header field is out of range: {e}") from None
        except ValueError as e:
            status = PutStatus.PROPERTIES_SIZE_EXCEEDED if "properties" in str(e) else PutStatus.MESSAGE_ILLEGAL
            raise Refused(status, str(e)) from None
        props = m.properties
        entries += ENTRY.pack(phys, len(data), tags_code(props.get(PROPERTY_TAGS)))
        keys_text, uniq = props.get(PROPERTY_KEYS), props.get(PROPERTY_UNIQ_KEY)
        if keys_text:
            keys.extend([(k.encode(), phys) for k in keys_text.split(" ") if k])
        if uniq:
            keys.append((uniq.encode(), phys))
        ids.append(offset_msg_id(store_host, phys))
        parts.append(data)
        phys += len(data)
        qoff += 1
    return Records(parts[0] if len(parts) == 1 else b"".join(parts), entries, keys, ids)
