"""An in-memory Transport for admin-client and CLI unit tests: name servers and brokers as small
Python objects that answer remoting commands the way Apache RocketMQ does (the parts we use)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from mqadmin.model.group import GroupWrite, SubscriptionGroupConfig
from mqadmin.model.order import ORDER_TOPIC_CONFIG
from mqadmin.model.route import BrokerData, ClusterInfo, QueueData, TopicRouteData
from mqadmin.model.rpc import brokers, groups, namesrv, namesrv_admin, topics
from mqadmin.model.rpc.spec import Decoded, RequestRefused, Rpc
from mqadmin.model.stats import QueueOffsets, TopicStats
from mqadmin.model.topic import TopicConfig, alter_attributes
from mqadmin.model.topic_batch import ops_from_map
from mqadmin.transport.errors import ConnectionRefused, RequestTimeout
from mqadmin.wire import fastjson
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand
from tests.mock_transport import runtime

Hook = Callable[[RemotingCommand], Awaitable[RemotingCommand | None]]
Answer = Callable[[Decoded[Any, Any]], RemotingCommand]


def answer(handlers: Iterable[tuple[Rpc[Any, Any, Any, Any], Answer]], cmd: RemotingCommand) -> RemotingCommand:
    """Decode ``cmd`` by its declaration and let its handler answer (a refused request gets the
    declaration's refusal, an unknown code REQUEST_CODE_NOT_SUPPORTED), as a server does."""
    rpc, handle = next(((r, h) for r, h in handlers if r.code == cmd.code), (None, None))
    if rpc is None or handle is None:
        return cmd.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, f" request type {cmd.code} not supported")
    try:
        req = rpc.decode(cmd)
    except RequestRefused as e:
        return cmd.response(e.code, e.remark)
    return handle(req)


@dataclass
class FakeBroker:
    name: str
    addr: str
    cluster: str = "DefaultCluster"
    broker_id: int = 0
    version: int = 479  # 5.3.3; 409 = 4.9.8
    topics: dict[str, TopicConfig] = field(default_factory=dict)
    groups: dict[str, SubscriptionGroupConfig] = field(default_factory=dict)
    runtime: dict[str, str] = field(default_factory=dict)
    consumers: dict[str, list[str]] = field(default_factory=dict)  # topic -> groups (QUERY_TOPIC_CONSUME_BY_WHO)
    hang: bool = False  # never answer (like a SIGSTOPped process)
    before: Hook | None = None  # runs first; a non-None return answers instead

    async def handle(self, cmd: RemotingCommand) -> RemotingCommand:
        if self.hang:
            await asyncio.Event().wait()
        if self.before is not None:
            early = await self.before(cmd)
            if early is not None:
                return early
        resp = self._answer(cmd)
        resp.version = self.version
        return resp

    def _answer(self, cmd: RemotingCommand) -> RemotingCommand:
        """The answer by declaration (subclasses answer more requests first)."""
        if cmd.code == groups.DELETE_SUBSCRIPTIONGROUP.code:  # Apache checks no name on a delete
            return self._delete_group(groups.DELETE_SUBSCRIPTIONGROUP.decode(cmd, validate=False))
        handlers = [
            (topics.GET_ALL_TOPIC_CONFIG, self._all_topic_config),
            (topics.UPDATE_AND_CREATE_TOPIC, self._create_topic),
            (topics.DELETE_TOPIC_IN_BROKER, self._delete_topic),
            (topics.GET_TOPIC_STATS_INFO, self._topic_stats),
            (brokers.GET_BROKER_RUNTIME_INFO, self._runtime_info),
            (topics.QUERY_TOPIC_CONSUME_BY_WHO, self._consumed_by),
            (groups.GET_ALL_SUBSCRIPTIONGROUP_CONFIG, self._all_groups),
            (groups.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, lambda req: self._write_groups(req, [req.body])),
            *([(topics.GET_TOPIC_CONFIG, self._topic_config)] if self.version >= 413 else []),  # 5.0+
            *([(topics.UPDATE_AND_CREATE_TOPIC_LIST, self._create_topics)] if self.version >= 473 else []),  # 5.3.0+
            *(
                [(groups.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST, lambda req: self._write_groups(req, req.body))]
                if self.version >= 475  # 5.3.1+
                else []
            ),
        ]
        return answer(handlers, cmd)

    def _runtime_info(self, req: Decoded[None, None]) -> RemotingCommand:
        return brokers.GET_BROKER_RUNTIME_INFO.answer(req.cmd, body=self.runtime)

    def _topic_config(self, req: Decoded[topics.GetTopicConfigHeader, None]) -> RemotingCommand:
        cfg = self.topics.get(req.header.topic)
        if cfg is None:
            return req.cmd.response(ResponseCode.TOPIC_NOT_EXIST, "No topic in this broker.")
        return topics.GET_TOPIC_CONFIG.answer(req.cmd, body=cfg)

    def _all_topic_config(self, req: Decoded[None, None]) -> RemotingCommand:
        table = {n: self._stored(c) for n, c in self.topics.items()}
        return topics.GET_ALL_TOPIC_CONFIG.answer(req.cmd, body=table)

    def _create_topic(self, req: Decoded[topics.CreateTopicHeader, None]) -> RemotingCommand:
        if self.broker_id != 0 and self.version < 413:
            return req.cmd.response(ResponseCode.SYSTEM_ERROR, "slave can not create topic")
        h = req.header
        old = self.topics.get(h.topic)
        # a 5.x broker applies the request's attribute operations (+k=v, -k) to the attributes it holds
        self.topics[h.topic] = self._stored(h.config(old.attributes if old else None))
        return req.cmd.response(remark="not set any response code")

    def _create_topics(self, req: Decoded[None, list[TopicConfig]]) -> RemotingCommand:
        for cfg in req.body:
            old = self.topics.get(cfg.topic_name)
            attrs = alter_attributes(old.attributes if old else {}, ops_from_map(cfg.attributes))
            self.topics[cfg.topic_name] = self._stored(cfg.with_(attributes=attrs))
        return req.cmd.response()

    def _consumed_by(self, req: Decoded[topics.TopicHeader, None]) -> RemotingCommand:
        return topics.QUERY_TOPIC_CONSUME_BY_WHO.answer(req.cmd, body=self.consumers.get(req.header.topic, []))

    # Subscription groups as a broker of ``version`` keeps them (4.9: no 5.x settings; before 5.1.3 no
    # attributes; before 5.3.1 no list request). Attribute operations are applied to what it holds.

    def _all_groups(self, req: Decoded[None, None]) -> RemotingCommand:
        table = {n: self._stored_group(c) for n, c in self.groups.items()}  # what the version writes, as is
        return req.cmd.response(body=fastjson.dumps_bytes({"subscriptionGroupTable": table}))

    def _delete_group(self, req: Decoded[groups.DeleteGroupHeader, None]) -> RemotingCommand:
        self.groups.pop(req.header.group_name, None)
        return req.cmd.response()

    def _write_groups(self, req: Decoded[None, Any], writes: list[GroupWrite]) -> RemotingCommand:
        for w in writes:
            old = self.groups.get(w.config.group_name)
            attrs = alter_attributes(old.attributes if old else {}, w.attribute_ops)
            self.groups[w.config.group_name] = w.config.with_(attributes=attrs)
        return req.cmd.response()

    def _stored_group(self, cfg: SubscriptionGroupConfig) -> dict[str, Any]:
        doc = cfg.to_json()
        if self.version < 439:
            del doc["attributes"]
        if self.version < 413:
            for key in ("consumeMessageOrderly", "groupRetryPolicy", "groupSysFlag", "consumeTimeoutMinute"):
                del doc[key]
        return doc

    def _delete_topic(self, req: Decoded[topics.TopicHeader, None]) -> RemotingCommand:
        self.topics.pop(req.header.topic, None)
        return req.cmd.response()

    def _topic_stats(self, req: Decoded[topics.TopicHeader, None]) -> RemotingCommand:
        cfg = self.topics.get(req.header.topic)
        if cfg is None:
            return req.cmd.response(ResponseCode.TOPIC_NOT_EXIST, "topic not exist")
        queues = [
            QueueOffsets(cfg.topic_name, self.name, q, 0, 3 if q == 0 else 0, 1700000000000 if q == 0 else 0)
            for q in range(cfg.write_queue_nums)
        ]
        return topics.GET_TOPIC_STATS_INFO.answer(req.cmd, body=TopicStats(queues))

    def _stored(self, cfg: TopicConfig) -> TopicConfig:
        """What this broker version keeps: 4.9 drops attributes and the order flag of a create."""
        if self.version < 413:
            return cfg.with_(attributes={}, order=False)
        return cfg


@dataclass
class FakeNamesrv:
    addr: str
    brokers: list[FakeBroker] = field(default_factory=list)
    kv: dict[tuple[str, str], str] = field(default_factory=dict)
    down: bool = False
    order_message_enable: bool = False
    requests: list[RemotingCommand] = field(default_factory=list)

    async def handle(self, cmd: RemotingCommand) -> RemotingCommand:
        self.requests.append(cmd)
        handlers = [
            (namesrv.GET_BROKER_CLUSTER_INFO, self._cluster_info),
            (namesrv.GET_ROUTEINFO_BY_TOPIC, self._route),
            (namesrv.GET_ALL_TOPIC_LIST_FROM_NAMESERVER, self._all_topics),
            (namesrv_admin.PUT_KV_CONFIG, self._put_kv),
            (namesrv_admin.GET_KV_CONFIG, self._get_kv),
            (namesrv_admin.DELETE_KV_CONFIG, self._delete_kv),
            (namesrv.DELETE_TOPIC_IN_NAMESRV, lambda req: req.cmd.response()),
        ]
        return answer(handlers, cmd)

    def cluster_info(self) -> ClusterInfo:
        info = ClusterInfo()
        for b in self.brokers:
            bd = info.brokers.setdefault(b.name, BrokerData(b.cluster, b.name))
            bd.broker_addrs[b.broker_id] = b.addr
            names = info.clusters.setdefault(b.cluster, [])
            if b.name not in names:
                names.append(b.name)
        return info

    def _cluster_info(self, req: Decoded[None, None]) -> RemotingCommand:
        """Legacy fastjson form, with unquoted integer keys, as a real name server sends it."""
        resp = namesrv.GET_BROKER_CLUSTER_INFO.answer(req.cmd, body=self.cluster_info())
        text = resp.body.decode()
        for bid in range(4):
            text = text.replace(f'"{bid}":"', f'{bid}:"')
        resp.body = text.encode()
        return resp

    def _all_topics(self, req: Decoded[None, None]) -> RemotingCommand:
        topic_names = sorted({t for b in self.brokers for t in b.topics})
        return namesrv.GET_ALL_TOPIC_LIST_FROM_NAMESERVER.answer(req.cmd, body=topic_names)

    def _put_kv(self, req: Decoded[namesrv_admin.PutKvHeader, None]) -> RemotingCommand:
        h = req.header
        self.kv[(h.namespace, h.key)] = h.value
        return req.cmd.response()

    def _get_kv(self, req: Decoded[namesrv_admin.KvHeader, None]) -> RemotingCommand:
        value = self.kv.get((req.header.namespace, req.header.key))
        if value is None:
            return req.cmd.response(ResponseCode.QUERY_NOT_FOUND, "No config item")
        return namesrv_admin.GET_KV_CONFIG.answer(req.cmd, namesrv_admin.KvValueHeader(value=value))

    def _delete_kv(self, req: Decoded[namesrv_admin.KvHeader, None]) -> RemotingCommand:
        self.kv.pop((req.header.namespace, req.header.key), None)
        return req.cmd.response()

    def _route(self, req: Decoded[namesrv.RouteHeader, None]) -> RemotingCommand:
        topic = req.header.topic
        holders = [b for b in self.brokers if topic in b.topics and b.broker_id == 0]
        if not holders:
            return req.cmd.response(
                ResponseCode.TOPIC_NOT_EXIST, f"No topic route info in name server for the topic: {topic}"
            )
        info = self.cluster_info()
        queue_datas = [
            QueueData(b.name, b.topics[topic].read_queue_nums, b.topics[topic].write_queue_nums,
                      b.topics[topic].perm, b.topics[topic].topic_sys_flag)
            for b in holders
        ]  # fmt: skip
        order = self.kv.get((ORDER_TOPIC_CONFIG, topic)) if self.order_message_enable else None
        route = TopicRouteData([info.brokers[b.name] for b in holders], queue_datas, order or None)
        return namesrv.GET_ROUTEINFO_BY_TOPIC.answer(req.cmd, body=route)


class FakeTransport:
    """Implements mqadmin.transport.Transport over FakeNamesrv/FakeBroker objects."""

    def __init__(self, *servers: FakeNamesrv | FakeBroker) -> None:
        self.servers = {s.addr: s for s in servers}
        self.sent: list[tuple[str, RemotingCommand]] = []
        self.closed = False

    async def request(self, addr: str, cmd: RemotingCommand, timeout: float | None = None) -> RemotingCommand:
        self.sent.append((addr, cmd))
        server = self.servers.get(addr)
        if server is None or getattr(server, "down", False):
            raise ConnectionRefused(addr, "Connection refused")
        try:
            return await asyncio.wait_for(server.handle(cmd), timeout)
        except TimeoutError:
            raise RequestTimeout(addr, cmd.code, timeout or 0) from None

    async def oneway(self, addr: str, cmd: RemotingCommand) -> None:
        self.sent.append((addr, cmd))

    async def aclose(self) -> None:
        self.closed = True

    def codes_sent_to(self, addr: str) -> list[int]:
        return [c.code for a, c in self.sent if a == addr]


def two_broker_cluster(version: int = 479) -> tuple[FakeNamesrv, FakeBroker, FakeBroker]:
    a = FakeBroker("broker-a", "127.0.0.1:10911", version=version, runtime=runtime(version, "12.5 11.0 10.0"))
    b = FakeBroker("broker-b", "127.0.0.1:10921", version=version, runtime=runtime(version, "0.0 0.0 0.0"))
    return FakeNamesrv("127.0.0.1:9876", [a, b]), a, b
