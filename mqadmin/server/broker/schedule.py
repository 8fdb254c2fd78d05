"""Delay levels: delayed messages and consumer retries wait in SCHEDULE_TOPIC_XXXX until they are due, as
in RocketMQ's ``ScheduleMessageService``.

A message stored with the DELAY property (level 1..N, capped at N; a consumer's send-back uses level
``3 + reconsumeTimes``) goes to queue ``level - 1`` of SCHEDULE_TOPIC_XXXX instead of its topic, with its
topic and queue kept in REAL_TOPIC and REAL_QID. Level *n* waits the *n*-th duration of the broker's
``messageDelayLevel`` (Java's default ``1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h``). One
task per level delivers its queue in order: a message is due at its store time plus the level's delay
(each queue is in store-time order, so the head is always the next one due), and is then stored again in
its real topic and queue without DELAY (REAL_TOPIC and REAL_QID stay, as Java leaves them).

Durability: the delayed message is in the commit log like any other, acknowledged on the same terms. The
progress of each level (the next queue offset to deliver) is advanced only after the delivered copy is
stored, and is written to ``config/delayOffset.json`` every few seconds and at stop (kept by the same
manager as consumer offsets). A crash can therefore deliver a message twice (it is stored again from the
last written progress on), never lose one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from functools import lru_cache
from pathlib import Path

from mqadmin.server.broker.brokerstore import BrokerParts
from mqadmin.server.broker.offsets import ConsumerOffsetManager
from mqadmin.wire.message import MessageDecodeError, MessageExt, decode_message

log = logging.getLogger(__name__)

SCHEDULE_TOPIC = "SCHEDULE_TOPIC_XXXX"
PROGRESS_GROUP = "SCHEDULE_PROGRESS"
"""The key the per-level progress is kept under in delayOffset.json (``SCHEDULE_TOPIC_XXXX@…``)."""
PROPERTY_DELAY = "DELAY"
PROPERTY_REAL_TOPIC = "REAL_TOPIC"
PROPERTY_REAL_QID = "REAL_QID"
RETRY_FIRST_LEVEL = 3
"""A consumer's send-back without a delay level waits level ``3 + reconsumeTimes`` (Java)."""
RETRY_AFTER_FAILED_PUT = 1.0
_UNITS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_LEVEL = re.compile(r"(\d+)(ms|s|m|h|d)")


@lru_cache(maxsize=8)
def delay_levels(text: str) -> tuple[int, ...]:
    """``messageDelayLevel`` (``1s 5s 10s …``; units ms, s, m, h, d) as milliseconds per level; ValueError
    naming the bad entry."""
    out = []
    for item in text.split():
        m = _LEVEL.fullmatch(item)
        if m is None:
            raise ValueError(f"messageDelayLevel: {item!r} is not a duration such as 5s, 1m, 2h or 1d")
        out.append(int(m.group(1)) * _UNITS[m.group(2)])
    if not out:
        raise ValueError("messageDelayLevel is empty")
    return tuple(out)


def delay_level_of(msg: MessageExt) -> int:
    try:
        return int(msg.properties.get(PROPERTY_DELAY, "0"))
    except ValueError:
        return 0


def schedule_if_delayed(msg: MessageExt, levels: tuple[int, ...]) -> bool:
    """Turn a message with a positive DELAY into its SCHEDULE_TOPIC_XXXX form (Java's
    ``transformDelayLevelMessage``), in place; True when it was delayed."""
    level = delay_level_of(msg)
    if level <= 0:
        return False
    level = min(level, len(levels))
    msg.properties[PROPERTY_DELAY] = str(level)
    msg.properties[PROPERTY_REAL_TOPIC] = msg.topic
    msg.properties[PROPERTY_REAL_QID] = str(msg.queue_id)
    msg.topic, msg.queue_id = SCHEDULE_TOPIC, level - 1
    return True


def due_copy(msg: MessageExt) -> MessageExt:
    """The message to store once due (Java's ``messageTimeUp``): its real topic and queue, without DELAY."""
    props = {
        k: v for k, v in msg.properties.items() if k not in (PROPERTY_DELAY, "TIMER_DELIVER_MS", "TIMER_DELAY_SEC")
    }
    return MessageExt(
        topic=msg.properties[PROPERTY_REAL_TOPIC], body=msg.body, queue_id=int(msg.properties[PROPERTY_REAL_QID]),
        flag=msg.flag, sys_flag=msg.sys_flag, born_timestamp=msg.born_timestamp, born_host=msg.born_host,
        reconsume_times=msg.reconsume_times, properties=props,
    )  # fmt: skip


class ScheduleService:
    """One delivery task per delay level (see the module docstring)."""

    def __init__(self, parts: BrokerParts, progress_path: Path) -> None:
        self.config = parts.config
        self.stats = parts.stats
        self.messages = parts.store.messages
        self.levels: tuple[int, ...] = ()
        self.progress = ConsumerOffsetManager(progress_path, reset_unreadable=parts.config.reset_unreadable_metadata)
        self._wake: list[asyncio.Event] = []
        self._tasks: list[asyncio.Task[None]] = []
        self.messages.add_arrival_listener(self._arrived)

    def configure(self) -> None:
        """Read ``messageDelayLevel`` and the progress file: a bad setting or an unreadable file stops the
        broker's start before anything runs (ValueError naming it)."""
        self.levels = delay_levels(self.config.message_delay_level)
        self._wake = [asyncio.Event() for _ in self.levels]
        self.progress.load()

    def start(self) -> None:
        """One delivery task per level (after ``configure`` and once the message store is recovered)."""
        self.progress.start()
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._deliver(level)) for level in range(1, len(self.levels) + 1)]

    async def close(self) -> None:
        for t in self._tasks:
            t.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        await self.progress.close()

    def pending(self, level: int) -> int:
        """Messages of a level not yet delivered."""
        return max(0, self.messages.max_offset(SCHEDULE_TOPIC, level - 1) - self._next(level))

    def _next(self, level: int) -> int:
        return max(0, self.progress.query(PROGRESS_GROUP, SCHEDULE_TOPIC, level - 1))

    def _arrived(self, topic: str, queue_id: int, max_offset: int) -> None:
        if topic == SCHEDULE_TOPIC and 0 <= queue_id < len(self._wake):
            self._wake[queue_id].set()

    async def _deliver(self, level: int) -> None:
        qid, delay, wake = level - 1, self.levels[level - 1], self._wake[level - 1]
        while True:
            offset = self._next(level)
            if offset >= self.messages.max_offset(SCHEDULE_TOPIC, qid):
                wake.clear()
                if offset >= self.messages.max_offset(SCHEDULE_TOPIC, qid):
                    await wake.wait()
                continue
            wait_ms = self.messages.store_time(SCHEDULE_TOPIC, qid, offset) + delay - int(time.time() * 1000)
            if wait_ms > 0:
                await asyncio.sleep(wait_ms / 1000)
                continue
            if await self._deliver_one(qid, offset):
                self.progress.commit(PROGRESS_GROUP, SCHEDULE_TOPIC, qid, offset + 1)
            else:
                await asyncio.sleep(RETRY_AFTER_FAILED_PUT)

    async def _deliver_one(self, qid: int, offset: int) -> bool:
        """Store the due copy of the message at ``offset``; False when it must be tried again."""
        data = self.messages.message_at(SCHEDULE_TOPIC, qid, offset)
        try:
            msg, _ = decode_message(data or b"", decompress=False)
            copy = due_copy(msg)
        except (MessageDecodeError, KeyError, ValueError) as e:  # nothing to deliver: skip it, named
            log.error("schedule: level %d offset %d cannot be delivered and is skipped: %s", qid + 1, offset, e)
            return True
        result = await self.messages.put(copy)
        if not result.stored:
            log.warning("schedule: storing the due message at level %d offset %d failed: %s", qid + 1, offset,
                        result.detail or result.status.name)  # fmt: skip
            return False
        self.stats.record_put(1)
        return True
