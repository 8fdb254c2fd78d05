"""The name server over TCP: registration bodies and checks, route bodies, KV, perms, config, liveness."""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path

import pytest

from mqadmin.model.data_version import DataVersion
from mqadmin.model.register_body import RegisterBody, encode_compressed, encode_json
from mqadmin.model.topic import TopicConfig
from mqadmin.server.namesrv.config import NamesrvConfig
from mqadmin.server.namesrv.server import NameServer
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode as R
from mqadmin.wire.frame import RemotingCommand, SerializeType
from mqadmin.wire.message import body_crc

from .conftest import request, until

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


def register_ext(body: bytes, *, name: str = "broker-a", addr: str = BROKER, broker_id: int = 0, **extra: str):
    ext = {
        "brokerName": name, "brokerAddr": addr, "clusterName": "DefaultCluster", "haServerAddr": "127.0.0.1:10912",
        "brokerId": str(broker_id), "compressed": "false", "bodyCrc32": str(body_crc(body)),
    }  # fmt: skip
    ext.update(extra)
    return ext


def wrapper(*topics: TopicConfig, counter: int = 1) -> RegisterBody:
    return RegisterBody(DataVersion(counter, 0, 1700000000000).to_json(), {t.topic_name: t for t in topics})


TOPICS = (TopicConfig("TopicA", 4, 4, 6), TopicConfig("TBW102", 8, 8, 7))


async def register(transport: TcpTransport, ns: NameServer, *topics: TopicConfig, **kw) -> RemotingCommand:
    body = encode_json(wrapper(*(topics or TOPICS)))
    return await request(transport, ns.addr, RC.REGISTER_BROKER, register_ext(body, **kw), body)


async def route(transport: TcpTransport, ns: NameServer, topic: str) -> RemotingCommand:
    return await request(transport, ns.addr, RC.GET_ROUTEINFO_BY_TOPIC, {"topic": topic})


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
    resp = await request(transport, ns.addr, RC.REGISTER_BROKER, register_ext(body, compressed="true"), body)
    assert resp.code == R.SUCCESS, resp.remark
    qd = json.loads((await route(transport, ns, "Zipped")).body)["queueDatas"][0]
    assert (qd["readQueueNums"], qd["writeQueueNums"]) == (2, 2)


async def test_deflated_body_flagged_uncompressed_is_still_read(ns, transport):
    """A 5.x broker with compressedRegister deflates but sends compressed=false."""
    body = encode_compressed(DataVersion(1, 0, 1).to_json(), {t.topic_name: t for t in TOPICS})
    resp = await request(transport, ns.addr, RC.REGISTER_BROKER, register_ext(body), body)
    assert resp.code == R.SUCCESS
    assert (await route(transport, ns, "TopicA")).code == R.SUCCESS


async def test_crc_mismatch_is_refused(ns, transport):
    body = encode_json(wrapper(*TOPICS))
    ext = register_ext(body, bodyCrc32=str(body_crc(body) ^ 1))
    resp = await request(transport, ns.addr, RC.REGISTER_BROKER, ext, body)
    assert (resp.code, resp.remark) == (R.SYSTEM_ERROR, "crc32 not match")
    assert (await route(transport, ns, "TopicA")).code == R.TOPIC_NOT_EXIST


async def test_crc_zero_skips_the_check(ns, transport):
    body = encode_json(wrapper(*TOPICS))
    resp = await request(transport, ns.addr, RC.REGISTER_BROKER, register_ext(body, bodyCrc32="0"), body)
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
    cmd = RemotingCommand(int(RC.GET_ROUTEINFO_BY_TOPIC), ext={"topic": "TopicA"}, serialize=SerializeType.ROCKETMQ)
    resp = await transport.request(ns.addr, cmd)
    assert resp.code == R.SUCCESS and resp.serialize == SerializeType.ROCKETMQ


async def test_cluster_info_and_topic_lists(ns, transport):
    await register(transport, ns)
    await register(transport, ns, *TOPICS, name="broker-b", addr="127.0.0.1:10921")
    info = fastjson.loads((await request(transport, ns.addr, RC.GET_BROKER_CLUSTER_INFO)).body)
    assert sorted(info["clusterAddrTable"]["DefaultCluster"]) == ["broker-a", "broker-b"]
    assert info["brokerAddrTable"]["broker-b"]["brokerAddrs"] == {"0": "127.0.0.1:10921"}
    all_topics = json.loads((await request(transport, ns.addr, RC.GET_ALL_TOPIC_LIST_FROM_NAMESERVER)).body)
    assert all_topics == {"topicList": ["TBW102", "TopicA"]}
    by_cluster = await request(transport, ns.addr, RC.GET_TOPICS_BY_CLUSTER, {"cluster": "DefaultCluster"})
    assert json.loads(by_cluster.body)["topicList"] == ["TBW102", "TopicA"]
    system = json.loads((await request(transport, ns.addr, RC.GET_SYSTEM_TOPIC_LIST_FROM_NS)).body)
    assert system["topicList"] == ["DefaultCluster", "broker-a", "broker-b"] and "brokerAddr" in system


async def test_unregister_and_delete_topic(ns, transport):
    await register(transport, ns)
    ext = {"topic": "TopicA", "clusterName": "DefaultCluster"}
    assert (await request(transport, ns.addr, RC.DELETE_TOPIC_IN_NAMESRV, ext)).code == R.SUCCESS
    assert (await route(transport, ns, "TopicA")).code == R.TOPIC_NOT_EXIST
    ext = {"brokerName": "broker-a", "brokerAddr": BROKER, "clusterName": "DefaultCluster", "brokerId": "0"}
    assert (await request(transport, ns.addr, RC.UNREGISTER_BROKER, ext)).code == R.SUCCESS
    assert (await route(transport, ns, "TBW102")).code == R.TOPIC_NOT_EXIST


async def test_register_topic_in_namesrv_adds_queue_data_of_known_brokers(ns, transport):
    await register(transport, ns)
    body = fastjson.dumps_bytes(
        {"queueDatas": [{"brokerName": "broker-a", "perm": 6, "readQueueNums": 2, "writeQueueNums": 2},
                        {"brokerName": "stranger", "perm": 6, "readQueueNums": 2, "writeQueueNums": 2}]}
    )  # fmt: skip
    assert (await request(transport, ns.addr, RC.REGISTER_TOPIC_IN_NAMESRV, {"topic": "Pushed"}, body)).code == 0
    assert [q["brokerName"] for q in json.loads((await route(transport, ns, "Pushed")).body)["queueDatas"]] == [
        "broker-a"
    ]


async def test_kv_put_get_list_delete_and_persistence(ns, transport, tmp_path, clock):
    put = {"namespace": "NS", "key": "k", "value": "v1"}
    assert (await request(transport, ns.addr, RC.PUT_KV_CONFIG, put)).code == R.SUCCESS
    got = await request(transport, ns.addr, RC.GET_KV_CONFIG, {"namespace": "NS", "key": "k"})
    assert (got.code, got.ext["value"]) == (R.SUCCESS, "v1")
    listed = await request(transport, ns.addr, RC.GET_KVLIST_BY_NAMESPACE, {"namespace": "NS"})
    assert json.loads(listed.body) == {"table": {"k": "v1"}}
    on_disk = json.loads((tmp_path / "ns" / "kvConfig.json").read_text())
    assert on_disk == {"configTable": {"NS": {"k": "v1"}}}
    # a fresh name server on the same directory has it
    again = NameServer(NamesrvConfig(listen_port=0, data_dir=tmp_path / "ns"), clock=clock)
    again.kv.load()
    assert again.kv.get("NS", "k") == "v1"
    assert (await request(transport, ns.addr, RC.DELETE_KV_CONFIG, {"namespace": "NS", "key": "k"})).code == 0
    missing = await request(transport, ns.addr, RC.GET_KV_CONFIG, {"namespace": "NS", "key": "k"})
    assert (missing.code, missing.remark) == (R.QUERY_NOT_FOUND, "No config item, Namespace: NS Key: k")
    none = await request(transport, ns.addr, RC.GET_KVLIST_BY_NAMESPACE, {"namespace": "NS"})
    assert none.code == R.QUERY_NOT_FOUND


async def test_missing_header_field_is_an_error_not_a_crash(ns, transport):
    resp = await request(transport, ns.addr, RC.PUT_KV_CONFIG, {"namespace": "NS"})
    assert resp.code == R.SYSTEM_ERROR and "key" in resp.remark
    assert (await request(transport, ns.addr, RC.GET_BROKER_CLUSTER_INFO)).code == R.SUCCESS


async def test_order_topic_config_reaches_routes_and_registration_answers(ns, transport):
    put = {"namespace": "ORDER_TOPIC_CONFIG", "key": "TopicA", "value": "broker-a:4"}
    await request(transport, ns.addr, RC.PUT_KV_CONFIG, put)
    resp = await register(transport, ns)
    assert json.loads(resp.body) == {"table": {"TopicA": "broker-a:4"}}
    assert json.loads((await route(transport, ns, "TopicA")).body)["orderTopicConf"] == "broker-a:4"
    assert "orderTopicConf" not in json.loads((await route(transport, ns, "TBW102")).body)


async def test_order_conf_left_out_when_order_message_disabled(ns, transport):
    await request(
        transport,
        ns.addr,
        RC.PUT_KV_CONFIG,
        {"namespace": "ORDER_TOPIC_CONFIG", "key": "TopicA", "value": "broker-a:4"},
    )
    await register(transport, ns)
    upd = await request(transport, ns.addr, RC.UPDATE_NAMESRV_CONFIG, body=b"orderMessageEnable=false\n")
    assert upd.code == R.SUCCESS
    assert "orderTopicConf" not in json.loads((await route(transport, ns, "TopicA")).body)


async def test_wipe_and_add_write_perm(ns, transport):
    await register(transport, ns)
    wiped = await request(transport, ns.addr, RC.WIPE_WRITE_PERM_OF_BROKER, {"brokerName": "broker-a"})
    assert (wiped.code, wiped.ext["wipeTopicCount"]) == (R.SUCCESS, "2")
    assert json.loads((await route(transport, ns, "TBW102")).body)["queueDatas"][0]["perm"] == 5
    added = await request(transport, ns.addr, RC.ADD_WRITE_PERM_OF_BROKER, {"brokerName": "broker-a"})
    assert added.ext["addTopicCount"] == "2"
    assert json.loads((await route(transport, ns, "TBW102")).body)["queueDatas"][0]["perm"] == 6


async def test_namesrv_config_get_update_and_blacklist(ns, transport):
    text = (await request(transport, ns.addr, RC.GET_NAMESRV_CONFIG)).body.decode()
    assert "orderMessageEnable=true" in text and "kvConfigPath=" in text
    for key in ("configStorePath", "kvConfigPath", "configBlackList"):
        resp = await request(transport, ns.addr, RC.UPDATE_NAMESRV_CONFIG, body=f"{key}=/tmp/x\n".encode())
        assert (resp.code, resp.remark) == (R.NO_PERMISSION, "Can not update config in black list.")
    bad = await request(transport, ns.addr, RC.UPDATE_NAMESRV_CONFIG, body=b"scanNotActiveBrokerInterval=soon\n")
    assert bad.code == R.SYSTEM_ERROR and "scanNotActiveBrokerInterval" in bad.remark
    ok = await request(transport, ns.addr, RC.UPDATE_NAMESRV_CONFIG, body=b"enableAllTopicList=false\n")
    assert ok.code == R.SUCCESS
    off = await request(transport, ns.addr, RC.GET_ALL_TOPIC_LIST_FROM_NAMESERVER)
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
    await register(transport, ns, *TOPICS, name="broker-b", addr="127.0.0.1:10921")
    clock.now += 100
    hb = {"clusterName": "DefaultCluster", "brokerAddr": "127.0.0.1:10921", "brokerName": "broker-b"}
    assert (await request(transport, ns.addr, RC.BROKER_HEARTBEAT, hb)).code == R.SUCCESS
    clock.now += 30
    ns.scan()
    assert set(ns.routes.brokers) == {"broker-b"}


async def test_query_data_version(ns, transport):
    await register(transport, ns)
    ext = {"brokerName": "broker-a", "brokerAddr": BROKER, "clusterName": "DefaultCluster", "brokerId": "0"}
    same = fastjson.dumps_bytes(DataVersion(1, 0, 1700000000000).to_json())
    resp = await request(transport, ns.addr, RC.QUERY_DATA_VERSION, ext, same)
    assert resp.ext["changed"] == "false" and json.loads(resp.body)["counter"] == 1
    newer = fastjson.dumps_bytes(DataVersion(2, 0, 1700000000000).to_json())
    assert (await request(transport, ns.addr, RC.QUERY_DATA_VERSION, ext, newer)).ext["changed"] == "true"


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
