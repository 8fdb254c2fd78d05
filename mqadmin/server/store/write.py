"""Writing: queue offsets and commit-log offsets are given at once, records are written by one
commit per event-loop turn and acknowledged once written (and, with SYNC_FLUSH, fsynced); see
``mqadmin.server.store.store``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import struct
import time

from mqadmin.model.tags import tags_code
from mqadmin.server.paths import UnsafePath
from mqadmin.server.store.consumequeue import ENTRY, ConsumeQueue
from mqadmin.server.store.state import Queued, Stored, StoreState, tell
from mqadmin.server.store.types import FlushDiskType, PutResult, PutStatus
from mqadmin.wire.message import (
    PHYS_OFFSET_POS,
    PROPERTY_KEYS,
    PROPERTY_TAGS,
    PROPERTY_UNIQ_KEY,
    MessageExt,
    encode_message,
    offset_msg_id,
)

log = logging.getLogger(__name__)

_PHYS = struct.Struct(">q")


class StoreWriting(StoreState):
    async def put(self, msg: MessageExt) -> PutResult:
        return await self.put_batch([msg])

    async def put_batch(self, msgs: list[MessageExt]) -> PutResult:
        """Store messages of one queue (or one message) atomically, with consecutive queue offsets."""
        fut: asyncio.Future[PutStatus] = asyncio.get_running_loop().create_future()

        def stored(status: PutStatus) -> None:
            if not fut.done():  # cancelled by SYNC_FLUSH's timeout
                fut.set_result(status)

        result = self.enqueue(msgs, stored)
        if result.stored:
            result.status = await self._wait_stored(fut)
        return result

    def enqueue(self, msgs: list[MessageExt], stored: Stored) -> PutResult:
        """``put_batch`` without waiting: a result that is refused at once (it says why; ``stored`` is never
        called), or PUT_OK once queued, and ``stored`` gets the final status when the records are committed
        (ASYNC_FLUSH) or fsynced (SYNC_FLUSH; its timeout is ``put_batch``'s)."""
        if self.closed:
            return PutResult(PutStatus.SERVICE_NOT_AVAILABLE, detail="the message store is closed")
        if not msgs:
            return PutResult(PutStatus.MESSAGE_ILLEGAL, detail="no message to store")
        try:
            return self._enqueue(msgs, stored)
        except _Illegal as e:
            return PutResult(e.status, detail=str(e))

    def _enqueue(self, msgs: list[MessageExt], stored: Stored) -> PutResult:
        now = int(time.time() * 1000)
        if now < self._last_store_ts:
            now = self._last_store_ts
        self._last_store_ts = now
        queued: list[Queued] = []
        next_qoff: dict[tuple[str, int], int] = {}
        phys = self._next_phys
        place, segment_size, store_host = self.log.place, self._segment_size, self.store_host
        for m in msgs:
            key = (m.topic, m.queue_id)
            qoff = next_qoff.get(key)
            if qoff is None:
                if key not in self._cqs:
                    try:
                        self._cq(m.topic, m.queue_id)
                    except UnsafePath as e:
                        raise _Illegal(PutStatus.MESSAGE_ILLEGAL, str(e)) from None
                qoff = self._next_queue_offset(key)
            m.queue_offset = qoff
            m.store_timestamp = now
            m.store_host = store_host
            m.commit_log_offset = phys  # where the log ends: the record's place unless it starts a new segment
            try:
                data: bytes | bytearray = encode_message(m)
            except struct.error as e:
                raise _Illegal(PutStatus.MESSAGE_ILLEGAL, f"a header field is out of range: {e}") from None
            except ValueError as e:
                status = PutStatus.PROPERTIES_SIZE_EXCEEDED if "properties" in str(e) else PutStatus.MESSAGE_ILLEGAL
                raise _Illegal(status, str(e)) from None
            size = len(data)
            if size > segment_size:
                raise _Illegal(
                    PutStatus.MESSAGE_ILLEGAL,
                    f"the stored message takes {size} bytes, more than a commit-log segment ({segment_size})",
                )
            placed = place(phys, size)
            if placed != phys:
                m.commit_log_offset = phys = placed
                data = bytearray(data)
                _PHYS.pack_into(data, PHYS_OFFSET_POS, phys)
            props = m.properties
            keys_text = props.get(PROPERTY_KEYS)
            keys = [k for k in keys_text.split(" ") if k] if keys_text else []
            queued.append((phys, data, m.topic, m.queue_id, qoff, tags_code(props.get(PROPERTY_TAGS)), keys,
                           props.get(PROPERTY_UNIQ_KEY)))  # fmt: skip
            next_qoff[key] = qoff + 1
            phys += size
        self._next_phys = phys
        self._next_qoff.update(next_qoff)
        self._queued.extend(queued)
        self._waiters.append(stored)
        if self._commit_handle is None:
            self._commit_handle = asyncio.get_running_loop().call_soon(self._commit)
        first = queued[0]
        return PutResult(
            PutStatus.PUT_OK,
            msg_ids=[offset_msg_id(store_host, q[0]) for q in queued],
            queue_offset=first[4],
            phys_offset=first[0],
            wrote_bytes=sum(len(q[1]) for q in queued),
        )

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
        entries: dict[tuple[str, int], list[bytes]] = {}  # a batch: one consume-queue extension
        index, pack = self.index, ENTRY.pack
        for phys, data, topic, qid, _qoff, code, keys, uniq in queued:
            key = (topic, qid)
            packed = entries.get(key)
            if packed is None:
                packed = entries[key] = []
            packed.append(pack(phys, len(data), code))
            for k in keys:
                index.add(topic, k, phys)
            if uniq:
                index.add(topic, uniq, phys)
        touched: dict[tuple[str, int], ConsumeQueue] = {}
        for key, packed in entries.items():
            cq = touched[key] = self._cq(*key)
            cq.extend(b"".join(packed))
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


class _Illegal(Exception):
    def __init__(self, status: PutStatus, detail: str) -> None:
        super().__init__(detail)
        self.status = status
