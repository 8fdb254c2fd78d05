"""Brokers' statistics items (VIEW_BROKER_STATS_DATA) and statsAll: TPS and 24-hour counts per topic and
consumer group, with each group's accumulation."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TypeVar

from mqadmin.admin.core import AdminCore
from mqadmin.admin.errors import ResponseError, reason_of
from mqadmin.admin.fanout import Target, masters
from mqadmin.admin.results import Status, TargetResult
from mqadmin.model import broker_stats as items
from mqadmin.model.broker_stats import BrokerStatsData
from mqadmin.model.exports import DLQ_PREFIX, RETRY_PREFIX
from mqadmin.model.rpc import groups as group_rpc
from mqadmin.model.rpc import namesrv as ns_rpc
from mqadmin.model.rpc import stats as rpc
from mqadmin.model.rpc import topics as topic_rpc
from mqadmin.wire.codes import ResponseCode

STATS_CONCURRENCY = 32
"""Requests in flight at once for statsAll (a cluster of many topics asks each broker several times per topic)."""

NO_CONSUME_DATA = frozenset(
    {ResponseCode.QUERY_NOT_FOUND, ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, ResponseCode.CONSUMER_NOT_ONLINE}
)
"""GET_CONSUME_STATS answers that mean "no progress recorded here", not a failure."""

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class TopicGroupStats:
    """One statsAll row: a topic's put rate and, per consuming group, its get rate and accumulation
    (``group`` None: the topic has no consumer group)."""

    topic: str
    group: str | None
    accumulation: int
    in_tps: float
    out_tps: float | None
    in_24h: int
    out_24h: int | None

    @property
    def active(self) -> bool:
        return self.in_24h > 0 or bool(self.out_24h)


def is_stats_absent(e: ResponseError) -> bool:
    """A broker's answer for an item it has not counted anything for yet."""
    return e.code == ResponseCode.SYSTEM_ERROR and e.remark.startswith("The stats <") and "not exist" in e.remark


class StatsOps(AdminCore):
    async def broker_stats(self, addr: str, name: str, key: str) -> BrokerStatsData | None:
        """VIEW_BROKER_STATS_DATA (315); None when the broker has counted nothing for the item."""
        try:
            reply = await self.request(
                addr, rpc.VIEW_BROKER_STATS_DATA, rpc.StatsItemHeader(stats_name=name, stats_key=key)
            )
        except ResponseError as e:
            if is_stats_absent(e):
                return None
            raise
        return reply.body or BrokerStatsData()

    async def topic_consumed_by(self, addr: str, topic: str) -> list[str]:
        """QUERY_TOPIC_CONSUME_BY_WHO (300): the groups a broker knows consume ``topic``."""
        return (await self.request(addr, rpc.QUERY_TOPIC_CONSUME_BY_WHO, topic_rpc.TopicHeader(topic=topic))).body or []

    async def topic_diff(self, addr: str, group: str, topic: str) -> int:
        """Java's ``ConsumeStats.computeTotalDiff`` on one broker for one topic: broker offset minus consumer
        offset, summed over its queues (0 when the broker has no progress of the group)."""
        header = group_rpc.ConsumeStatsHeader(consumer_group=group, topic=topic)
        try:
            stats = (await self.request(addr, group_rpc.GET_CONSUME_STATS, header)).body
        except ResponseError as e:
            if e.code in NO_CONSUME_DATA:
                return 0
            raise
        return sum(q.broker_offset - q.consumer_offset for q in stats.queues if q.topic == topic) if stats else 0

    async def stats_all(self, topic: str | None = None) -> tuple[list[TopicGroupStats], list[TargetResult]]:
        """Java statsAll: for ``topic`` (else every topic but %RETRY%/%DLQ% ones), the put TPS of the last
        minute and the 24-hour count summed over the masters of its route, and per consuming group (asked of
        every master, not only the first) its get TPS, 24-hour count and accumulation.

        A figure a broker could not give counts as 0 and the broker is reported failed in the results (one
        per master seen); a topic deleted meanwhile is skipped.
        """
        run = _StatsRun(self)
        if topic is not None:
            names = [topic]
        else:
            listed = (await self.request_namesrv(ns_rpc.GET_ALL_TOPIC_LIST_FROM_NAMESERVER)).body or []
            names = sorted(t for t in set(listed) if not t.startswith((RETRY_PREFIX, DLQ_PREFIX)))
        per_topic = await asyncio.gather(*(run.topic(t, must_exist=topic is not None) for t in names))
        return [row for rows in per_topic for row in rows], run.results()


class _StatsRun:
    """One statsAll pass: bounded concurrency and the first failure seen per broker."""

    def __init__(self, admin: StatsOps) -> None:
        self.admin = admin
        self.gate = asyncio.Semaphore(STATS_CONCURRENCY)
        self.brokers: dict[str, Target] = {}
        self.failures: dict[str, str] = {}

    async def limited(self, aw: Awaitable[T]) -> T:
        async with self.gate:
            return await aw

    async def on(self, t: Target, aw: Awaitable[T], default: T) -> T:
        """``aw`` (a request to broker ``t``), or ``default`` after recording the broker's failure."""
        try:
            return await self.limited(aw)
        except Exception as e:
            self.failures.setdefault(t.addr, reason_of(e))
            return default

    def results(self) -> list[TargetResult]:
        return [
            TargetResult(
                t.name, t.addr, Status.FAILED if t.addr in self.failures else Status.OK, self.failures.get(t.addr)
            )
            for t in sorted(self.brokers.values(), key=lambda t: (t.name, t.addr))
        ]

    async def topic(self, topic: str, must_exist: bool) -> list[TopicGroupStats]:
        admin = self.admin
        header = ns_rpc.RouteHeader(topic=topic, accept_standard_json_only=True)
        try:
            reply = await self.limited(admin.request_namesrv(ns_rpc.GET_ROUTEINFO_BY_TOPIC, header))
        except ResponseError as e:
            if e.code == ResponseCode.TOPIC_NOT_EXIST and not must_exist:
                return []
            raise
        targets = [t for t in masters(reply.body.broker_datas if reply.body else []) if t.addr]
        self.brokers.update({t.addr: t for t in targets})
        put = await self.stats_sum(targets, items.TOPIC_PUT_NUMS, topic)
        groups = await asyncio.gather(*(self.on(t, admin.topic_consumed_by(t.addr, topic), []) for t in targets))
        names = sorted({g for gs in groups for g in gs})
        if not names:
            return [TopicGroupStats(topic, None, 0, put[0], None, put[1], None)]
        rows = []
        for group in names:
            out = await self.stats_sum(targets, items.GROUP_GET_NUMS, items.group_stats_key(topic, group))
            lag = await asyncio.gather(*(self.accumulation(t, group, topic) for t in targets))
            rows.append(TopicGroupStats(topic, group, max(sum(lag), 0), put[0], out[0], put[1], out[1]))
        return rows

    async def stats_sum(self, targets: list[Target], name: str, key: str) -> tuple[float, int]:
        """The minute's TPS and the 24-hour count of one item, summed over the brokers."""
        found = await asyncio.gather(*(self.on(t, self.admin.broker_stats(t.addr, name, key), None) for t in targets))
        data = [d for d in found if d is not None]
        return round(sum(d.minute.tps for d in data), 2), sum(d.sum_24h for d in data)

    async def accumulation(self, t: Target, group: str, topic: str) -> int:
        return await self.on(t, self.admin.topic_diff(t.addr, group, topic), 0)
