"""Topic operations on brokers: read, create or update (keeping what was not asked to change) and delete;
queue statistics; ordered-topic configs. Routes and lists from the name servers are ``TopicRouteOps``'s."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from mqadmin.admin.batch import UNSUPPORTED
from mqadmin.admin.bounded import map_bounded
from mqadmin.admin.errors import ResponseError
from mqadmin.admin.fanout import Target, fan_out
from mqadmin.admin.results import Status, TargetResult
from mqadmin.admin.topic_routes import TopicRouteOps
from mqadmin.model.order import ORDER_TOPIC_CONFIG, format_order_conf, parse_order_conf
from mqadmin.model.route import ClusterInfo
from mqadmin.model.rpc import namesrv as ns
from mqadmin.model.rpc import namesrv_admin as kv
from mqadmin.model.rpc import topics as rpc
from mqadmin.model.topic import TopicConfig, alter_attributes, attribute_ops
from mqadmin.model.version import V5_0_0, V5_1_0, at_least
from mqadmin.wire.codes import RequestCode, ResponseCode

if TYPE_CHECKING:
    from mqadmin.model.stats import QueueOffsets  # loads with the declarations of topic requests (topicList: none)

READ_ONE_BY_ONE_UP_TO = 64
"""``read_topic_configs`` asks for up to this many topics one by one, else reads the broker's whole table."""
READS_IN_FLIGHT = 16

JSON_NAMES = {
    "read_queue_nums": "readQueueNums",
    "write_queue_nums": "writeQueueNums",
    "perm": "perm",
    "topic_sys_flag": "topicSysFlag",
    "topic_filter_type": "topicFilterType",
    "order": "order",
    "attributes": "attributes",
}
"""TopicConfig attributes as the JSON output and the change lists name them."""


@dataclass(frozen=True, slots=True)
class TopicChange:
    """What an update asks for: only the fields that are set change an existing topic; a new topic
    gets TopicConfig's defaults for the rest. ``attributes`` are mqadmin's ``+k=v,-k`` operations."""

    topic: str
    read_queue_nums: int | None = None
    write_queue_nums: int | None = None
    perm: int | None = None
    topic_sys_flag: int | None = None
    topic_filter_type: str | None = None
    order: bool | None = None
    attributes: dict[str, str | None] = field(default_factory=dict)
    """Attribute key → new value, or None to remove it."""

    def apply(self, current: TopicConfig | None, new_topic: TopicConfig | None = None) -> TopicConfig:
        """The config after the change: ``current`` with the given fields, or for a topic the broker does not
        have, ``new_topic`` (default: TopicConfig's defaults) with them."""
        base = current or new_topic or TopicConfig(self.topic)
        given = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("topic", "attributes")}
        cfg = base.with_(**{k: v for k, v in given.items() if v is not None})
        return cfg.with_(attributes=alter_attributes(base.attributes, self.attributes))


def kept_fields(broker_version: int) -> list[str]:
    """The TopicConfig fields a broker of this version stores (and so can be compared).

    Brokers before 5.1 do not store ``order`` from a create request and brokers before 5.0 have no
    attributes; comparing those there would report every repeat as an update.
    """
    names = ["read_queue_nums", "write_queue_nums", "perm", "topic_sys_flag", "topic_filter_type"]
    if at_least(broker_version, V5_1_0):
        names.append("order")
    if at_least(broker_version, V5_0_0):
        names.append("attributes")
    return names


def changes_between(current: TopicConfig, wanted: TopicConfig, broker_version: int) -> dict[str, tuple[Any, Any]]:
    """Field (JSON name) → (old, new) for every stored field that differs."""
    out: dict[str, tuple[Any, Any]] = {}
    for name in kept_fields(broker_version):
        old, new = getattr(current, name), getattr(wanted, name)
        if old != new:
            out[JSON_NAMES[name]] = (old, new)
    return out


class TopicOps(TopicRouteOps):
    # --- brokers: reading --------------------------------------------------------------------------

    async def read_topic_config(self, addr: str, topic: str) -> tuple[TopicConfig | None, int]:
        """The broker's current config of ``topic`` (None if absent) and the broker's version ordinal.

        Uses GET_TOPIC_CONFIG (351) where the broker has it, else GET_ALL_TOPIC_CONFIG and a look-up.
        """
        found = await self._topic_config_by_351(addr, topic)
        if found is not None:
            return found
        table, version = await self.all_topic_config(addr)
        return table.get(topic), version

    async def read_topic_configs(self, addr: str, topics: Sequence[str]) -> tuple[dict[str, TopicConfig], int]:
        """The broker's configs of these topics (absent ones left out) and its version: one GET_TOPIC_CONFIG
        per topic (the first alone, which learns whether the broker has it; then 16 at a time) for a short
        list, else the whole table at once."""
        if len(topics) <= READ_ONE_BY_ONE_UP_TO and topics and (addr, RequestCode.GET_TOPIC_CONFIG) not in self.lacking:
            first = await self._topic_config_by_351(addr, topics[0])
            if first is not None:
                rest = await map_bounded(topics[1:], lambda t: self._topic_config_by_351(addr, t), READS_IN_FLIGHT)
                found, version = {topics[0]: first[0]}, first[1]
                for topic, read in zip(topics[1:], rest, strict=True):
                    if isinstance(read, Exception):
                        raise read
                    assert read is not None  # the broker has 351: learnt from the first topic
                    found[topic] = read[0]
                return {t: c for t, c in found.items() if c is not None}, version
        table, version = await self.all_topic_config(addr)
        return {t: table[t] for t in topics if t in table}, version

    async def _topic_config_by_351(self, addr: str, topic: str) -> tuple[TopicConfig | None, int] | None:
        """GET_TOPIC_CONFIG; None when the broker does not have the request (remembered per broker)."""
        if (addr, RequestCode.GET_TOPIC_CONFIG) in self.lacking:
            return None
        try:
            reply = await self.request(addr, rpc.GET_TOPIC_CONFIG, rpc.GetTopicConfigHeader(topic=topic, lo=True))
        except ResponseError as e:
            if e.code not in UNSUPPORTED:
                raise
            self.lacking.add((addr, RequestCode.GET_TOPIC_CONFIG))
            return None
        cfg = reply.body.config if reply.code == ResponseCode.SUCCESS and reply.body else None
        return (cfg.with_(topic_name=topic) if cfg and not cfg.topic_name else cfg), reply.version

    async def all_topic_config(self, addr: str) -> tuple[dict[str, TopicConfig], int]:
        """GET_ALL_TOPIC_CONFIG (21): every topic the broker holds, and the broker's version."""
        reply = await self.request(addr, rpc.GET_ALL_TOPIC_CONFIG)
        return reply.body or {}, reply.version

    async def topic_stats(self, addr: str, topic: str) -> list[QueueOffsets]:
        reply = await self.request(addr, rpc.GET_TOPIC_STATS_INFO, rpc.TopicHeader(topic=topic))
        return reply.body.queues if reply.body else []

    # --- brokers: changing -------------------------------------------------------------------------

    async def update_topic(
        self, target: Target, change: TopicChange, *, create_only: bool = False, must_exist: bool = False
    ) -> TargetResult:
        """Create the topic on one broker, or change the fields ``change`` sets and keep the rest.

        created / updated (with old → new per field) / unchanged (nothing sent). With ``create_only`` an
        existing topic is left as it is (``unchanged``), whatever its settings; with ``must_exist`` a broker
        without the topic is left alone (``not found``).
        """
        current, version = await self.read_topic_config(target.addr, change.topic)
        if current is None and must_exist:
            return TargetResult(target.name, target.addr, Status.NOT_FOUND)
        wanted = change.apply(current)
        if current is not None:
            diff = changes_between(current, wanted, version)
            if create_only or not diff:
                return TargetResult(target.name, target.addr, Status.UNCHANGED, data=current)
        ops = change.attributes if current is not None else dict(wanted.attributes)
        header = rpc.CreateTopicHeader.of(wanted, attributes=attribute_ops(ops))
        await self.request(target.addr, rpc.UPDATE_AND_CREATE_TOPIC, header)
        if current is None:
            return TargetResult(target.name, target.addr, Status.CREATED, data=wanted)
        return TargetResult(target.name, target.addr, Status.UPDATED, changes=diff, data=wanted)

    async def update_topic_on(
        self, targets: list[Target], change: TopicChange, *, create_only: bool = False, must_exist: bool = False
    ) -> list[TargetResult]:
        return await fan_out(
            targets, lambda t: self.update_topic(t, change, create_only=create_only, must_exist=must_exist)
        )

    async def delete_topic_in_broker(self, target: Target, topic: str) -> TargetResult:
        """DELETE_TOPIC_IN_BROKER, after checking the broker has the topic (``not found`` otherwise)."""
        current, _ = await self.read_topic_config(target.addr, topic)
        if current is None:
            return TargetResult(target.name, target.addr, Status.NOT_FOUND)
        await self.request(target.addr, rpc.DELETE_TOPIC_IN_BROKER, rpc.TopicHeader(topic=topic))
        return TargetResult(target.name, target.addr, Status.DELETED, data=current)

    async def delete_topic(self, cluster: str, topic: str, info: ClusterInfo | None = None) -> list[TargetResult]:
        """Delete from every master of the cluster (concurrently), then remove the route from every name
        server, but only when no broker failed: a broker that still holds the topic keeps its route."""
        targets = await self.targets(None, cluster, info)
        results = await fan_out(targets, lambda t: self.delete_topic_in_broker(t, topic))
        if not all(r.ok for r in results):
            return results
        if not any(r.status == Status.DELETED for r in results) and not await self._has_route(topic):
            return results
        header = ns.DeleteTopicHeader(topic=topic, cluster_name=cluster)
        return results + await self.request_every_namesrv(ns.DELETE_TOPIC_IN_NAMESRV, header, Status.DELETED)

    async def _has_route(self, topic: str) -> bool:
        try:
            await self.topic_route(topic)
        except ResponseError as e:
            if e.code == ResponseCode.TOPIC_NOT_EXIST:
                return False
            raise
        return True

    # --- ordered topics ----------------------------------------------------------------------------

    async def get_order_conf(self, topic: str) -> str | None:
        return await self.get_kv_config(ORDER_TOPIC_CONFIG, topic)

    async def set_order_conf(self, topic: str, entries: dict[str, int], merge: bool) -> tuple[str, list[TargetResult]]:
        """Write ``ORDER_TOPIC_CONFIG/<topic>`` = ``brokerName:queues;…`` to every name server.

        With ``merge`` (mqadmin's ``-b`` form) the current value is read first and these entries replace
        or join the existing ones; otherwise (``-c``) the value is exactly these entries.
        """
        merged: dict[str, int] = parse_order_conf(await self.get_order_conf(topic) or "") if merge else {}
        merged.update(entries)
        value = format_order_conf(merged)
        return value, await self.put_kv_config(ORDER_TOPIC_CONFIG, topic, value)

    # --- KV (used by the ordered-topic operations; NamesrvOps adds the rest) ------------------------

    async def get_kv_config(self, namespace: str, key: str) -> str | None:
        """The value, or None when the name server has no such key."""
        reply = await self.request_namesrv(kv.GET_KV_CONFIG, kv.KvHeader(namespace=namespace, key=key))
        return reply.header.value if reply.header is not None else None

    async def put_kv_config(self, namespace: str, key: str, value: str) -> list[TargetResult]:
        header = kv.PutKvHeader(namespace=namespace, key=key, value=value)
        return await self.request_every_namesrv(kv.PUT_KV_CONFIG, header, Status.WRITTEN)

    async def delete_kv_config(self, namespace: str, key: str) -> list[TargetResult]:
        header = kv.KvHeader(namespace=namespace, key=key)
        return await self.request_every_namesrv(kv.DELETE_KV_CONFIG, header, Status.DELETED)
