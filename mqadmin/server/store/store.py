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
from pathlib import Path

from mqadmin.server.store.cleanup import StoreCleaning
from mqadmin.server.store.read import StoreReading
from mqadmin.server.store.recovery import StoreRecovery
from mqadmin.server.store.state import tell
from mqadmin.server.store.types import ArrivalListener, FlushDiskType, PutStatus
from mqadmin.server.store.write import StoreWriting


class MessageStore(StoreRecovery, StoreWriting, StoreReading, StoreCleaning):
    """The store's front: its parts are writing (``write``), flushing (``flush``), recovery
    (``recovery``), reading (``read``) and maintenance (``cleanup``), over the state they share (``state``)."""

    # --- life cycle ------------------------------------------------------------------------

    @classmethod
    async def open(cls, data_dir: Path, **kwargs: object) -> MessageStore:
        """Recover the store (in a worker thread) and start its flush tasks."""
        store = cls(data_dir, **kwargs)  # type: ignore[arg-type]  # the constructor's keywords, passed on
        await asyncio.to_thread(store.recover)
        store.start()
        return store

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
        waiters, self._sync_waiters = self._sync_waiters, []
        tell(waiters, PutStatus.PUT_OK)
        self.log.close()

    def add_arrival_listener(self, listener: ArrivalListener) -> None:
        self._listeners.append(listener)
