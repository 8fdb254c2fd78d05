"""Topics in bulk: create or update many topics on each broker (updateTopicList), and list every topic with
its clusters and consumer groups (topicList -c).

Bulk changes read each broker's current configs first (one GET_ALL_TOPIC_CONFIG, or one GET_TOPIC_CONFIG
per topic for a short list), leave identical topics alone (``unchanged``), and send the rest in
UPDATE_AND_CREATE_TOPIC_LIST (18) chunks where the broker has that request (5.3+), else one
UPDATE_AND_CREATE_TOPIC (17) per topic, by the rule of ``mqadmin.admin.batch`` (a refused chunk is sent
again topic by topic, so each topic gets its own answer). Sending only what changed matters beyond speed: a
Java broker answers a whole list request with success, applying nothing, as soon as one of its topics equals
what it holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from mqadmin.admin.batch import SINGLES_IN_FLIGHT, write_many
from mqadmin.admin.bounded import map_bounded
from mqadmin.admin.errors import reason_of
from mqadmin.admin.fanout import Target, fan_out
from mqadmin.admin.results import Status, TargetResult
from mqadmin.admin.topic_routes import route_clusters
from mqadmin.admin.topics import TopicChange, TopicOps, changes_between
from mqadmin.model.names import DLQ_PREFIX, RETRY_PREFIX
from mqadmin.model.route import ClusterInfo
from mqadmin.model.rpc import topics as rpc
from mqadmin.model.topic import TopicConfig, attribute_ops
from mqadmin.model.topic_batch import attribute_changes, list_entry

CHUNK = 1000
"""Topics per UPDATE_AND_CREATE_TOPIC_LIST request (about 200 KB of body)."""
CHUNKS_IN_FLIGHT = 2
"""A Java broker handles list requests one at a time; a second one in flight hides the round trip."""
QUERIES_IN_FLIGHT = 32
"""Topics looked up at once by ``topic_usage``."""


@dataclass(slots=True)
class TopicResult:
    """What happened to one topic on one broker."""

    topic: str
    result: TargetResult


@dataclass(slots=True)
class TopicUsage:
    """One topic for ``topicList -c``: the clusters its brokers belong to and the groups consuming it."""

    topic: str
    clusters: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    reason: str | None = None


@dataclass(slots=True)
class _Pending:
    topic: str
    wanted: TopicConfig
    current: TopicConfig | None
    changes: dict[str, tuple[object, object]]

    def done(self, target: Target) -> TopicResult:
        status = Status.CREATED if self.current is None else Status.UPDATED
        return TopicResult(
            self.topic, TargetResult(target.name, target.addr, status, changes=self.changes, data=self.wanted)
        )

    def failed(self, target: Target, error: Exception) -> TopicResult:
        return TopicResult(self.topic, TargetResult.failure(target.name, target.addr, error))


class TopicBatchOps(TopicOps):
    async def update_topics_on(
        self, targets: Sequence[Target], changes: Sequence[TopicChange], new_topic: dict[str, TopicConfig]
    ) -> list[TopicResult]:
        """Apply every change on every target (brokers concurrently); one result per topic per broker,
        ordered by topic then broker. ``new_topic`` gives the base config of a topic a broker lacks."""
        per_broker = await fan_out(
            targets,
            lambda t: self._update_topics(t, changes, new_topic),
        )
        out: list[TopicResult] = []
        for target, outcome in zip(targets, per_broker, strict=True):
            if not outcome.ok:  # the broker could not be read at all
                out += [
                    TopicResult(
                        c.topic,
                        TargetResult(target.name, target.addr, outcome.status, outcome.reason, error=outcome.error),
                    )
                    for c in changes
                ]
            else:
                out += outcome.data
        order = {c.topic: i for i, c in enumerate(changes)}
        return sorted(out, key=lambda r: (order[r.topic], r.result.name, r.result.addr))

    async def _update_topics(
        self, target: Target, changes: Sequence[TopicChange], new_topic: dict[str, TopicConfig]
    ) -> TargetResult:
        current, version = await self.read_topic_configs(target.addr, [c.topic for c in changes])
        results: list[TopicResult] = []
        pending: list[_Pending] = []
        for change in changes:
            old = current.get(change.topic)
            wanted = change.apply(old, new_topic.get(change.topic))
            diff = changes_between(old, wanted, version) if old is not None else {}
            if old is not None and not diff:
                results.append(
                    TopicResult(change.topic, TargetResult(target.name, target.addr, Status.UNCHANGED, data=old))
                )
            else:
                pending.append(_Pending(change.topic, wanted, old, diff))
        results += await self._send(target, version, pending)
        return TargetResult(target.name, target.addr, Status.OK, data=results)

    async def _send(self, target: Target, version: int, pending: list[_Pending]) -> list[TopicResult]:
        def alone(p: _Pending) -> tuple[rpc.CreateTopicHeader, None]:
            ops = attribute_changes(p.current.attributes if p.current else {}, p.wanted.attributes)
            return rpc.CreateTopicHeader.of(p.wanted, attributes=attribute_ops(ops)), None

        done = await write_many(
            self, target.addr, version, rpc.UPDATE_AND_CREATE_TOPIC_LIST, pending,
            entry=lambda p: list_entry(p.wanted, p.current), alone=alone,
            chunk=CHUNK, chunks_in_flight=CHUNKS_IN_FLIGHT, singles_in_flight=SINGLES_IN_FLIGHT,
        )  # fmt: skip
        outcomes = zip(pending, done, strict=True)
        return [p.done(target) if e is None else p.failed(target, e) for p, e in outcomes]

    # --- topicList -c -------------------------------------------------------------------------------

    async def topic_usage(self, topics: Sequence[str], info: ClusterInfo) -> list[TopicUsage]:
        """For each topic (retry and DLQ topics skipped, as Java's topicList -c does): the clusters of the
        brokers in its route and the consumer groups that every master of the route reports."""
        wanted = [t for t in topics if not t.startswith((RETRY_PREFIX, DLQ_PREFIX))]
        found = await map_bounded(wanted, lambda t: self._usage(t, info), QUERIES_IN_FLIGHT)
        return [
            u if isinstance(u, TopicUsage) else TopicUsage(t, reason=reason_of(u))
            for t, u in zip(wanted, found, strict=True)
        ]

    async def _usage(self, topic: str, info: ClusterInfo) -> TopicUsage:
        route = await self.topic_route(topic)
        clusters = route_clusters(route, info)
        addrs = [b.master_addr for b in route.broker_datas if b.master_addr]
        groups: set[str] = set()
        for found in await map_bounded(addrs, lambda a: self.consumer_groups_of(a, topic), len(addrs) or 1):
            if isinstance(found, Exception):
                raise found
            groups.update(found)
        return TopicUsage(topic, clusters, sorted(groups))

    async def consumer_groups_of(self, addr: str, topic: str) -> list[str]:
        """QUERY_TOPIC_CONSUME_BY_WHO (300): the groups consuming ``topic`` on this broker."""
        return (await self.request(addr, rpc.QUERY_TOPIC_CONSUME_BY_WHO, rpc.TopicHeader(topic=topic))).body or []
