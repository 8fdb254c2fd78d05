"""Store maintenance, as Apache's DefaultMessageStore does it: deleting expired commit-log segments
(DELETE_EXPIRED_COMMITLOG, and the broker's periodic clean at its deleteWhen hours; fileReservedTime says how
long they are kept), dropping consume queues whose every
message was in deleted segments (CLEAN_EXPIRED_CONSUMEQUEUE) and the queues of topics the broker no longer
has (CLEAN_UNUSED_TOPIC).

A queue's messages in a deleted segment are gone: its min offset moves to its first message still in the log
(``StoreReading.min_offset``), so pulls below it are answered OFFSET_TOO_SMALL and consumers move on, as from
an Apache broker whose files expired."""

from __future__ import annotations

import asyncio
import logging
import shutil
import time
from collections.abc import Collection

from mqadmin.model.names import is_system_topic
from mqadmin.server.paths import child
from mqadmin.server.store.state import StoreState

log = logging.getLogger(__name__)

LMQ_PREFIX = "%LMQ%"


class StoreCleaning(StoreState):
    async def delete_expired_segments(self, reserved_hours: float, now: float | None = None) -> list[int]:
        """Delete, oldest first, the commit-log segments last written more than ``reserved_hours`` ago; never
        the segment being written nor one holding bytes not yet flushed and indexed (Apache never deletes
        the last file either). Returns the start offsets of the deleted segments."""
        cutoff = (time.time() if now is None else now) - reserved_hours * 3600
        lock = self._flush_lock or asyncio.Lock()
        deleted: list[int] = []
        async with lock:
            for start in self.log.segments()[:-1]:
                if start + self._segment_size > self._checkpoint or self.log.modified(start) > cutoff:
                    break  # the log stays contiguous: a newer segment is never deleted before an older one
                self.log.remove(start)
                deleted.append(start)
        if deleted:
            log.info("store: deleted %d expired commit-log segment(s) below offset %d", len(deleted), self.log.first)
        return deleted

    async def clean_expired_queues(self) -> list[tuple[str, int]]:
        """Drop the consume queues of non-system topics whose last message lies below the commit log's first
        offset: they hold nothing readable. As in Apache, such a queue then starts again at offset 0."""
        first = self.log.first
        expired = [
            key
            for key, cq in self._cqs.items()
            if cq.count and not is_system_topic(key[0]) and cq.entry(cq.count - 1)[0] < first
        ]
        for topic, qid in expired:
            await self.drop_queues(topic, [qid])
        return expired

    async def clean_unused_topics(self, retain: Collection[str]) -> list[str]:
        """Drop the consume queues of every topic not in ``retain`` (the broker's topic table), except system
        and LMQ topics; returns the topics dropped."""
        unused = sorted(
            {t for t, _ in self._cqs if t not in retain and not is_system_topic(t) and not t.startswith(LMQ_PREFIX)}
        )
        for topic in unused:
            await self.drop_queues(topic, None)
        return unused

    async def delete_topic(self, topic: str) -> None:
        """Drop the topic's consume queues (its records stay in the commit log, as in RocketMQ)."""
        await self.drop_queues(topic, None)

    async def drop_queues(self, topic: str, queue_ids: list[int] | None) -> None:
        """Drop some (or, with None, every) consume queue of ``topic`` with its file; the messages stay in the
        commit log."""
        topic_dir = child(self._cq_dir, topic)  # raises UnsafePath before anything changes
        lock = self._flush_lock or asyncio.Lock()
        async with lock:
            for key in [k for k in self._cqs if k[0] == topic and (queue_ids is None or k[1] in queue_ids)]:
                del self._cqs[key]
                self._next_qoff.pop(key, None)
            if queue_ids is None:
                await asyncio.to_thread(shutil.rmtree, topic_dir, True)
            else:
                for qid in queue_ids:
                    child(topic_dir, str(qid)).unlink(missing_ok=True)
