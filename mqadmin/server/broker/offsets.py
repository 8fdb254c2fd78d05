"""ConsumerOffsetManager: committed consumer offsets, persisted to ``config/consumerOffset.json``.

The file is RocketMQ's: ``{"offsetTable": {"topic@group": {"0": 12, "1": 7}}}`` (Java writes the
queue ids unquoted; it reads them quoted too). Commits only change memory; like Java's broker
(``flushConsumerOffsetInterval``) the table is written atomically every few seconds when it
changed, and at stop, so a crash can cost the last few seconds of commits (consumers then
receive those messages again, which at-least-once delivery allows). A file that cannot be read
falls back to its ``.bak``; with neither usable the broker does not start (offsets are never reset
to 0 without a word).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from mqadmin.model.consume import OFFSET_KEY_SEPARATOR as SEPARATOR
from mqadmin.model.consume import offset_table_json, parse_offset_table
from mqadmin.model.names import group_problem, shown, topic_problem
from mqadmin.server.loop import stop_task
from mqadmin.server.persist import read_metadata, write_json

log = logging.getLogger(__name__)


class ConsumerOffsetManager:
    def __init__(self, path: Path, flush_interval: float = 5.0, reset_unreadable: bool = False) -> None:
        self.path = path
        self.flush_interval = flush_interval
        self.reset_unreadable = reset_unreadable
        self._table: dict[str, dict[int, int]] = {}
        self._resets: dict[str, dict[int, int]] = {}
        """Offsets an admin reset and the group's consumers have not picked up yet (kept in memory only,
        as Java's ``resetOffsetTable``): stale commits are ignored until the consumer pulls from there."""
        self._dirty = False
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    def load(self) -> None:
        """The committed offsets (MetadataError naming the file when neither it nor its backup can be
        used: offsets are never reset to 0 silently); entries with illegal names are left out, named."""
        table = read_metadata(self.path, parse_offset_table, reset=self.reset_unreadable) or {}
        for key, offsets in table.items():
            topic, _, group = key.partition(SEPARATOR)
            problem = topic_problem(topic) or group_problem(group)
            if problem is None:
                self._table[key] = offsets
            else:
                log.warning("%s: left out the offsets of %s: %s", self.path, shown(key), problem)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._flush_loop())

    async def close(self) -> None:
        await stop_task(self._task)
        await self.flush()

    # --- reading and writing ---------------------------------------------------------------

    def commit(self, group: str, topic: str, queue_id: int, offset: int) -> bool:
        """Store a consumer's commit; False (nothing stored) while a reset of that queue waits for the
        consumer and the commit is not the reset offset (the consumer has not moved yet)."""
        key = f"{topic}{SEPARATOR}{group}"
        pending = self._resets.get(key, {})
        if queue_id in pending:
            if pending[queue_id] != offset:
                return False
            del pending[queue_id]
        self._store(key, queue_id, offset)
        return True

    def _store(self, key: str, queue_id: int, offset: int) -> None:
        queues = self._table.setdefault(key, {})
        if queues.get(queue_id) != offset:
            queues[queue_id] = offset
            self._dirty = True

    def assign_reset(self, group: str, topic: str, queue_id: int, offset: int) -> None:
        """An admin reset: the offset is committed at once and waits for the group's consumer."""
        key = f"{topic}{SEPARATOR}{group}"
        self._store(key, queue_id, offset)
        self._resets.setdefault(key, {})[queue_id] = offset

    def take_reset(self, group: str, topic: str, queue_id: int) -> int | None:
        """The reset waiting for this queue's consumer, if any (it is then no longer waiting)."""
        pending = self._resets.get(f"{topic}{SEPARATOR}{group}")
        return pending.pop(queue_id, None) if pending else None

    def query(self, group: str, topic: str, queue_id: int) -> int:
        """The committed offset, or -1 when the group never committed one for this queue."""
        return self._table.get(f"{topic}{SEPARATOR}{group}", {}).get(queue_id, -1)

    def topics_of(self, group: str) -> set[str]:
        return {topic for topic, g in self._pairs() if g == group}

    def groups_of(self, topic: str) -> set[str]:
        return {group for t, group in self._pairs() if t == topic}

    def _pairs(self) -> list[tuple[str, str]]:
        return [(t, g) for t, _, g in (key.partition(SEPARATOR) for key in self._table)]

    def delete_group(self, group: str) -> None:
        for key in [k for k in self._table if k.partition(SEPARATOR)[2] == group]:
            del self._table[key]
            self._resets.pop(key, None)
            self._dirty = True

    def delete_topic(self, topic: str) -> None:
        for key in [k for k in self._table if k.partition(SEPARATOR)[0] == topic]:
            del self._table[key]
            self._resets.pop(key, None)
            self._dirty = True

    # --- persistence -----------------------------------------------------------------------

    def snapshot_table(self) -> dict[str, dict[int, int]]:
        """topic@group -> queue id -> offset, a copy (GET_ALL_CONSUMER_OFFSET's answer)."""
        return {key: dict(queues) for key, queues in self._table.items()}

    def snapshot(self) -> dict[str, Any]:
        """The table as consumerOffset.json holds it."""
        return offset_table_json(self._table)

    async def flush(self) -> None:
        """Write the table if it changed since the last write."""
        async with self._lock:
            if not self._dirty:
                return
            self._dirty = False
            try:
                await asyncio.to_thread(write_json, self.path, self.snapshot())
            except OSError as e:
                self._dirty = True
                log.error("writing %s failed: %s", self.path, e)

    async def _flush_loop(self) -> None:
        while True:
            await asyncio.sleep(self.flush_interval)
            await self.flush()
