"""The state the parts of the message store share (``MessageStore`` is built from them: writing,
flushing, recovery, reading), and the consume queue of a (topic, queue id)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

from mqadmin.server.paths import child
from mqadmin.server.store.commitlog import CommitLog
from mqadmin.server.store.consumequeue import ConsumeQueue
from mqadmin.server.store.keyindex import KeyIndex
from mqadmin.server.store.types import (
    DEFAULT_SEGMENT_SIZE,
    MAX_TRANSFER_BYTES,
    MAX_TRANSFER_COUNT,
    ArrivalListener,
    FlushDiskType,
    PutStatus,
)

log = logging.getLogger(__name__)

Queued = tuple[int, bytes | bytearray, str, int, bytes | bytearray, list[tuple[bytes, int]]]
"""Records of one queue waiting for the commit: (phys, data, topic, queueId, consume-queue entries, index keys)."""
Stored = Callable[[PutStatus], None]
"""Told a queued write's status once it is committed (ASYNC_FLUSH) or fsynced (SYNC_FLUSH),
in that turn of the loop (no future, no extra turn)."""


class StoreState:
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
        self.max_transfer_count = MAX_TRANSFER_COUNT
        """Most messages one pull returns (Java maxTransferCountOnMessageInMemory)."""
        self.max_transfer_bytes = MAX_TRANSFER_BYTES
        """Most bytes one pull returns, past its first message (Java maxTransferBytesOnMessageInMemory)."""
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
        self._queued: list[Queued] = []
        self._waiters: list[Stored] = []
        self._commit_handle: asyncio.Handle | None = None
        self._sync_waiters: list[Stored] = []
        self._sync_event: asyncio.Event | None = None
        self._synced = 0
        self._tasks: list[asyncio.Task[None]] = []
        self._flush_lock: asyncio.Lock | None = None
        self._listeners: list[ArrivalListener] = []
        self.closed = True

    def _cq(self, topic: str, qid: int) -> ConsumeQueue:
        """The queue's index, made on first use; raises UnsafePath when its file would not be
        ``consumequeue/<topic>/<queueId>`` inside the data directory."""
        key = (topic, qid)
        cq = self._cqs.get(key)
        if cq is None:
            path = child(child(self._cq_dir, topic), str(qid))
            cq = self._cqs[key] = ConsumeQueue(topic, qid, path)
        return cq


def tell(waiters: list[Stored], status: PutStatus) -> None:
    """Give every waiter its status; one that raises must not keep the others from theirs."""
    for stored in waiters:
        try:
            stored(status)
        except Exception:
            log.exception("store: a write's waiter failed")
