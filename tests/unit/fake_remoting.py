"""An in-memory Transport for admin-client and CLI unit tests: name servers and brokers as small
Python objects that answer remoting commands the way Apache RocketMQ does (the parts we use)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from mqadmin.model.group import SubscriptionGroupConfig
from mqadmin.model.route import BrokerData, ClusterInfo
from mqadmin.model.rpc import groups as group_rpc
from mqadmin.model.rpc.topics import UPDATE_AND_CREATE_TOPIC, UPDATE_AND_CREATE_TOPIC_LIST
from mqadmin.model.topic import TopicConfig, alter_attributes
from mqadmin.model.topic_batch import ops_from_map
from mqadmin.transport.errors import ConnectionRefused, RequestTimeout
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

Hook = Callable[[RemotingCommand], Awaitable[RemotingCommand | None]]


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
        if cmd.code == RC.GET_TOPIC_CONFIG:
            if self.version < 413:
                return cmd.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, f" request type {cmd.code} not supported")
            cfg = self.topics.get(cmd.ext["topic"])
            if cfg is None:
                return cmd.response(ResponseCode.TOPIC_NOT_EXIST, "No topic in this broker.")
            return cmd.response(body=fastjson.dumps_bytes(cfg.to_json()))
        if cmd.code == RC.GET_ALL_TOPIC_CONFIG:
            table = {n: self._stored(c).to_json() for n, c in self.topics.items()}
            return cmd.response(body=fastjson.dumps_bytes({"topicConfigTable": table}))
        if cmd.code == RC.UPDATE_AND_CREATE_TOPIC:
            if self.broker_id != 0 and self.version < 413:
                return cmd.response(ResponseCode.SYSTEM_ERROR, "slave can not create topic")
            self.topics[cmd.ext["topic"]] = self._stored(self._merged(cmd))
            return cmd.response(remark="not set any response code")
        if cmd.code == RC.UPDATE_AND_CREATE_TOPIC_LIST and self.version >= 473:  # 5.3.0+
            for cfg in UPDATE_AND_CREATE_TOPIC_LIST.decode(cmd).body:
                old = self.topics.get(cfg.topic_name)
                attrs = alter_attributes(old.attributes if old else {}, ops_from_map(cfg.attributes))
                self.topics[cfg.topic_name] = self._stored(cfg.with_(attributes=attrs))
            return cmd.response()
        if cmd.code == RC.QUERY_TOPIC_CONSUME_BY_WHO:
            return cmd.response(body=fastjson.dumps_bytes({"groupList": self.consumers.get(cmd.ext["topic"], [])}))
        if cmd.code == RC.DELETE_TOPIC_IN_BROKER:
            self.topics.pop(cmd.ext["topic"], None)
            return cmd.response()
        if cmd.code == RC.GET_BROKER_RUNTIME_INFO:
            return cmd.response(body=fastjson.dumps_bytes({"table": self.runtime}))
        if cmd.code == RC.GET_TOPIC_STATS_INFO:
            if cmd.ext["topic"] not in self.topics:
                return cmd.response(ResponseCode.TOPIC_NOT_EXIST, "topic not exist")
            cfg = self.topics[cmd.ext["topic"]]
            rows = ",".join(
                f'{{"brokerName":"{self.name}","queueId":{q},"topic":"{cfg.topic_name}"}}:'
                f'{{"lastUpdateTimestamp":{1700000000000 if q == 0 else 0},"maxOffset":{3 if q == 0 else 0},'
                f'"minOffset":0}}'
                for q in range(cfg.write_queue_nums)
            )
            return cmd.response(body=('{"offsetTable":{' + rows + "}}").encode())
        if cmd.code in _GROUP_CODES:
            return self._group_answer(cmd)
        return cmd.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, f" request type {cmd.code} not supported")

    def _group_answer(self, cmd: RemotingCommand) -> RemotingCommand:
        """Subscription groups as a broker of ``version`` keeps them (4.9: no 5.x settings; before 5.1.3 no
        attributes; before 5.3.1 no list request). Attribute operations are applied to what it holds."""
        if cmd.code == RC.GET_ALL_SUBSCRIPTIONGROUP_CONFIG:
            table = {n: self._stored_group(c) for n, c in self.groups.items()}
            return cmd.response(body=fastjson.dumps_bytes({"subscriptionGroupTable": table}))
        if cmd.code == RC.DELETE_SUBSCRIPTIONGROUP:
            self.groups.pop(cmd.ext["groupName"], None)
            return cmd.response()
        if cmd.code == RC.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST and self.version < 475:
            return cmd.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, f" request type {cmd.code} not supported")
        if cmd.code == RC.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP:
            writes = [group_rpc.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP.decode(cmd).body]
        else:
            writes = group_rpc.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST.decode(cmd).body
        for w in writes:
            old = self.groups.get(w.config.group_name)
            attrs = alter_attributes(old.attributes if old else {}, w.attribute_ops)
            self.groups[w.config.group_name] = w.config.with_(attributes=attrs)
        return cmd.response()

    def _stored_group(self, cfg: SubscriptionGroupConfig) -> dict:
        doc = cfg.to_json()
        if self.version < 439:
            del doc["attributes"]
        if self.version < 413:
            for key in ("consumeMessageOrderly", "groupRetryPolicy", "groupSysFlag", "consumeTimeoutMinute"):
                del doc[key]
        return doc

    def _merged(self, cmd: RemotingCommand) -> TopicConfig:
        """The config after a code-17 request: a 5.x broker applies the request's attribute operations
        (``+k=v``, ``-k``) to the attributes it holds."""
        h = UPDATE_AND_CREATE_TOPIC.decode(cmd).header
        old = self.topics.get(h.topic)
        return h.config(old.attributes if old else None)

    def _stored(self, cfg: TopicConfig) -> TopicConfig:
        """What this broker version keeps: 4.9 drops attributes and the order flag of a create."""
        if self.version < 413:
            return cfg.with_(attributes={}, order=False)
        return cfg


_GROUP_CODES = frozenset(
    {
        RC.GET_ALL_SUBSCRIPTIONGROUP_CONFIG, RC.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
        RC.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST, RC.DELETE_SUBSCRIPTIONGROUP,
    }
)  # fmt: skip


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
        if cmd.code == RC.GET_BROKER_CLUSTER_INFO:
            return cmd.response(body=self._cluster_info_body())
        if cmd.code == RC.GET_ROUTEINFO_BY_TOPIC:
            return self._route(cmd)
        if cmd.code == RC.GET_ALL_TOPIC_LIST_FROM_NAMESERVER:
            topics = sorted({t for b in self.brokers for t in b.topics})
            return cmd.response(body=fastjson.dumps_bytes({"topicList": topics}))
        if cmd.code == RC.PUT_KV_CONFIG:
            self.kv[(cmd.ext["namespace"], cmd.ext["key"])] = cmd.ext["value"]
            return cmd.response()
        if cmd.code == RC.GET_KV_CONFIG:
            value = self.kv.get((cmd.ext["namespace"], cmd.ext["key"]))
            if value is None:
                return cmd.response(ResponseCode.QUERY_NOT_FOUND, "No config item")
            return cmd.response(ext={"value": value})
        if cmd.code == RC.DELETE_KV_CONFIG:
            self.kv.pop((cmd.ext["namespace"], cmd.ext["key"]), None)
            return cmd.response()
        if cmd.code == RC.DELETE_TOPIC_IN_NAMESRV:
            return cmd.response()
        return cmd.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, f" request type {cmd.code} not supported")

    def cluster_info(self) -> ClusterInfo:
        info = ClusterInfo()
        for b in self.brokers:
            bd = info.brokers.setdefault(b.name, BrokerData(b.cluster, b.name))
            bd.broker_addrs[b.broker_id] = b.addr
            names = info.clusters.setdefault(b.cluster, [])
            if b.name not in names:
                names.append(b.name)
        return info

    def _cluster_info_body(self) -> bytes:
        """Legacy fastjson form, with unquoted integer keys, as a real name server sends it."""
        text = fastjson.dumps(self.cluster_info().to_json())
        for bid in range(4):
            text = text.replace(f'"{bid}":"', f'{bid}:"')
        return text.encode()

    def _route(self, cmd: RemotingCommand) -> RemotingCommand:
        topic = cmd.ext["topic"]
        holders = [b for b in self.brokers if topic in b.topics and b.broker_id == 0]
        if not holders:
            return cmd.response(
                ResponseCode.TOPIC_NOT_EXIST, f"No topic route info in name server for the topic: {topic}"
            )
        info = self.cluster_info()
        route = {
            "brokerDatas": [info.brokers[b.name].to_json() for b in holders],
            "filterServerTable": {},
            "queueDatas": [
                {
                    "brokerName": b.name,
                    "perm": b.topics[topic].perm,
                    "readQueueNums": b.topics[topic].read_queue_nums,
                    "topicSysFlag": b.topics[topic].topic_sys_flag,
                    "writeQueueNums": b.topics[topic].write_queue_nums,
                }
                for b in holders
            ],
        }
        order = self.kv.get(("ORDER_TOPIC_CONFIG", topic))
        if order and self.order_message_enable:
            route["orderTopicConf"] = order
        return cmd.response(body=fastjson.dumps_bytes(route))


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
    a = FakeBroker("broker-a", "127.0.0.1:10911", version=version, runtime=_runtime(version, "12.5 11.0 10.0"))
    b = FakeBroker("broker-b", "127.0.0.1:10921", version=version, runtime=_runtime(version, "0.0 0.0 0.0"))
    return FakeNamesrv("127.0.0.1:9876", [a, b]), a, b


def _runtime(version: int, put_tps: str) -> dict[str, str]:
    desc = "V5_3_3" if version >= 413 else "V4_9_8"
    out_key = "getTransferredTps" if version >= 413 else "getTransferedTps"
    return {
        "brokerVersionDesc": desc,
        "brokerVersion": str(version),
        "putTps": put_tps,
        out_key: "3.25 2.0 1.0 ",
        "msgPutTotalTodayNow": "150",
        "msgPutTotalTodayMorning": "100",
        "msgPutTotalYesterdayMorning": "40",
        "msgGetTotalTodayNow": "90",
        "msgGetTotalTodayMorning": "60",
        "msgGetTotalYesterdayMorning": "10",
        "commitLogDiskRatio": "0.24",
    }
