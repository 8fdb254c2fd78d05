"""One round of Java's MonitorService (``startMonitoring``): for every consumer group with a retry topic and a
consumer online, the messages it has not consumed per topic: in total, on its worst queue, and how far behind
in store time it is (the newest message stored minus the newest it consumed)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from mqadmin.admin.bounded import map_bounded
from mqadmin.admin.consumers import GROUP_CONCURRENCY, ConsumerOps, group_of_retry_topic, route_targets
from mqadmin.admin.errors import reason_of
from mqadmin.model.consume import QueueProgress


@dataclass(frozen=True, slots=True)
class UndoneMsgs:
    """Java's UndoneMsgs: what one group has not consumed of one topic."""

    group: str
    topic: str
    total: int
    """Messages not consumed over every queue."""
    single_mq: int
    """Messages not consumed on the queue furthest behind."""
    delay_ms: int
    """Store time of each queue's newest message minus that of the newest consumed, the largest over queues."""

    def to_json(self) -> dict[str, object]:
        return {
            "consumerGroup": self.group,
            "topic": self.topic,
            "undoneMsgsTotal": self.total,
            "undoneMsgsSingleMQ": self.single_mq,
            "undoneMsgsDelayTimeMills": self.delay_ms,
        }


@dataclass
class MonitorRound:
    undone: list[UndoneMsgs] = field(default_factory=list)
    offline: list[str] = field(default_factory=list)
    """Groups with no consumer online (Java's monitor skips them)."""
    errors: dict[str, str] = field(default_factory=dict)
    """Group → why it could not be examined."""


class MonitorOps(ConsumerOps):
    async def monitor_round(self, limit: int = GROUP_CONCURRENCY) -> MonitorRound:
        """Every group of a ``%RETRY%`` topic, examined concurrently (at most ``limit`` at a time)."""
        topics = set(await self.topic_list())
        groups = sorted({g for t in topics if (g := group_of_retry_topic(t))})
        out = MonitorRound()
        outcomes = await map_bounded(groups, lambda g: self._undone_of(g, topics), limit)
        for group, got in zip(groups, outcomes, strict=True):
            if isinstance(got, Exception):
                out.errors[group] = reason_of(got)
            elif got is None:
                out.offline.append(group)
            else:
                out.undone.extend(got)
        return out

    async def _undone_of(self, group: str, topics: set[str]) -> list[UndoneMsgs] | None:
        progress = await self.group_progress(group, known_topics=topics)
        if progress.connection is None:
            return None
        by_topic: dict[str, list[QueueProgress]] = {}
        for q in progress.queues:
            by_topic.setdefault(q.topic, []).append(q)
        return [await self._undone(group, topic, queues) for topic, queues in sorted(by_topic.items())]

    async def _undone(self, group: str, topic: str, queues: Sequence[QueueProgress]) -> UndoneMsgs:
        diffs = [q.broker_offset - q.consumer_offset for q in queues]
        delay = 0
        if any(q.last_timestamp > 0 for q in queues):
            newest = await self._newest_store_times(topic)
            delay = max(
                (newest.get((q.broker_name, q.queue_id), 0) - q.last_timestamp for q in queues if q.last_timestamp > 0),
                default=0,
            )
        return UndoneMsgs(group, topic, sum(d for d in diffs if d > 0), max([0, *diffs]), max(delay, 0))

    async def _newest_store_times(self, topic: str) -> dict[tuple[str, int], int]:
        """(broker name, queue id) → store time of the queue's newest message (GET_TOPIC_STATS_INFO)."""
        route = await self.first_route([topic])
        out: dict[tuple[str, int], int] = {}
        for t in route_targets(route) if route else []:
            if t.addr:
                for q in await self.topic_stats(t.addr, topic):
                    out[(t.name, q.queue_id)] = q.last_update_timestamp
        return out
