"""Reading what a cluster holds: each master's topics, groups and version (concurrently, one result per
broker whatever happens to the others), the topics each broker counts as its own, and the ordered-topic
configs of the name servers."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mqadmin.admin.errors import AdminError, NameServerUnreachable, ResponseError, reason_of
from mqadmin.admin.fanout import Target, fan_out, masters
from mqadmin.admin.results import Status, TargetResult
from mqadmin.model.exports import PREDEFINED_GROUPS, SYSTEM_GROUP_PREFIX
from mqadmin.model.group import SubscriptionGroupConfig
from mqadmin.model.names import is_retry_or_dlq_topic, is_system_topic
from mqadmin.model.order import ORDER_TOPIC_CONFIG
from mqadmin.model.route import ClusterInfo
from mqadmin.model.rpc import clients as clients_rpc
from mqadmin.model.rpc import stats as stats_rpc
from mqadmin.model.rpc.topics import TopicTable
from mqadmin.model.topic import TopicConfig
from mqadmin.model.version import version_desc
from mqadmin.transport.errors import TransportError
from mqadmin.wire.codes import ResponseCode

if TYPE_CHECKING:
    from mqadmin.admin.client import AdminClient

REPLY_SUFFIX = "_REPLY_TOPIC"
LMQ_PREFIX = "%LMQ%"
FAILURES = (AdminError, TransportError, ValueError)
"""What reading one broker can raise: an error answer, a transport failure, a body we cannot read."""


@dataclass(slots=True)
class BrokerState:
    """One master as read: its topics and groups (None when they could not be read, with ``error``)."""

    name: str
    addr: str
    version: int = 0
    topics: dict[str, TopicConfig] | None = None
    groups: dict[str, SubscriptionGroupConfig] | None = None
    own_topics: frozenset[str] = frozenset()
    """The topics the broker lists as its system topics (GET_SYSTEM_TOPIC_LIST_FROM_BROKER, where it has it)."""
    static_topics: frozenset[str] = frozenset()
    """Its static topics (5.x): their queue mapping is managed by the static-topic commands, not as code."""
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def version_name(self) -> str | None:
        return version_desc(self.version) if self.version else None


@dataclass(slots=True)
class ClusterState:
    """One cluster as read. ``error`` is set when the cluster itself could not be read (no name server
    answered, no such cluster); a broker that could not be read has its own ``error``."""

    cluster: str
    namesrv: list[str]
    brokers: list[BrokerState] = field(default_factory=list)
    broker_names: frozenset[str] = frozenset()
    order_conf: dict[str, str] | None = None
    order_conf_error: str | None = None
    error: str | None = None
    unreachable: bool = False
    """``error`` is that no name server answered."""

    def broker(self, name: str) -> BrokerState | None:
        return next((b for b in self.brokers if b.name == name), None)

    def is_managed_topic(self, topic: str) -> bool:
        """A topic a topology may hold: not a system topic (fixed, the brokers' own, the cluster's and the brokers'
        names), not a retry, dead-letter or light message queue topic, not a static topic (its brokers differ by
        design: the static-topic commands manage it)."""
        if is_system_topic(topic) or is_retry_or_dlq_topic(topic) or topic.startswith(LMQ_PREFIX):
            return False
        if topic in (self.cluster, self.cluster + REPLY_SUFFIX) or topic in self.broker_names:
            return False
        return not any(topic in b.own_topics or topic in b.static_topics for b in self.brokers)


def is_managed_group(group: str) -> bool:
    return group not in PREDEFINED_GROUPS and not group.startswith(SYSTEM_GROUP_PREFIX)


async def read_cluster(admin: AdminClient, cluster: str, info: ClusterInfo | None = None) -> ClusterState:
    """Every master of ``cluster`` read concurrently, and the name servers' ordered-topic configs."""
    state = ClusterState(cluster, list(admin.namesrv.addrs))
    try:
        brokers = await admin.cluster_brokers(cluster, info)
    except FAILURES as e:
        state.error, state.unreachable = reason_of(e), isinstance(e, NameServerUnreachable)
        return state
    state.broker_names = frozenset(b.broker_name for b in brokers)
    targets = masters(brokers)
    results, conf = await asyncio.gather(fan_out(targets, lambda t: _read_broker(admin, t)), _order_conf(admin))
    for t, r in zip(targets, results, strict=True):
        state.brokers.append(r.data if r.ok else BrokerState(t.name, t.addr, error=r.reason))
    state.order_conf, state.order_conf_error = conf
    return state


async def _read_broker(admin: AdminClient, t: Target) -> TargetResult:
    (topics, version), (groups, _), own = await asyncio.gather(
        admin.all_topic_config(t.addr), admin.group_configs(t.addr), _own_topics(admin, t.addr)
    )
    static = topics.static if isinstance(topics, TopicTable) else frozenset()
    # the group configs only, not the table's copy of the broker's JSON of each (an export's: 7 MiB per 10,000 groups)
    state = BrokerState(t.name, t.addr, version, topics, dict(groups), own, static)
    return TargetResult(t.name, t.addr, Status.OK, data=state)


async def _own_topics(admin: AdminClient, addr: str) -> frozenset[str]:
    """The broker's system topics; none where the broker does not have the request (before 4.9's list)."""
    try:
        return frozenset((await admin.request(addr, stats_rpc.GET_SYSTEM_TOPIC_LIST_FROM_BROKER)).body or [])
    except ResponseError:
        return frozenset()


async def _order_conf(admin: AdminClient) -> tuple[dict[str, str] | None, str | None]:
    try:
        return await admin.kv_list(ORDER_TOPIC_CONFIG), None
    except FAILURES as e:
        return None, reason_of(e)


async def online_consumers(admin: AdminClient, addr: str, group: str) -> int:
    """How many consumers of ``group`` are connected to the broker (0 when none: CONSUMER_NOT_ONLINE)."""
    header = clients_rpc.ConsumerGroupHeader(consumer_group=group)
    try:
        body = (await admin.request(addr, clients_rpc.GET_CONSUMER_CONNECTION_LIST, header)).body
    except ResponseError as e:
        if e.code == ResponseCode.CONSUMER_NOT_ONLINE:
            return 0
        raise
    return len(body.connections) if body is not None else 0
