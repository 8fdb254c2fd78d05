"""Flushing: fsync the commit log, write and fsync the consume-queue and key-index tails, then the
checkpoint (and, with SYNC_FLUSH, the group-commit fsync that acknowledgements wait for)."""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from pathlib import Path

from mqadmin.files import atomic_write, fsync_dir
from mqadmin.server.store.consumequeue import ConsumeQueue, write_at
from mqadmin.server.store.state import StoreState, tell
from mqadmin.server.store.types import PutStatus

log = logging.getLogger(__name__)


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


class StoreFlushing(StoreState):
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
            tell(waiters, status)

    def _snapshot_checkpoint(self, end: int, idx: tuple[int, bytes]) -> Checkpoint:
        """The checkpoint to write once the tails taken now (``idx`` and every queue's) are on disk."""
        return Checkpoint(end, self._segment_size, self._entries(), idx[0] + len(idx[1]))

    def _entries(self) -> int:
        return sum(cq.count for cq in self._cqs.values())
