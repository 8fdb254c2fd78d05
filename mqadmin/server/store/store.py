"""The message store: commit log + consume queues + key index, with group writes and recovery.

Writing. ``put``/``put_batch`` give each message its queue offset and commit-log offset at once
(so callers see them in order), queue the encoded record and schedule one *commit* for the
current event-loop turn. The commit writes every queued record with one ``pwrite`` per segment,
indexes them, wakes waiting pulls, and only then acknowledges: a send is answered after its bytes
are in the operating system. Readers only ever see committed records.

Durability (``flush_disk_type``):

* ``ASYNC_FLUSH`` (default, like RocketMQ): a background flush fsyncs the commit log about every
  0.5 s. An acknowledged message survives the broker process being killed (``kill -9``); a power
  loss or kernel crash can lose roughly the last half second of acknowledged messages.
* ``SYNC_FLUSH``: acknowledgements wait for an fsync of the commit log. Concurrent sends share
  one fsync (group commit). If it takes longer than ``sync_flush_timeout`` the send is answered
  FLUSH_DISK_TIMEOUT (code 10), which clients count as stored-but-not-flushed, as RocketMQ does.

Recovery. The flush also writes the consume-queue and key-index tails, fsyncs them and then
writes ``checkpoint`` (the commit-log offset below which every index entry is on disk). At start
the commit log is validated record by record from the checkpoint on (size, magic, field lengths,
body CRC); a torn tail is cut off; index entries pointing past the recovered end are dropped and
the missing ones are rebuilt from the log, so the indexes and the log always agree.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import shutil
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from pathlib import Path
from typing import Protocol

from mqadmin.files import atomic_write, fsync_dir
from mqadmin.model.names import shown
from mqadmin.model.tags import tags_code
from mqadmin.server.paths import UnsafePath, child
from mqadmin.server.store.commitlog import CommitLog
from mqadmin.server.store.consumequeue import ConsumeQueue, write_at
from mqadmin.server.store.keyindex import KeyIndex
from mqadmin.server.store.records import (
    BadRecord,
    RecordInfo,
    check_header,
    record_properties,
)
from mqadmin.wire.message import (
    PHYS_OFFSET_POS,
    PROPERTY_KEYS,
    PROPERTY_TAGS,
    PROPERTY_UNIQ_KEY,
    STORE_TIMESTAMP_BYTES,
    MessageExt,
    encode_message,
    store_timestamp,
)

log = logging.getLogger(__name__)

DEFAULT_SEGMENT_SIZE = 64 * 1024 * 1024
MAX_TRANSFER_COUNT = 32
"""At most this many messages per pull (RocketMQ's maxTransferCountOnMessageInMemory)."""
MAX_TRANSFER_BYTES = 256 * 1024
"""At most this many bytes per pull, but always at least one message."""
_PHYS = struct.Struct(">q")


class FlushDiskType(StrEnum):
    ASYNC = "ASYNC_FLUSH"
    SYNC = "SYNC_FLUSH"


class PutStatus(Enum):
    PUT_OK = "PUT_OK"
    FLUSH_DISK_TIMEOUT = "FLUSH_DISK_TIMEOUT"
    MESSAGE_ILLEGAL = "MESSAGE_ILLEGAL"
    PROPERTIES_SIZE_EXCEEDED = "PROPERTIES_SIZE_EXCEEDED"
    SERVICE_NOT_AVAILABLE = "SERVICE_NOT_AVAILABLE"


class GetStatus(Enum):
    FOUND = "FOUND"
    NO_MATCHED_MESSAGE = "NO_MATCHED_MESSAGE"
    MESSAGE_WAS_REMOVING = "MESSAGE_WAS_REMOVING"
    OFFSET_FOUND_NULL = "OFFSET_FOUND_NULL"
    OFFSET_OVERFLOW_BADLY = "OFFSET_OVERFLOW_BADLY"
    OFFSET_OVERFLOW_ONE = "OFFSET_OVERFLOW_ONE"
    OFFSET_TOO_SMALL = "OFFSET_TOO_SMALL"
    NO_MATCHED_LOGIC_QUEUE = "NO_MATCHED_LOGIC_QUEUE"
    NO_MESSAGE_IN_QUEUE = "NO_MESSAGE_IN_QUEUE"


@dataclass(slots=True)
class PutResult:
    status: PutStatus
    msg_ids: list[str] = field(default_factory=list)
    queue_offset: int = 0
    phys_offset: int = 0
    wrote_bytes: int = 0
    detail: str = ""

    @property
    def stored(self) -> bool:
        return self.status in (PutStatus.PUT_OK, PutStatus.FLUSH_DISK_TIMEOUT)

    @property
    def msg_id(self) -> str:
        return ",".join(self.msg_ids)


@dataclass(slots=True)
class GetResult:
    status: GetStatus
    next_begin_offset: int
    min_offset: int
    max_offset: int
    messages: list[bytes] = field(default_factory=list)


@dataclass(slots=True)
class Checkpoint:
    """What the last flush made durable: every index entry for records below ``dispatched``."""

    dispatched: int = 0
    segment_size: int = 0
    entries: int = 0
    """Consume-queue entries on disk then; fewer at start means queue files were lost."""
    index_size: int = 0

    def to_json(self) -> dict[str, int]:
        return {
            "dispatched": self.dispatched,
            "entries": self.entries,
            "indexSize": self.index_size,
            "segmentSize": self.segment_size,
        }

    @classmethod
    def from_json(cls, obj: dict[str, int]) -> Checkpoint:
        return cls(
            int(obj.get("dispatched", 0)),
            int(obj.get("segmentSize", 0)),
            int(obj.get("entries", 0)),
            int(obj.get("indexSize", 0)),
        )


class TagFilter(Protocol):
    """What a pull filters by (``SubscriptionData``): the consume queue's tags code, then the tag."""

    @property
    def matches_all(self) -> bool: ...

    def match_code(self, code: int) -> bool: ...

    def match_tags(self, tags: str | None) -> bool: ...


ArrivalListener = Callable[[str, int, int], None]
"""Called with (topic, queueId, new max offset) after messages for that queue were committed."""

# A queued record: (phys, data, topic, queueId, queueOffset, tagsCode, keys, uniqKey)
_Queued = tuple[int, bytearray, str, int, int, int, list[str], str | None]


class MessageStore:
    def __init__(
        self,
        data_dir: Path,
        *,
        segment_size: int = DEFAULT_SEGMENT_SIZE,
        flush_disk_type: FlushDiskType | str = FlushDiskType.ASYNC,
        flush_interval: float = 0.5,
        sync_flush_timeout: float = 5.0,
        store_host: tuple[str, int] = ("127.0.0.1", 10911),
    ) -> None:
        self.data_dir = Path(data_dir)
        self.flush_disk_type = FlushDiskType(flush_disk_type)
        self.flush_interval = flush_interval
        self.sync_flush_timeout = sync_flush_timeout
        self.store_host = store_host
        self._checkpoint_path = self.data_dir / "checkpoint"
        self._cq_dir = self.data_dir / "consumequeue"
        self._segment_size = segment_size
        self.log: CommitLog
        self.index = KeyIndex(self.data_dir / "index" / "keys.idx")
        self._cqs: dict[tuple[str, int], ConsumeQueue] = {}
        self._next_qoff: dict[tuple[str, int], int] = {}
        self._end = 0
        self._next_phys = 0
        self._checkpoint = 0
        self._last_store_ts = 0
        self._queued: list[_Queued] = []
        self._waiters: list[asyncio.Future[PutStatus]] = []
        self._commit_handle: asyncio.Handle | None = None
        self._sync_waiters: list[asyncio.Future[PutStatus]] = []
        self._sync_event: asyncio.Event | None = None
        self._synced = 0
        self._tasks: list[asyncio.Task[None]] = []
        self._flush_lock: asyncio.Lock | None = None
        self._listeners: list[ArrivalListener] = []
        self.closed = True

    # --- life cycle ------------------------------------------------------------------------

    @classmethod
    async def open(cls, data_dir: Path, **kwargs: object) -> MessageStore:
        """Recover the store (in a worker thread) and start its flush tasks."""
        store = cls(data_dir, **kwargs)  # type: ignore[arg-type]
        await asyncio.to_thread(store.recover)
        store.start()
        return store

    def recover(self) -> None:
        """Bring the log and its indexes to a consistent state (see the module docstring)."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        saved = self._read_checkpoint()
        if saved.segment_size and saved.segment_size != self._segment_size:
            log.warning("store: keeping the segment size %d the commit log was written with", saved.segment_size)
            self._segment_size = saved.segment_size
        self.log = CommitLog(self.data_dir / "commitlog", self._segment_size)
        end = self.log.recover(saved.dispatched, lambda info: None)
        begin = min(saved.dispatched, end)
        self._load_consume_queues(end)
        self.index.load(end)
        lost = self._entries() < saved.entries or self.index.file_size < saved.index_size
        if lost:
            log.warning("store: index files lost entries below the checkpoint; re-indexing the whole commit log")
            begin = 0
        if self._redispatch(begin, end) and begin:
            log.warning("store: consume queues have gaps; re-indexing the whole commit log")
            self._redispatch(0, end)
        self._end = self._next_phys = self._synced = end
        tails, idx = self._collect_tails(), self.index.unflushed()
        self._flush_files(begin, end, tails, idx, self._snapshot_checkpoint(end, idx))
        self._mark_flushed(tails, end)
        self.index.mark_flushed(len(idx[1]))
        self.closed = False

    def start(self) -> None:
        """Start the background flush (and, with SYNC_FLUSH, the group-commit flusher)."""
        loop = asyncio.get_running_loop()
        self._flush_lock = asyncio.Lock()
        self._tasks.append(loop.create_task(self._flush_loop()))
        if self.flush_disk_type == FlushDiskType.SYNC:
            self._sync_event = asyncio.Event()
            self._tasks.append(loop.create_task(self._sync_loop()))

    async def close(self) -> None:
        """Commit what is queued, flush everything to disk, write the checkpoint, close files."""
        if self.closed:
            return
        if self._commit_handle is not None:
            self._commit_handle.cancel()
            self._commit()
        self.closed = True
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        await self.flush()
        for fut in self._sync_waiters:
            if not fut.done():
                fut.set_result(PutStatus.PUT_OK)
        self._sync_waiters.clear()
        self.log.close()

    def add_arrival_listener(self, listener: ArrivalListener) -> None:
        self._listeners.append(listener)

    # --- writing ---------------------------------------------------------------------------

    async def put(self, msg: MessageExt) -> PutResult:
        return await self.put_batch([msg])

    async def put_batch(self, msgs: list[MessageExt]) -> PutResult:
        """Store messages of one queue (or one message) atomically, with consecutive queue offsets."""
        if self.closed:
            return PutResult(PutStatus.SERVICE_NOT_AVAILABLE, detail="the message store is closed")
        if not msgs:
            return PutResult(PutStatus.MESSAGE_ILLEGAL, detail="no message to store")
        try:
            result, fut = self._enqueue(msgs)
        except _Illegal as e:
            return PutResult(e.status, detail=str(e))
        status = await self._wait_stored(fut)
        result.status = status
        return result

    def _enqueue(self, msgs: list[MessageExt]) -> tuple[PutResult, asyncio.Future[PutStatus]]:
        now = int(time.time() * 1000)
        if now < self._last_store_ts:
            now = self._last_store_ts
        self._last_store_ts = now
        queued: list[_Queued] = []
        next_qoff: dict[tuple[str, int], int] = {}
        phys = self._next_phys
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
            m.store_host = self.store_host
            try:
                data = bytearray(encode_message(m))
            except struct.error as e:
                raise _Illegal(PutStatus.MESSAGE_ILLEGAL, f"a header field is out of range: {e}") from None
            except ValueError as e:
                status = PutStatus.PROPERTIES_SIZE_EXCEEDED if "properties" in str(e) else PutStatus.MESSAGE_ILLEGAL
                raise _Illegal(status, str(e)) from None
            if len(data) > self._segment_size:
                raise _Illegal(
                    PutStatus.MESSAGE_ILLEGAL,
                    f"the stored message takes {len(data)} bytes, more than a commit-log segment "
                    f"({self._segment_size})",
                )
            phys = self.log.place(phys, len(data))
            m.commit_log_offset = phys
            _PHYS.pack_into(data, PHYS_OFFSET_POS, phys)
            props = m.properties
            keys = [k for k in props.get(PROPERTY_KEYS, "").split(" ") if k]
            code = tags_code(props.get(PROPERTY_TAGS))
            queued.append((phys, data, m.topic, m.queue_id, qoff, code, keys, props.get(PROPERTY_UNIQ_KEY)))
            next_qoff[key] = qoff + 1
            phys += len(data)
        self._next_phys = phys
        self._next_qoff.update(next_qoff)
        self._queued.extend(queued)
        fut: asyncio.Future[PutStatus] = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        if self._commit_handle is None:
            self._commit_handle = asyncio.get_running_loop().call_soon(self._commit)
        first = queued[0]
        result = PutResult(
            PutStatus.PUT_OK,
            msg_ids=[m.msg_id for m in msgs],
            queue_offset=first[4],
            phys_offset=first[0],
            wrote_bytes=sum(len(q[1]) for q in queued),
        )
        return result, fut

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
            for fut in waiters:
                if not fut.done():
                    fut.set_result(PutStatus.SERVICE_NOT_AVAILABLE)
            return
        touched: dict[tuple[str, int], ConsumeQueue] = {}
        index = self.index
        for phys, data, topic, qid, _qoff, code, keys, uniq in queued:
            key = (topic, qid)
            cq = touched.get(key) or self._cq(topic, qid)
            cq.append(phys, len(data), code)
            touched[key] = cq
            for k in keys:
                index.add(topic, k, phys)
            if uniq:
                index.add(topic, uniq, phys)
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
            for fut in waiters:
                if not fut.done():
                    fut.set_result(PutStatus.PUT_OK)

    def _write(self, queued: list[_Queued]) -> None:
        """One pwrite per run of records that are contiguous within one segment."""
        run_start = queued[0][0]
        run: list[bytearray] = []
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

    def _cq(self, topic: str, qid: int) -> ConsumeQueue:
        """The queue's index, made on first use; raises UnsafePath when its file would not be
        ``consumequeue/<topic>/<queueId>`` inside the data directory."""
        key = (topic, qid)
        cq = self._cqs.get(key)
        if cq is None:
            path = child(child(self._cq_dir, topic), str(qid))
            cq = self._cqs[key] = ConsumeQueue(topic, qid, path)
        return cq

    # --- flushing --------------------------------------------------------------------------

    async def _flush_loop(self) -> None:
        while True:
            await asyncio.sleep(self.flush_interval)
            try:
                # shielded: a flush cancelled mid-write would leave its worker thread running
                # alongside the final flush of close()
                await asyncio.shield(self.flush())
            except asyncio.CancelledError:
                raise
            except Exception:  # keep flushing; the next round retries
                log.exception("store: flush failed")

    async def flush(self) -> None:
        """Write index tails, fsync log and indexes, then advance the checkpoint."""
        lock = self._flush_lock or asyncio.Lock()
        async with lock:
            end = self._end
            tails = self._collect_tails()
            idx = self.index.unflushed()
            if end == self._checkpoint and not tails and not idx[1]:
                return
            begin = self._checkpoint
            state = self._snapshot_checkpoint(end, idx)
            await asyncio.to_thread(self._flush_files, begin, end, tails, idx, state)
            self._mark_flushed(tails, end)
            self.index.mark_flushed(len(idx[1]))

    def _collect_tails(self) -> list[tuple[ConsumeQueue, int, bytes]]:
        out = []
        for cq in self._cqs.values():
            if cq.flushed < len(cq.entries):
                pos, data = cq.unflushed()
                out.append((cq, pos, data))
        return out

    def _mark_flushed(self, tails: list[tuple[ConsumeQueue, int, bytes]], end: int) -> None:
        for cq, pos, data in tails:
            cq.flushed = max(cq.flushed, pos + len(data))
        self._checkpoint = end

    def _flush_files(
        self,
        begin: int,
        end: int,
        tails: list[tuple[ConsumeQueue, int, bytes]],
        idx: tuple[int, bytes],
        checkpoint: Checkpoint,
    ) -> None:
        """Runs in a worker thread: fsync the log, write+fsync index tails, write the checkpoint."""
        self.log.fsync(begin, end)
        dirs: set[Path] = set()
        for cq, pos, data in tails:
            if write_at(cq.path, pos, data):
                dirs.add(cq.path.parent)
                dirs.add(cq.path.parent.parent)
        pos, data = idx
        if data and write_at(self.index.path, pos, data):
            dirs.add(self.index.path.parent)
        for d in dirs:
            fsync_dir(d)
        atomic_write(self._checkpoint_path, json.dumps(checkpoint.to_json()).encode())

    async def _sync_loop(self) -> None:
        assert self._sync_event is not None
        while True:
            await self._sync_event.wait()
            self._sync_event.clear()
            waiters, self._sync_waiters = self._sync_waiters, []
            end = self._end
            try:
                await asyncio.to_thread(self.log.fsync, self._synced, end)
                self._synced = end
                status = PutStatus.PUT_OK
            except OSError as e:
                log.error("store: fsync of the commit log failed: %s", e)
                status = PutStatus.FLUSH_DISK_TIMEOUT
            except asyncio.CancelledError:
                self._sync_waiters[:0] = waiters  # close() answers them after its final flush
                raise
            for fut in waiters:
                if not fut.done():
                    fut.set_result(status)

    # --- recovery helpers ------------------------------------------------------------------

    def _read_checkpoint(self) -> Checkpoint:
        """The last checkpoint, else its backup; without either the whole commit log is re-indexed
        (nothing is lost, start-up just takes longer), which a warning names."""
        for path in (self._checkpoint_path, self._checkpoint_path.with_name("checkpoint.bak")):
            try:
                return Checkpoint.from_json(json.loads(path.read_bytes()))
            except FileNotFoundError:
                continue
            except (ValueError, AttributeError, TypeError) as e:
                log.warning("store: %s cannot be read (%s); trying its backup", path, type(e).__name__)
        if self._checkpoint_path.parent.joinpath("commitlog").is_dir():
            log.warning("store: no usable checkpoint in %s; re-indexing the whole commit log", self.data_dir)
        return Checkpoint()

    def _snapshot_checkpoint(self, end: int, idx: tuple[int, bytes]) -> Checkpoint:
        """The checkpoint to write once the tails taken now (``idx`` and every queue's) are on disk."""
        return Checkpoint(end, self._segment_size, self._entries(), idx[0] + len(idx[1]))

    def _entries(self) -> int:
        return sum(cq.count for cq in self._cqs.values())

    def _load_consume_queues(self, log_end: int) -> None:
        if not self._cq_dir.is_dir():
            return
        for topic_dir in self._cq_dir.iterdir():
            if not topic_dir.is_dir():
                continue
            for qfile in topic_dir.iterdir():
                if qfile.name.isdigit() and qfile.is_file():
                    try:
                        cq = self._cq(topic_dir.name, int(qfile.name))
                    except UnsafePath as e:
                        log.warning("store: ignoring consume queue %s: %s", qfile, e)
                        continue
                    cq.load(log_end)

    def _redispatch(self, begin: int, end: int) -> bool:
        """Index the records in ``[begin, end)`` that the indexes lack; True if a queue had a gap."""
        gaps = False
        unsafe: dict[str, int] = {}

        def visit(info: RecordInfo) -> None:
            nonlocal gaps
            try:
                cq = self._cq(info.topic, info.queue_id)
            except UnsafePath:
                unsafe[info.topic] = unsafe.get(info.topic, 0) + 1
                return
            if info.queue_offset == cq.count:
                cq.append(info.phys_offset, info.size, info.tags_code)
            elif info.queue_offset > cq.count:
                gaps = True
            if info.phys_offset > self.index.max_offset:
                for k in info.keys:
                    self.index.add(info.topic, k, info.phys_offset)
                if info.uniq_key:
                    self.index.add(info.topic, info.uniq_key, info.phys_offset)
            self._last_store_ts = max(self._last_store_ts, info.store_timestamp)

        if begin < end:
            self.log.recover(begin, visit)
        for topic, n in unsafe.items():
            log.warning("store: %d message(s) of topic %s left unindexed: not a safe directory name", n, shown(topic))
        return gaps

    # --- reading ---------------------------------------------------------------------------

    @property
    def max_phys_offset(self) -> int:
        """The end of the committed commit log."""
        return self._end

    @property
    def min_phys_offset(self) -> int:
        segments = self.log.segments()
        return segments[0] if segments else 0

    @property
    def last_store_timestamp(self) -> int:
        return self._last_store_ts

    def max_offset(self, topic: str, queue_id: int) -> int:
        cq = self._cqs.get((topic, queue_id))
        return cq.count if cq is not None else 0

    def min_offset(self, topic: str, queue_id: int) -> int:
        return 0

    def queues(self, topic: str) -> list[int]:
        return sorted(qid for (t, qid) in self._cqs if t == topic)

    def get_messages(
        self, topic: str, queue_id: int, offset: int, max_nums: int, sub: TagFilter | None = None
    ) -> GetResult:
        """RocketMQ's ``getMessage``: the statuses and next offsets its PULL_MESSAGE relies on."""
        cq = self._cqs.get((topic, queue_id))
        if cq is None:
            return GetResult(GetStatus.NO_MATCHED_LOGIC_QUEUE, 0, 0, 0)
        lo, hi = 0, cq.count
        if hi == 0:
            return GetResult(GetStatus.NO_MESSAGE_IN_QUEUE, 0, lo, hi)
        if offset < lo:
            return GetResult(GetStatus.OFFSET_TOO_SMALL, lo, lo, hi)
        if offset == hi:
            return GetResult(GetStatus.OFFSET_OVERFLOW_ONE, offset, lo, hi)
        if offset > hi:
            return GetResult(GetStatus.OFFSET_OVERFLOW_BADLY, hi, lo, hi)
        limit = max(1, min(max_nums, MAX_TRANSFER_COUNT))
        scan_end = min(hi, offset + max(16000, max_nums * 20) // 20)
        filtering = sub is not None and not sub.matches_all
        picked: list[tuple[int, int]] = []
        total = 0
        i = offset
        while i < scan_end:
            phys, size, code = cq.entry(i)
            if picked and (len(picked) >= limit or total + size > MAX_TRANSFER_BYTES):
                break
            i += 1
            if filtering and not sub.match_code(code):  # type: ignore[union-attr]
                continue
            picked.append((phys, size))
            total += size
        messages = self._read_runs(picked)
        if messages is None:
            return GetResult(GetStatus.MESSAGE_WAS_REMOVING, i, lo, hi)
        if filtering:
            messages = [m for m in messages if sub.match_tags(_tags_of(m))]  # type: ignore[union-attr]
        status = GetStatus.FOUND if messages else GetStatus.NO_MATCHED_MESSAGE
        return GetResult(status, i, lo, hi, messages)

    def _read_runs(self, picked: list[tuple[int, int]]) -> list[bytes] | None:
        """Read the picked records, one pread per physically contiguous run."""
        out: list[bytes] = []
        j = 0
        while j < len(picked):
            start, size = picked[j]
            k = j + 1
            end = start + size
            while (
                k < len(picked) and picked[k][0] == end and self.log.segment_start(end) == self.log.segment_start(start)
            ):
                end += picked[k][1]
                k += 1
            data = self.log.read(start, end - start)
            if len(data) != end - start:
                return None
            pos = 0
            for _phys, sz in picked[j:k]:
                out.append(data[pos : pos + sz])
                pos += sz
            j = k
        return out

    def read_message(self, phys: int) -> bytes | None:
        """The stored message starting exactly at commit-log offset ``phys`` (VIEW_MESSAGE_BY_ID)."""
        if phys < 0 or phys >= self._end:
            return None
        header = self.log.read(phys, STORE_TIMESTAMP_BYTES)
        try:
            size = check_header(header, 0, self._segment_size)
        except BadRecord:
            return None
        if (
            len(header) < STORE_TIMESTAMP_BYTES
            or _PHYS.unpack_from(header, PHYS_OFFSET_POS)[0] != phys
            or phys + size > self._end
        ):
            return None
        data = self.log.read(phys, size)
        return data if len(data) == size else None

    def message_at(self, topic: str, queue_id: int, offset: int) -> bytes | None:
        cq = self._cqs.get((topic, queue_id))
        if cq is None or not 0 <= offset < cq.count:
            return None
        phys, size, _ = cq.entry(offset)
        data = self.log.read(phys, size)
        return data if len(data) == size else None

    def store_time(self, topic: str, queue_id: int, offset: int) -> int:
        """STORETIMESTAMP of the message at a queue offset, 0 if there is none."""
        cq = self._cqs.get((topic, queue_id))
        if cq is None or not 0 <= offset < cq.count:
            return 0
        phys, _size, _ = cq.entry(offset)
        header = self.log.read(phys, STORE_TIMESTAMP_BYTES)
        return store_timestamp(header) if len(header) == STORE_TIMESTAMP_BYTES else 0

    def search_offset(self, topic: str, queue_id: int, timestamp: int) -> int:
        """The first queue offset whose message was stored at or after ``timestamp``."""
        lo, hi = 0, self.max_offset(topic, queue_id)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.store_time(topic, queue_id, mid) < timestamp:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def query(
        self, topic: str, key: str, max_num: int, begin: int = 0, end: int = 1 << 62, *, unique: bool = False
    ) -> list[bytes]:
        """Messages of ``topic`` with ``key`` among their KEYS (or as UNIQ_KEY when ``unique``), newest
        first. The time range applies to key queries only: a unique key names one message."""
        out: list[bytes] = []
        for phys in self.index.lookup(topic, key):
            if len(out) >= max_num:
                break
            data = self.read_message(phys)
            if data is None:
                continue
            try:
                info, props = record_properties(data)
            except BadRecord:
                continue
            if info.topic != topic:
                continue
            if unique:
                if props.get(PROPERTY_UNIQ_KEY) != key:
                    continue
            elif key not in info.keys or not begin <= info.store_timestamp <= end:
                continue
            out.append(data)
        return out

    async def delete_topic(self, topic: str) -> None:
        """Drop the topic's consume queues (its records stay in the commit log, as in RocketMQ)."""
        path = child(self._cq_dir, topic)  # raises UnsafePath before anything changes
        lock = self._flush_lock or asyncio.Lock()
        async with lock:
            for key in [k for k in self._cqs if k[0] == topic]:
                del self._cqs[key]
                self._next_qoff.pop(key, None)
            if path.is_dir():
                await asyncio.to_thread(shutil.rmtree, path, True)


class _Illegal(Exception):
    def __init__(self, status: PutStatus, detail: str) -> None:
        super().__init__(detail)
        self.status = status


def _tags_of(record: bytes) -> str | None:
    try:
        _info, props = record_properties(record)
    except BadRecord:
        return None
    return props.get(PROPERTY_TAGS)
