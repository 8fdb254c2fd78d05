"""Consumer and producer operations: the brokers that serve a group, a group's progress (lag per queue,
totals, retry and dead-letter depth), a summary of every group, the clients connected to brokers, and
what consumers report about themselves through the broker (running info, the offsets they hold).

A group is found as Java's tools find it: through the route of its retry topic ``%RETRY%<group>``
(every push consumer creates it), else the route of the topic asked about.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from mqadmin.admin.errors import AdminError, ResponseError, reason_of
from mqadmin.admin.fanout import Target, fan_out
from mqadmin.admin.groups import GroupOps
from mqadmin.admin.offset_tables import OffsetTableOps
from mqadmin.admin.results import Status, TargetResult
from mqadmin.admin.topics import TopicOps
from mqadmin.model.clients import Connection, ConsumerConnection, ConsumerRunningInfo, ProducerInfo
from mqadmin.model.consume import ConsumeStats, QueueProgress
from mqadmin.model.names import DLQ_PREFIX, RETRY_PREFIX
from mqadmin.model.queue import MessageQueue
from mqadmin.model.route import BrokerData, TopicRouteData
from mqadmin.model.rpc import clients as client_rpc
from mqadmin.model.rpc import consumers as rpc
from mqadmin.transport.errors import TransportError
from mqadmin.wire.codes import ResponseCode

if TYPE_CHECKING:
    from mqadmin.model.rpc.consumers import ConsumerStatus, OffsetTable, RequestMode

T = TypeVar("T")

GROUP_CONCURRENCY = 32
"""Groups examined at once by ``all_groups_progress`` (each costs a few requests per broker)."""


class GroupNotFound(AdminError):
    """No route leads to the group: neither its retry topic nor the topic asked about exists."""

    def __init__(self, group: str, topics: Sequence[str]) -> None:
        self.group = group
        super().__init__(f"consumer group {group!r} not found: no route for {' nor '.join(topics)}")


class GroupOffline(AdminError):
    """No broker of the group's route has a consumer of the group connected."""

    def __init__(self, group: str, detail: str = "") -> None:
        self.group = group
        super().__init__(f"consumer group {group!r} is not online{': ' + detail if detail else ''}")


class ProducerGroupNotFound(AdminError):
    def __init__(self, group: str, topic: str) -> None:
        super().__init__(f"no producer of group {group!r} is connected to the brokers of topic {topic!r}")


def retry_topic(group: str) -> str:
    return RETRY_PREFIX + group


def dlq_topic(group: str) -> str:
    return DLQ_PREFIX + group


def group_of_retry_topic(topic: str) -> str | None:
    """The group a retry topic belongs to (``%RETRY%g`` and 5.x POP ``%RETRY%g+topic``), else None."""
    if not topic.startswith(RETRY_PREFIX):
        return None
    return topic[len(RETRY_PREFIX) :].partition("+")[0] or None


def select_addr(bd: BrokerData) -> str | None:
    """The address to read from: the master, else the lowest-id slave (Java's ``selectBrokerAddr``)."""
    return bd.master_addr or next((a for _, a in sorted(bd.broker_addrs.items())), None)


def route_targets(route: TopicRouteData) -> list[Target]:
    """One target per broker of a route (sorted by name); a broker without any address keeps an empty one."""
    return [
        Target(bd.broker_name, select_addr(bd) or "", 0, bd.cluster)
        for bd in sorted(route.broker_datas, key=lambda b: b.broker_name)
    ]


@dataclass(slots=True)
class GroupProgress:
    """A group's offsets on every queue it consumes (``consumerProgress -g``)."""

    group: str
    topic: str | None
    queues: list[QueueProgress]
    consume_tps: float
    brokers: list[TargetResult]
    """One result per broker asked (failed ones carry the reason)."""
    connection: ConsumerConnection | None
    """Who is online (None when no consumer of the group is connected)."""
    retry_depth: int | None = None
    """Messages waiting in %RETRY%<group> (the group's lag there); None when the group does not read it
    (push consumers always do; a group that never ran one has nothing there)."""
    dlq_depth: int | None = None
    """Messages stored in %DLQ%<group> (0 when it does not exist)."""
    clients: dict[MessageQueue, str] = field(default_factory=dict)
    """Queue → the IP of the client consuming it (with ``with_clients``)."""

    @property
    def lag_total(self) -> int:
        return sum(q.lag for q in self.queues)

    @property
    def inflight_total(self) -> int:
        return sum(q.inflight for q in self.queues)


@dataclass(slots=True)
class GroupSummary:
    """One row of ``consumerProgress`` without ``-g``."""

    group: str
    clients: int = 0
    version: int | None = None
    consume_type: str = ""
    message_model: str = ""
    consume_tps: float = 0.0
    lag: int = 0
    retry_depth: int | None = None
    dlq_depth: int | None = None
    error: str | None = None
    cause: Exception | None = None
    """The failure ``error`` describes, when reading the group failed as a whole."""
    topics: list[str] = field(default_factory=list)
    """The topics the group has progress on (its retry topic left out)."""


async def bounded(items: Iterable[T], limit: int, fn: Callable[[T], Awaitable[object]]) -> None:
    """Run ``fn`` on every item with at most ``limit`` running at once."""
    sem = asyncio.Semaphore(limit)

    async def one(item: T) -> None:
        async with sem:
            await fn(item)

    await asyncio.gather(*(one(i) for i in items))


def _merge(results: Sequence[TargetResult]) -> ConsumeStats:
    merged = ConsumeStats()
    for r in results:
        if r.ok and isinstance(r.data, ConsumeStats):
            merged.queues += r.data.queues
            merged.consume_tps += r.data.consume_tps
    merged.queues.sort(key=lambda q: (q.topic, q.broker_name, q.queue_id))
    return merged


class ConsumerOps(TopicOps, GroupOps, OffsetTableOps):
    # --- where a group lives -----------------------------------------------------------------------

    async def first_route(self, topics: Sequence[str]) -> TopicRouteData | None:
        """The route of the first of ``topics`` that has one (None when none has)."""
        for topic in topics:
            try:
                return await self.topic_route(topic)
            except ResponseError as e:
                if e.code != ResponseCode.TOPIC_NOT_EXIST:
                    raise
        return None

    async def group_targets(self, group: str, topic: str | None = None, cluster: str | None = None) -> list[Target]:
        """The brokers serving ``group``: those of its retry topic, else of ``topic`` (Java's search order),
        only those of ``cluster`` when given."""
        topics = [retry_topic(group)] + ([topic] if topic else [])
        route = await self.first_route(topics)
        if route is None or not route.broker_datas:
            raise GroupNotFound(group, topics)
        targets = [t for t in route_targets(route) if cluster is None or t.cluster == cluster]
        if not targets:
            raise GroupNotFound(group, [f"{t} in cluster {cluster}" for t in topics])
        return targets

    # --- progress ----------------------------------------------------------------------------------

    async def group_stats(self, targets: Sequence[Target], group: str, topic: str | None) -> list[TargetResult]:
        """GET_CONSUME_STATS on each broker; ``data`` is the broker's ConsumeStats."""

        async def one(t: Target) -> TargetResult:
            return TargetResult(t.name, t.addr, Status.OK, data=await self.consume_stats(t.addr, group, topic))

        return await fan_out(targets, one)

    async def group_progress(
        self,
        group: str,
        topic: str | None = None,
        *,
        cluster: str | None = None,
        with_clients: bool = False,
        all_brokers: bool = False,
        known_topics: Collection[str] | None = None,
        offset_holders: Sequence[Target] | None = None,
    ) -> GroupProgress:
        """Offsets, lag and last consume time per queue, with the retry and dead-letter depth.

        ``all_brokers`` asks every broker of the route who is connected (a client may be connected to
        some brokers only); otherwise the first broker that answers is enough, as in Java. ``known_topics``
        (the name server's topic list, when the caller has it) spares looking up topics that do not exist.

        A group without a route (no consumer ever came online, so no retry topic) is read from the masters
        whose offset table holds it (``offset_holders``: those, when the caller has looked already)."""
        try:
            targets = await self.group_targets(group, topic, cluster)
        except GroupNotFound:
            targets = list(offset_holders if offset_holders is not None else await self.offset_holders(group, cluster))
            if not targets:
                raise
        results = await self.group_stats(targets, group, topic)
        stats = _merge(results)
        connection = await self.consumer_connection_of(group, targets, all_brokers=all_brokers)
        progress = GroupProgress(group, topic, stats.queues, stats.consume_tps, results, connection)
        retry = retry_topic(group)
        rows = stats.queues if topic is None else _merge(await self.group_stats(targets, group, retry)).queues
        retry_rows = [q for q in rows if q.topic == retry]
        progress.retry_depth = sum(q.lag for q in retry_rows) if retry_rows else None
        progress.dlq_depth = await self.stored_messages(dlq_topic(group), known_topics) or 0
        if with_clients and connection is not None:
            progress.clients = await self.queue_owners(group, connection)
        return progress

    async def stored_messages(self, topic: str, known_topics: Collection[str] | None = None) -> int | None:
        """Messages a topic holds (max − min offset over its queues); None when it has no route."""
        if known_topics is not None and topic not in known_topics:
            return None
        route = await self.first_route([topic])
        if route is None:
            return None

        async def one(t: Target) -> TargetResult:
            queues = await self.topic_stats(t.addr, topic)
            return TargetResult(t.name, t.addr, Status.OK, data=sum(q.max_offset - q.min_offset for q in queues))

        results = await fan_out(route_targets(route), one)
        total: int = sum(r.data for r in results if r.ok)
        return total

    async def queue_owners(self, group: str, connection: ConsumerConnection) -> dict[MessageQueue, str]:
        """Queue → IP of the client holding it, from each client's running info (clients that cannot
        answer are left out)."""
        owners: dict[MessageQueue, str] = {}

        async def one(conn: Connection) -> None:
            try:
                info = await self.running_info(group, conn.client_id)
            except (AdminError, TransportError):
                return
            for mq in info.mq_table:
                owners[mq] = conn.client_id.split("@")[0]

        await bounded(connection.connections, GROUP_CONCURRENCY, one)
        return dict(sorted(owners.items()))

    async def all_groups_progress(
        self, cluster: str | None = None, limit: int = GROUP_CONCURRENCY
    ) -> tuple[list[GroupSummary], list[TargetResult]]:
        """Every group that has a retry topic on the name server, or committed offsets on a user topic in a
        master's offset table, with its clients and total lag (on the brokers of ``cluster`` when given).
        Also returns the masters whose offset table could not be read (groups only they hold are missing)."""
        topics = set(await self.topic_list())
        committed = await self.committed_groups(cluster)
        groups = sorted({g for t in topics if (g := group_of_retry_topic(t))} | set(committed.holders))
        summaries = {g: GroupSummary(g) for g in groups}

        async def one(group: str) -> None:
            s = summaries[group]
            holders = committed.holders.get(group, [])
            try:
                p = await self.group_progress(group, cluster=cluster, known_topics=topics, offset_holders=holders)
            except (AdminError, TransportError) as e:
                s.error, s.cause = reason_of(e), e
                return
            failed = [f"{r.name or r.addr}: {r.reason}" for r in p.brokers if not r.ok]
            s.error = "; ".join(failed) or None
            s.consume_tps, s.lag, s.retry_depth, s.dlq_depth = p.consume_tps, p.lag_total, p.retry_depth, p.dlq_depth
            s.topics = sorted({q.topic for q in p.queues if q.topic != retry_topic(group)})
            if p.connection is not None:
                s.clients = len(p.connection.connections)
                s.version = p.connection.min_version()
                s.consume_type, s.message_model = p.connection.consume_type, p.connection.message_model

        await bounded(groups, limit, one)
        return list(summaries.values()), [r for r in committed.results if not r.ok]

    # --- who is connected --------------------------------------------------------------------------

    async def consumer_connection_of(
        self, group: str, targets: Sequence[Target], *, all_brokers: bool = True
    ) -> ConsumerConnection | None:
        """The group's clients as the brokers see them: merged over every broker with ``all_brokers``, else
        from the first broker that answers (as Java); None when no consumer of the group is online."""
        if not all_brokers:
            for t in targets:
                try:
                    return await self.consumer_connection_on(t.addr, group)
                except GroupOffline:
                    return None
                except (AdminError, TransportError):
                    continue
            return None

        async def one(t: Target) -> TargetResult:
            try:
                conn = await self.consumer_connection_on(t.addr, group)
            except GroupOffline:
                conn = None
            return TargetResult(t.name, t.addr, Status.OK, data=conn)

        merged: ConsumerConnection | None = None
        for r in await fan_out(targets, one):
            if not r.ok or r.data is None:
                continue
            if merged is None:
                merged = r.data
            else:
                merged.merge(r.data)
        return merged

    async def consumer_connection_on(self, addr: str, group: str) -> ConsumerConnection:
        """GET_CONSUMER_CONNECTION_LIST (203) on one broker; GroupOffline when it has nobody of the group."""
        try:
            header = client_rpc.ConsumerGroupHeader(consumer_group=group)
            reply = await self.request(addr, client_rpc.GET_CONSUMER_CONNECTION_LIST, header)
        except ResponseError as e:
            if e.code == ResponseCode.CONSUMER_NOT_ONLINE:
                raise GroupOffline(group) from None
            raise
        conn = reply.body or ConsumerConnection()
        if not conn.connections:
            raise GroupOffline(group)
        return conn

    async def consumer_connection(self, group: str, broker_addr: str | None = None) -> ConsumerConnection:
        """The group's clients, subscriptions and consume type, from ``broker_addr`` or every broker of the
        group's route; GroupOffline when none has a client of the group."""
        if broker_addr:
            return await self.consumer_connection_on(broker_addr, group)
        conn = await self.consumer_connection_of(group, await self.group_targets(group))
        if conn is None:
            raise GroupOffline(group, f"no broker of {retry_topic(group)}'s route has a client of it connected")
        return conn

    async def producer_connection(self, group: str, topic: str) -> list[Connection]:
        """GET_PRODUCER_CONNECTION_LIST (204) on every broker of the topic's route, merged by client id."""
        targets = route_targets(await self.topic_route(topic))

        header = client_rpc.ProducerGroupHeader(producer_group=group)

        async def one(t: Target) -> TargetResult:
            try:
                reply = await self.request(t.addr, client_rpc.GET_PRODUCER_CONNECTION_LIST, header)
            except ResponseError as e:
                if e.code == ResponseCode.SYSTEM_ERROR and "not exist" in e.remark:
                    return TargetResult(t.name, t.addr, Status.NOT_FOUND)
                raise
            return TargetResult(t.name, t.addr, Status.OK, data=reply.body or [])

        results = await fan_out(targets, one)
        found = {c.client_id: c for r in results if r.ok and r.data for c in r.data}
        if not found:
            failed = [r for r in results if not r.ok]
            if failed:
                raise AdminError("; ".join(f"{r.name} {r.addr}: {r.reason}" for r in failed))
            raise ProducerGroupNotFound(group, topic)
        return sorted(found.values(), key=lambda c: c.client_id)

    async def producer_table(self, addr: str) -> dict[str, list[ProducerInfo]]:
        """GET_ALL_PRODUCER_INFO (328): every producer connected to one broker, by group."""
        return (await self.request(addr, rpc.GET_ALL_PRODUCER_INFO)).body or {}

    # --- what consumers report ---------------------------------------------------------------------

    async def running_info(
        self, group: str, client_id: str, *, jstack: bool = False, broker_addr: str | None = None
    ) -> ConsumerRunningInfo:
        """GET_CONSUMER_RUNNING_INFO (307), relayed by ``broker_addr`` or by the first broker of the group's
        route the client is connected to."""
        header = client_rpc.RunningInfoHeader(consumer_group=group, client_id=client_id, jstack_enable=jstack)
        addrs = [broker_addr] if broker_addr else [t.addr for t in await self.group_targets(group) if t.addr]
        error: Exception | None = None
        for addr in addrs:
            try:
                reply = await self.request(addr, client_rpc.GET_CONSUMER_RUNNING_INFO, header)
            except ResponseError as e:
                error = e
                if e.code == ResponseCode.SYSTEM_ERROR and "not online" in e.remark:
                    continue  # connected to another broker of the route
                raise
            if reply.body is None:
                raise AdminError(f"{addr}: client {client_id} answered GET_CONSUMER_RUNNING_INFO without a body")
            return reply.body
        raise error or GroupOffline(group)

    async def group_running_info(
        self, group: str, client_id: str | None = None, *, jstack: bool = False, broker_addr: str | None = None
    ) -> tuple[ConsumerConnection | None, list[TargetResult]]:
        """The running info of every client of the group (or only ``client_id``, asked without looking the
        group's clients up first, as Java does): one result per client, ``data`` its ConsumerRunningInfo."""
        cc = None if client_id else await self.consumer_connection(group, broker_addr)
        ids = [client_id] if client_id else [c.client_id for c in cc.connections] if cc else []

        async def one(t: Target) -> TargetResult:
            info = await self.running_info(group, t.name, jstack=jstack, broker_addr=broker_addr)
            return TargetResult(t.name, t.addr, Status.OK, data=info)

        addrs = {c.client_id: c.client_addr for c in cc.connections} if cc else {}
        return cc, await fan_out([Target(i, addrs.get(i) or "-") for i in ids], one)

    async def consumer_status(self, topic: str, group: str, client_id: str | None = None) -> dict[str, OffsetTable]:
        """INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223) through the first broker of the topic's route: the
        offsets each client of the group (or ``client_id``) holds in memory for ``topic``."""
        targets = [t for t in route_targets(await self.topic_route(topic)) if t.addr]
        header = rpc.ConsumerStatusHeader(topic=topic, group=group, client_addr=client_id or None)
        reply = await self.request(targets[0].addr, rpc.INVOKE_BROKER_TO_GET_CONSUMER_STATUS, header)
        status: ConsumerStatus | None = reply.body
        return status.clients if status is not None else {}

    # --- how a group reads -------------------------------------------------------------------------

    async def request_modes(self, addr: str) -> dict[tuple[str, str], RequestMode]:
        """GET_ALL_MESSAGE_REQUEST_MODE (402, 5.x): the modes set on one broker, by (topic, group)."""
        body = (await self.request(addr, rpc.GET_ALL_MESSAGE_REQUEST_MODE)).body or {}
        table = body.get("messageRequestModeMap") or {}
        return {
            (str(topic), str(group)): rpc.RequestMode.from_json(mode)
            for topic, groups in table.items()
            for group, mode in (groups or {}).items()
        }

    async def set_request_mode_on(self, targets: Sequence[Target], mode: RequestMode) -> list[TargetResult]:
        """SET_MESSAGE_REQUEST_MODE (401, 5.x) on each broker whose mode differs (PULL when none was set)."""

        async def one(t: Target) -> TargetResult:
            try:
                current = (await self.request_modes(t.addr)).get((mode.topic, mode.consumer_group))
            except ResponseError as e:
                if e.code != ResponseCode.REQUEST_CODE_NOT_SUPPORTED:
                    raise
                current = None  # a 4.9 broker: the request below says it has no modes at all
            current = current or rpc.RequestMode(mode.topic, mode.consumer_group)
            changes = {
                name: (old, new)
                for name, old, new in (
                    ("mode", current.mode, mode.mode),
                    ("popShareQueueNum", current.pop_share_queue_num, mode.pop_share_queue_num),
                )
                if old != new
            }
            if not changes:
                return TargetResult(t.name, t.addr, Status.UNCHANGED, data=mode)
            await self.request(t.addr, rpc.SET_MESSAGE_REQUEST_MODE, body=mode)
            return TargetResult(t.name, t.addr, Status.UPDATED, changes=changes, data=mode)

        return await fan_out(targets, one)
