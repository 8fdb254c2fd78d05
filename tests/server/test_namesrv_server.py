"""The name server over TCP: registration bodies and checks, route bodies, KV, perms, config, liveness."""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from mqadmin.model.data_version import DataVersion
from mqadmin.model.register_body import RegisterBody, encode_compressed, encode_json
from mqadmin.model.route import QueueData, TopicRouteData
from mqadmin.model.rpc import namesrv, namesrv_admin, registration
from mqadmin.model.rpc.registration import BrokerIdentityHeader, BrokerLivenessHeader, RegisterBrokerHeader
from mqadmin.model.topic import TopicConfig
from mqadmin.server.namesrv.config import NamesrvConfig
from mqadmin.server.namesrv.server import NameServer
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode as R
from mqadmin.wire.frame import RemotingCommand, SerializeType
from mqadmin.wire.message import body_crc

from .conftest import call, until

BROKER = "127.0.0.1:10911"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def ns(tmp_path: Path, clock: Clock):
    server = NameServer(NamesrvConfig(listen_port=0, data_dir=tmp_path / "ns", scan_interval=3600), clock=clock)
    await server.start()
    yield server
    await server.stop()


def register_header(body: bytes, **fields: Any) -> RegisterBrokerHeader:
    """REGISTER_BROKER's header for ``body`` of broker-a at BROKER (``fields``: others, by their names)."""
    header = RegisterBrokerHeader(
        broker_name="broker-a", broker_addr=BROKER, cluster_name="DefaultCluster", ha_server_addr="127.0.0.1:10912",
        broker_id=0, body_crc32=body_crc(body),
    )  # fmt: skip
    return replace(header, **fields)


async def register_body(transport: TcpTransport, ns: NameServer, header: RegisterBrokerHeader, body: bytes):
    """REGISTER_BROKER with a body as given (the declaration encodes only the JSON form; brokers also deflate)."""
    cmd = registration.REGISTER_BROKER.request(header)
    cmd.body = body
    return await transport.request(ns.addr, cmd)


def wrapper(*topics: TopicConfig, counter: int = 1) -> RegisterBody:
    return RegisterBody(DataVersion(counter, 0, 1700000000000).to_json(), {t.topic_name: t for t in topics})


TOPICS = (TopicConfig("TopicA", 4, 4, 6), TopicConfig("TBW102", 8, 8, 7))
BROKER_A = BrokerIdentityHeader(broker_name="broker-a", broker_addr=BROKER, cluster_name="DefaultCluster", broker_id=0)
K = namesrv_admin.KvHeader(namespace="NS", key="k")
NS = namesrv_admin.NamespaceHeader(namespace="NS")
ORDER_CONF = namesrv_admin.PutKvHeader(namespace="ORDER_TOPIC_CONFIG", key="TopicA", value="broker-a:4")


async def register(transport: TcpTransport, ns: NameServer, *topics: TopicConfig, **kw) -> RemotingCommand:
    body = wrapper(*(topics or TOPICS))
    header = register_header(encode_json(body), **kw)
    return await call(transport, ns.addr, registration.REGISTER_BROKER, header, body)


async def route(transport: TcpTransport, ns: NameServer, topic: str) -> RemotingCommand:
    return await call(transport, ns.addr, namesrv.GET_ROUTEINFO_BY_TOPIC, namesrv.RouteHeader(topic=topic))


async def queues(transport: TcpTransport, ns: NameServer, topic: str) -> list[QueueData]:
    return namesrv.GET_ROUTEINFO_BY_TOPIC.reply(await route(transport, ns, topic)).body.queue_datas


async def read(transport: TcpTransport, ns: NameServer, rpc, header=None, body=None):
    """A request built from its declaration, its answer read typed (it must be one the declaration accepts)."""
    resp = await call(transport, ns.addr, rpc, header, body)
    assert resp.code in rpc.ok, (rpc.name, resp.code, resp.remark)
    return rpc.reply(resp)


async def test_json_registration_makes_routes(ns, transport):
    resp = await register(transport, ns)
    assert resp.code == R.SUCCESS and resp.remark is None
    got = await route(transport, ns, "TopicA")
    assert got.code == R.SUCCESS
    obj = json.loads(got.body)
    assert obj["queueDatas"] == [
        {"brokerName": "broker-a", "perm": 6, "readQueueNums": 4, "topicSysFlag": 0, "writeQueueNums": 4}
    ]
    assert obj["brokerDatas"] == [{"brokerAddrs": {"0": BROKER}, "brokerName": "broker-a", "cluster": "DefaultCluster"}]


async def test_route_body_is_compact_with_quoted_ids_and_no_null_or_booleans(ns, transport):
    await register(transport, ns)
    body = (await route(transport, ns, "TBW102")).body.decode()
    assert ": " not in body and ", " not in body
    assert '"brokerAddrs":{"0":' in body
    assert not re.search(r"\b(null|true|false)\b", body)


async def test_compressed_registration_is_accepted(ns, transport):
    dv = DataVersion(5, 0, 1700000000000).to_json()
    topics = {"Zipped": TopicConfig("Zipped", 2, 2, 6, attributes={"message.type": "FIFO"}), "TBW102": TOPICS[1]}
    body = encode_compressed(dv, topics)
    resp = await register_body(transport, ns, register_header(body, compressed=True), body)
    assert resp.code == R.SUCCESS, resp.remark
    (qd,) = await queues(transport, ns, "Zipped")
    assert (qd.read_queue_nums, qd.write_queue_nums) == (2, 2)


async def test_deflated_body_flagged_uncompressed_is_still_read(ns, transport):
    """A 5.x broker with compressedRegister deflates but sends compressed=false."""
    body = encode_compressed(DataVersion(1, 0, 1).to_json(), {t.topic_name: t for t in TOPICS})
    resp = await register_body(transport, ns, register_header(body), body)
    assert resp.code == R.SUCCESS
    assert (await route(transport, ns, "TopicA")).code == R.SUCCESS


async def test_crc_mismatch_is_refused(ns, transport):
    body = encode_json(wrapper(*TOPICS))
    resp = await register_body(transport, ns, register_header(body, body_crc32=body_crc(body) ^ 1), body)
    assert (resp.code, resp.remark) == (R.SYSTEM_ERROR, "crc32 not match")
    assert (await route(transport, ns, "TopicA")).code == R.TOPIC_NOT_EXIST


async def test_crc_zero_skips_the_check(ns, transport):
    body = encode_json(wrapper(*TOPICS))
    resp = await register_body(transport, ns, register_header(body, body_crc32=0), body)
    assert resp.code == R.SUCCESS


async def test_first_registration_with_exactly_one_topic_fails_like_5x(ns, transport):
    resp = await register(transport, ns, TopicConfig("Lonely"))
    assert (resp.code, resp.remark) == (R.SYSTEM_ERROR, "register broker failed")


async def test_unknown_topic_answers_17_with_the_java_remark(ns, transport):
    resp = await route(transport, ns, "Missing")
    assert resp.code == R.TOPIC_NOT_EXIST
    assert resp.remark.startswith("No topic route info in name server for the topic: Missing")


async def test_binary_header_requests_get_binary_answers(ns, transport):
    await register(transport, ns)
    cmd = namesrv.GET_ROUTEINFO_BY_TOPIC.request(namesrv.RouteHeader(topic="TopicA"))
    cmd.serialize = SerializeType.ROCKETMQ
    resp = await transport.request(ns.addr, cmd)
    assert resp.code == R.SUCCESS and resp.serialize == SerializeType.ROCKETMQ


async def test_cluster_info_and_topic_lists(ns, transport):
    await register(transport, ns)
    await register(transport, ns, *TOPICS, broker_name="broker-b", broker_addr="127.0.0.1:10921")
    info = (await read(transport, ns, namesrv.GET_BROKER_CLUSTER_INFO)).body
    assert sorted(info.clusters["DefaultCluster"]) == ["broker-a", "broker-b"]
    assert info.brokers["broker-b"].broker_addrs == {0: "127.0.0.1:10921"}
    all_topics = await call(transport, ns.addr, namesrv.GET_ALL_TOPIC_LIST_FROM_NAMESERVER)
    assert json.loads(all_topics.body) == {"topicList": ["TBW102", "TopicA"]}  # nothing else on the wire
    by_cluster = await read(
        transport, ns, namesrv.GET_TOPICS_BY_CLUSTER, namesrv.ClusterHeader(cluster="DefaultCluster")
    )
    assert by_cluster.body == ["TBW102", "TopicA"]
    system = await call(transport, ns.addr, namesrv.GET_SYSTEM_TOPIC_LIST_FROM_NS)
    assert namesrv.GET_SYSTEM_TOPIC_LIST_FROM_NS.reply(system).body == ["DefaultCluster", "broker-a", "broker-b"]
    assert "brokerAddr" in json.loads(system.body)  # a key the declaration does not read


async def test_unregister_and_delete_topic(ns, transport):
    await register(transport, ns)
    delete = namesrv.DeleteTopicHeader(topic="TopicA", cluster_name="DefaultCluster")
    assert (await call(transport, ns.addr, namesrv.DELETE_TOPIC_IN_NAMESRV, delete)).code == R.SUCCESS
    assert (await route(transport, ns, "TopicA")).code == R.TOPIC_NOT_EXIST
    assert (await call(transport, ns.addr, registration.UNREGISTER_BROKER, BROKER_A)).code == R.SUCCESS
    assert (await route(transport, ns, "TBW102")).code == R.TOPIC_NOT_EXIST


async def test_register_topic_in_namesrv_adds_queue_data_of_known_brokers(ns, transport):
    await register(transport, ns)
    pushed = TopicRouteData(queue_datas=[QueueData("broker-a", 2, 2, 6), QueueData("stranger", 2, 2, 6)])
    header = registration.RegisterTopicHeader(topic="Pushed")
    assert (await call(transport, ns.addr, registration.REGISTER_TOPIC_IN_NAMESRV, header, pushed)).code == 0
    assert [q.broker_name for q in await queues(transport, ns, "Pushed")] == ["broker-a"]


async def test_kv_put_get_list_delete_and_persistence(ns, transport, tmp_path, clock):
    put = namesrv_admin.PutKvHeader(namespace="NS", key="k", value="v1")
    assert (await call(transport, ns.addr, namesrv_admin.PUT_KV_CONFIG, put)).code == R.SUCCESS
    got = await read(transport, ns, namesrv_admin.GET_KV_CONFIG, K)
    assert (got.code, got.header.value) == (R.SUCCESS, "v1")
    listed = await read(
        transport, ns, namesrv_admin.GET_KVLIST_BY_NAMESPACE, namesrv_admin.NamespaceHeader(namespace="NS")
    )
    assert listed.body == {"k": "v1"}
    on_disk = json.loads((tmp_path / "ns" / "kvConfig.json").read_text())
    assert on_disk == {"configTable": {"NS": {"k": "v1"}}}
    # a fresh name server on the same directory has it
    again = NameServer(NamesrvConfig(listen_port=0, data_dir=tmp_path / "ns"), clock=clock)
    again.kv.load()
    assert again.kv.get("NS", "k") == "v1"
    assert (await call(transport, ns.addr, namesrv_admin.DELETE_KV_CONFIG, K)).code == 0
    missing = await call(transport, ns.addr, namesrv_admin.GET_KV_CONFIG, K)
    assert (missing.code, missing.remark) == (R.QUERY_NOT_FOUND, "No config item, Namespace: NS Key: k")
    none = await call(
        transport, ns.addr, namesrv_admin.GET_KVLIST_BY_NAMESPACE, namesrv_admin.NamespaceHeader(namespace="NS")
    )
    assert none.code == R.QUERY_NOT_FOUND


async def test_missing_header_field_is_an_error_not_a_crash(ns, transport):
    """Raw: no declaration leaves a required field out."""
    resp = await transport.request(ns.addr, RemotingCommand(code=RC.PUT_KV_CONFIG, ext={"namespace": "NS"}))
    assert resp.code == R.SYSTEM_ERROR and "key" in resp.remark
    assert (await call(transport, ns.addr, namesrv.GET_BROKER_CLUSTER_INFO)).code == R.SUCCESS


async def test_order_topic_config_reaches_routes_and_registration_answers(ns, transport):
    await call(transport, ns.addr, namesrv_admin.PUT_KV_CONFIG, ORDER_CONF)
    resp = await register(transport, ns)
    assert registration.REGISTER_BROKER.reply(resp).body == {"TopicA": "broker-a:4"}
    assert (
        namesrv.GET_ROUTEINFO_BY_TOPIC.reply(await route(transport, ns, "TopicA")).body.order_topic_conf == "broker-a:4"
    )
    assert "orderTopicConf" not in json.loads((await route(transport, ns, "TBW102")).body)  # no null on the wire


async def test_order_conf_left_out_when_order_message_disabled(ns, transport):
    await call(transport, ns.addr, namesrv_admin.PUT_KV_CONFIG, ORDER_CONF)
    await register(transport, ns)
    upd = await call(transport, ns.addr, namesrv.UPDATE_NAMESRV_CONFIG, body={"orderMessageEnable": "false"})
    assert upd.code == R.SUCCESS
    assert "orderTopicConf" not in json.loads((await route(transport, ns, "TopicA")).body)


async def test_wipe_and_add_write_perm(ns, transport):
    await register(transport, ns)
    broker_a = namesrv_admin.BrokerNameHeader(broker_name="broker-a")
    wiped = await read(transport, ns, namesrv_admin.WIPE_WRITE_PERM_OF_BROKER, broker_a)
    assert (wiped.code, wiped.header.count) == (R.SUCCESS, 2)
    assert (await queues(transport, ns, "TBW102"))[0].perm == 5
    added = await read(transport, ns, namesrv_admin.ADD_WRITE_PERM_OF_BROKER, broker_a)
    assert added.header.count == 2
    assert (await queues(transport, ns, "TBW102"))[0].perm == 6


async def test_namesrv_config_get_update_and_blacklist(ns, transport):
    config = (await read(transport, ns, namesrv.GET_NAMESRV_CONFIG)).body
    assert config["orderMessageEnable"] == "true" and "kvConfigPath" in config
    update = namesrv.UPDATE_NAMESRV_CONFIG
    for key in ("configStorePath", "kvConfigPath", "configBlackList"):
        resp = await call(transport, ns.addr, update, body={key: "/tmp/x"})
        assert (resp.code, resp.remark) == (R.NO_PERMISSION, "Can not update config in black list.")
    bad = await call(transport, ns.addr, update, body={"scanNotActiveBrokerInterval": "soon"})
    assert bad.code == R.SYSTEM_ERROR and "scanNotActiveBrokerInterval" in bad.remark
    ok = await call(transport, ns.addr, update, body={"enableAllTopicList": "false"})
    assert ok.code == R.SUCCESS
    off = await call(transport, ns.addr, namesrv.GET_ALL_TOPIC_LIST_FROM_NAMESERVER)
    assert (off.code, off.remark) == (R.SYSTEM_ERROR, "disable")


async def test_closing_the_registering_connection_unregisters_at_once(ns):
    own = TcpTransport(timeout=5)
    await register(own, ns)
    assert "broker-a" in ns.routes.brokers
    await own.aclose()
    await until(lambda: "broker-a" not in ns.routes.brokers, what="unregistration on close")
    assert ns.routes.route("TopicA") is None


async def test_scan_expires_silent_brokers_and_heartbeat_keeps_them(ns, transport, clock):
    await register(transport, ns)
    await register(transport, ns, *TOPICS, broker_name="broker-b", broker_addr="127.0.0.1:10921")
    clock.now += 100
    hb = BrokerLivenessHeader(cluster_name="DefaultCluster", broker_addr="127.0.0.1:10921", broker_name="broker-b")
    assert (await call(transport, ns.addr, registration.BROKER_HEARTBEAT, hb)).code == R.SUCCESS
    clock.now += 30
    ns.scan()
    assert set(ns.routes.brokers) == {"broker-b"}


async def test_query_data_version(ns, transport):
    await register(transport, ns)
    header = BrokerLivenessHeader(
        cluster_name="DefaultCluster", broker_addr=BROKER, broker_name="broker-a", broker_id=0
    )
    query = registration.QUERY_DATA_VERSION
    same = await read(transport, ns, query, header, DataVersion(1, 0, 1700000000000))
    assert same.header.changed is False and same.body == DataVersion(1, 0, 1700000000000)
    assert (await read(transport, ns, query, header, DataVersion(2, 0, 1700000000000))).header.changed is True


async def test_expiry_by_the_periodic_scan(tmp_path):
    """With tiny intervals and the real clock: a broker that stops registering disappears by itself."""
    server = NameServer(NamesrvConfig(listen_port=0, data_dir=tmp_path, scan_interval=0.05, broker_expire=0.3))
    await server.start()
    own = TcpTransport(timeout=5)
    try:
        await register(own, server)
        assert server.routes.brokers
        await until(lambda: not server.routes.brokers, timeout=10, what="expiry")
        assert server.routes.route("TopicA") is None
    finally:
        await own.aclose()
        await server.stop()


def test_compressed_body_layout_matches_java() -> None:
    """i32-prefixed DataVersion JSON, topic count, space-separated topic lines, filter list, mapping count."""
    data = zlib.decompress(encode_compressed({"counter": 1}, {"T": TopicConfig("T", 2, 3, 6)}))
    assert data.startswith(b"\x00\x00\x00\x0d" + b'{"counter":1}' + b"\x00\x00\x00\x01")
    assert b"T 2 3 6 SINGLE_TAG {}" in data and data.endswith(b"\x00\x00\x00\x02[]\x00\x00\x00\x00")
