"""Recovery: bring the commit log and its indexes to a consistent state at start (see
``mqadmin.server.store.store``)."""

from __future__ import annotations

import json
import logging

from mqadmin.model.names import shown
from mqadmin.server.paths import UnsafePath
from mqadmin.server.store.commitlog import CommitLog
from mqadmin.server.store.flush import Checkpoint, StoreFlushing
from mqadmin.server.store.records import RecordInfo

log = logging.getLogger(__name__)


class StoreRecovery(StoreFlushing):
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
