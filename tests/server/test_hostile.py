"""Hostile requests against the embedded name server and broker.

For every request code that carries a topic or a group: traversal names, absolute paths,
newlines, NUL, lone surrogates and over-long names are refused with Apache's code before anything
changes; a canary directory next to the data directory stays untouched; no table ends up holding
an illegal name; and the servers still serve normal clients afterwards. The reproductions of the
probe's findings (issue 14) are tests here too.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import struct
from dataclasses import replace
from pathlib import Path

import pytest

from mqadmin.model.group import GroupWrite, SubscriptionGroupConfig
from mqadmin.model.rpc import groups, messages, namesrv_admin, topics
from mqadmin.model.rpc.namesrv import GET_ROUTEINFO_BY_TOPIC, RouteHeader
from mqadmin.model.topic import TopicConfig
from mqadmin.server.remoting import RemotingServer
from mqadmin.transport.frames import FrameReader
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode as R
from mqadmin.wire.frame import RemotingCommand
from tests.devprocs import start_dev

from .conftest import call, pull_header, request, send_ext, send_header, topic_ext
from .hostile import (
    NAME_CASES,
    NameCase,
    assert_no_illegal_name_is_held,
    assert_untouched,
    hostile_names,
    json_bytes,
    lone_surrogate_bodies,
    make_canary,
    path_escapes,
    raw_request,
)


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    return make_canary(tmp_path)


@pytest.fixture
async def hostile_cluster(make_cluster, canary):
    """One broker with a stored message at commit-log offset 0 (so a send-back would go ahead)."""
    cluster = await make_cluster(brokers=1)
    async with TcpTransport(timeout=10) as t:
        sent = await call(t, cluster.brokers[0].config.addr, messages.SEND_MESSAGE, send_header("T_OK"), b"first")
        assert sent.code == R.SUCCESS
    return cluster


def addr_for(cluster, case: NameCase) -> str:
    return cluster.brokers[0].config.addr if case.server == "broker" else cluster.namesrv_addr


async def assert_still_serving(cluster, name: str) -> None:
    """A normal client can still create a topic, find its route, send to it and pull from it, and a
    new consumer group can still be created and persisted."""
    broker = cluster.brokers[0]
    addr = broker.config.addr
    async with TcpTransport(timeout=10) as t:
        created = await call(
            t, addr, topics.UPDATE_AND_CREATE_TOPIC, topics.CreateTopicHeader.of(TopicConfig(name, 1, 1))
        )
        assert created.code == R.SUCCESS
        route = await call(t, cluster.namesrv_addr, GET_ROUTEINFO_BY_TOPIC, RouteHeader(topic=name))
        assert route.code == R.SUCCESS
        assert (await call(t, addr, messages.SEND_MESSAGE, send_header(name), b"after")).code == R.SUCCESS
        pulled = await call(t, addr, messages.PULL_MESSAGE, pull_header(name, group=f"CG_{name}"))
        assert pulled.code == R.SUCCESS
        group = GroupWrite(SubscriptionGroupConfig(f"G_{name}"))
        assert (await call(t, addr, groups.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, body=group)).code == R.SUCCESS
    on_disk = json.loads(broker.data_path("subscriptionGroup.json").read_text())
    assert f"G_{name}" in on_disk["subscriptionGroupTable"]


async def assert_broker_files_intact(cluster) -> None:
    """The broker's own files are all still there (a '..' topic once deleted the whole data dir)."""
    store = cluster.brokers[0].store
    await store.messages.flush()
    await store.offsets.flush()
    root = Path(cluster.brokers[0].config.data_dir)
    assert any((root / "commitlog").iterdir()), "the commit log is gone"
    assert (root / "consumequeue" / "T_OK" / "0").is_file(), "a consume queue is gone"
    assert (root / "config").is_dir() and (root / "checkpoint").is_file()


@pytest.mark.parametrize("case", NAME_CASES, ids=lambda c: c.id)
async def test_hostile_names_are_refused_before_anything_changes(hostile_cluster, canary, case: NameCase):
    cluster = hostile_cluster
    for name in hostile_names(canary, case.kind):
        ext, body = case.build(name)
        resp = await raw_request(addr_for(cluster, case), case.code, ext, body)
        assert resp is not None, f"{name!r}: the connection was closed instead of answered"
        assert resp.code == R.INVALID_PARAMETER, f"{name!r}: {resp.code} {resp.remark}"
        word = "Unicode" if "\ud800" in name or "\udfff" in name else str(case.kind)
        assert word in resp.remark, f"{name!r}: {resp.remark}"
    await assert_broker_files_intact(cluster)
    assert_untouched(canary)
    assert_no_illegal_name_is_held(cluster)
    await assert_still_serving(cluster, "AfterHostile")


FILE_TOUCHING = [
    c
    for c in NAME_CASES
    if (c.code, c.where)
    in {
        (RC.SEND_MESSAGE, "topic"), (RC.SEND_MESSAGE_V2, "b"), (RC.CONSUMER_SEND_MSG_BACK, "group"),
        (RC.HEART_BEAT, "consumerGroup"), (RC.UPDATE_AND_CREATE_TOPIC, "topic"),
        (RC.UPDATE_AND_CREATE_TOPIC_LIST, "topicName"), (RC.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, "groupName"),
        (RC.DELETE_TOPIC_IN_BROKER, "topic"), (RC.DELETE_SUBSCRIPTIONGROUP, "group"),
        (RC.UPDATE_CONSUMER_OFFSET, "group"), (RC.PULL_MESSAGE, "consumerGroup"),
    }
]  # fmt: skip


@pytest.mark.parametrize("case", FILE_TOUCHING, ids=lambda c: c.id)
async def test_the_path_layer_alone_keeps_the_canary(hostile_cluster, canary, case: NameCase):
    """Defence in depth: with name validation switched off, the paths built from these names are
    still refused before any file outside the data directory is created, written or deleted."""
    cluster = hostile_cluster
    cluster.brokers[0].server._check = None
    cluster.namesrv.server._check = None
    cluster.brokers[0].server.validate = False
    cluster.namesrv.server.validate = False
    for name in path_escapes(canary):
        ext, body = case.build(name)
        resp = await raw_request(addr_for(cluster, case), case.code, ext, body)
        assert resp is not None
        if case.code in (RC.SEND_MESSAGE, RC.SEND_MESSAGE_V2, RC.DELETE_TOPIC_IN_BROKER):
            assert resp.code != R.SUCCESS, f"{name!r} was accepted"
        await assert_broker_files_intact(cluster)
        assert_untouched(canary)
    await assert_still_serving(cluster, "AfterUnchecked")


async def test_a_lone_surrogate_in_any_header_field_or_json_body_is_refused(hostile_cluster):
    cluster = hostile_cluster
    addr = cluster.brokers[0].config.addr
    for code, ext in [
        (RC.UNREGISTER_CLIENT, {"clientID": "c\ud800"}),
        (RC.GET_BROKER_CONFIG, {"x\udc00": "1"}),
        (RC.SEND_MESSAGE, send_ext("T_OK", properties="KEYS\u0001k\ud800\u0002")),
    ]:
        resp = await raw_request(addr, code, ext)
        assert resp is not None and resp.code == R.INVALID_PARAMETER and "not valid Unicode" in resp.remark
    for code, body in lone_surrogate_bodies():
        resp = await raw_request(addr, code, {}, body)
        assert resp is not None and resp.code == R.INVALID_PARAMETER and "not valid Unicode" in resp.remark
    assert_no_illegal_name_is_held(cluster)
    await assert_still_serving(cluster, "AfterSurrogates")


# --- the probe's reproductions ------------------------------------------------------------------


@pytest.mark.parametrize("target", ["absolute", "..", "."])
async def test_delete_topic_cannot_delete_a_directory(hostile_cluster, canary, target):
    """DELETE_TOPIC_IN_BROKER with '/some/dir' removed that directory; with '..' the data dir."""
    cluster = hostile_cluster
    topic = {"absolute": str(canary), "..": "..", ".": "."}[target]
    async with TcpTransport(timeout=10) as t:
        delete = topics.DELETE_TOPIC_IN_BROKER
        resp = await call(t, cluster.brokers[0].config.addr, delete, topics.TopicHeader(topic=topic))
    assert (resp.code, resp.remark) == (
        R.INVALID_PARAMETER,
        "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$",
    )
    await assert_broker_files_intact(cluster)
    assert_untouched(canary)
    await assert_still_serving(cluster, "AfterDelete")


async def test_send_back_heartbeat_and_group_update_cannot_write_outside(hostile_cluster, canary):
    """CONSUMER_SEND_MSG_BACK with group x/../../../../tmp/evil created /tmp/evil/0."""
    cluster = hostile_cluster
    addr = cluster.brokers[0].config.addr
    evil = "x/../../../../" + canary.name + "/evil"
    back = messages.SendBackHeader(offset=0, group=evil, delay_level=0, origin_msg_id="", origin_topic="T_OK")
    async with TcpTransport(timeout=10) as t:
        assert (await call(t, addr, messages.CONSUMER_SEND_MSG_BACK, back)).code == R.INVALID_PARAMETER
        # raw: a heartbeat of only the fields that matter here, as a hand-made client might send it
        hb = json_bytes({"clientID": "c", "consumerDataSet": [{"groupName": evil, "subscriptionDataSet": []}]})
        assert (await request(t, addr, RC.HEART_BEAT, body=hb)).code == R.INVALID_PARAMETER
        sg = GroupWrite(SubscriptionGroupConfig(evil))
        assert (await call(t, addr, groups.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, body=sg)).code == R.INVALID_PARAMETER
    await assert_broker_files_intact(cluster)
    assert_untouched(canary)
    assert not (canary / "evil").exists()
    assert_no_illegal_name_is_held(cluster)


async def test_a_lone_surrogate_in_topic_filter_type_does_not_poison_the_broker(hostile_cluster, tmp_path):
    """It was kept in memory: every later registration failed and topics.json was never written."""
    cluster = hostile_cluster
    broker = cluster.brokers[0]
    ext = topic_ext(TopicConfig("Poisoned")) | {"topicFilterType": "\ud800"}
    resp = await raw_request(broker.config.addr, RC.UPDATE_AND_CREATE_TOPIC, ext)
    assert resp is not None and resp.code == R.INVALID_PARAMETER and "topicFilterType" in resp.remark
    assert broker.topics.get("Poisoned") is None
    odd = await raw_request(broker.config.addr, RC.UPDATE_AND_CREATE_TOPIC, ext | {"topicFilterType": "X"})
    assert odd is not None and odd.code == R.SYSTEM_ERROR and "topicFilterType" in odd.remark
    await assert_still_serving(cluster, "AfterFilterType")
    assert await broker.registrar.register_all()
    await cluster.stop()
    saved = json.loads((Path(broker.config.data_dir) / "config" / "topics.json").read_text())
    assert "AfterFilterType" in saved["topicConfigTable"] and "Poisoned" not in saved["topicConfigTable"]


async def test_a_lone_surrogate_in_a_kv_namespace_does_not_poison_the_name_server(hostile_cluster):
    """Every later KV write failed, and the 'failed' put was applied in memory but not persisted."""
    cluster = hostile_cluster
    ns = cluster.namesrv
    resp = await raw_request(ns.addr, RC.PUT_KV_CONFIG, {"namespace": "N\ud800", "key": "k", "value": "v"})
    assert resp is not None and resp.code == R.INVALID_PARAMETER
    assert ns.kv.table == {}
    async with TcpTransport(timeout=10) as t:
        ok = await call(
            t, ns.addr, namesrv_admin.PUT_KV_CONFIG, namesrv_admin.PutKvHeader(namespace="N", key="k", value="v")
        )
        assert ok.code == R.SUCCESS
    assert json.loads(ns.config.kv_config_path.read_text())["configTable"] == {"N": {"k": "v"}}


async def test_a_response_that_cannot_be_encoded_is_answered_with_an_error():
    """A lone surrogate echoed in a response made the server never answer (the client timed out)."""
    server = RemotingServer("echo")

    async def echo(cmd: RemotingCommand, ch) -> RemotingCommand:
        return cmd.response(R.TOPIC_NOT_EXIST, "no topic \ud800", {"topic": "\udfff"})

    server.register(RC.GET_ROUTEINFO_BY_TOPIC, echo)
    port = await server.start()
    try:
        async with TcpTransport(timeout=10) as t:
            resp = await asyncio.wait_for(request(t, f"127.0.0.1:{port}", RC.GET_ROUTEINFO_BY_TOPIC, {"topic": "T"}), 5)
        assert resp.code == R.SYSTEM_ERROR and "could not be encoded" in resp.remark
    finally:
        await server.close()


async def test_a_registration_keeps_topics_with_illegal_names_out_of_the_routes(hostile_cluster, caplog):
    """A Java name server stores whatever a broker registers; ours leaves illegal names out (named in a
    warning) and keeps the broker and its other topics."""
    ns = hostile_cluster.namesrv
    table = {name: TopicConfig(name).to_json() for name in ("Fine", "a/../b", "x\ud800")}
    body = json_bytes({"topicConfigSerializeWrapper": {"topicConfigTable": table}})
    ext = {"brokerName": "broker-z", "brokerAddr": "127.0.0.1:1", "clusterName": "DefaultCluster", "brokerId": "0"}
    async with TcpTransport(timeout=10) as t:
        # the JSON body escapes its lone surrogate, so it is refused like any other invalid text
        refused = await raw_request(ns.addr, RC.REGISTER_BROKER, ext, body)
        assert refused is not None and refused.code == R.INVALID_PARAMETER
        del table["x\ud800"]
        body = json_bytes({"topicConfigSerializeWrapper": {"topicConfigTable": table}})
        caplog.set_level(logging.WARNING, logger="mqadmin.server.namesrv.server")
        assert (await request(t, ns.addr, RC.REGISTER_BROKER, ext, body)).code == R.SUCCESS  # raw, as refused above
        assert ns.routes.route("Fine") is not None and "a/../b" not in ns.routes.topics
        assert any("'a/../b'" in r.getMessage() for r in caplog.records)


def test_sigterm_after_a_poisoning_attempt_exits_0_and_writes_topics_json(tmp_path):
    """The probe's sequence on real processes: after the lone surrogate in topicFilterType the broker
    dropped out of the cluster and SIGTERM exited 1 without writing topics.json."""
    namesrv, ns_info = start_dev("namesrv", "--port", "0")
    broker = None
    try:
        broker, info = start_dev(
            "broker", "--port", "0", "-n", ns_info["namesrvAddr"], "--data-dir", str(tmp_path / "b"),
            "--register-interval", "0.2",
        )  # fmt: skip
        addr = info["brokerAddr"]

        async def poison_then_create() -> None:
            ext = topic_ext(TopicConfig("Poisoned")) | {"topicFilterType": "\ud800"}
            resp = await raw_request(addr, RC.UPDATE_AND_CREATE_TOPIC, ext)
            assert resp is not None and resp.code == R.INVALID_PARAMETER
            async with TcpTransport(timeout=10) as t:
                healthy = topics.CreateTopicHeader.of(TopicConfig("Healthy"))
                assert (await call(t, addr, topics.UPDATE_AND_CREATE_TOPIC, healthy)).code == 0
                route_of = RouteHeader(topic="Healthy")
                route = await call(t, ns_info["namesrvAddr"], GET_ROUTEINFO_BY_TOPIC, route_of)
                assert route.code == R.SUCCESS

        asyncio.run(poison_then_create())
        assert broker.stop(signal.SIGTERM) == 0
        saved = json.loads((tmp_path / "b" / "config" / "topics.json").read_text())["topicConfigTable"]
        assert "Healthy" in saved and "Poisoned" not in saved
    finally:
        for p in (broker, namesrv):
            if p is not None and p.p.poll() is None:
                p.kill9()


async def test_invalid_utf8_in_a_header_is_answered_with_an_error_naming_the_field(hostile_cluster):
    """Both header encodings: the request is refused (code 29, the field named), the server keeps serving."""
    addr = hostile_cluster.brokers[0].config.addr
    json_header = b'{"code":351,"extFields":{"topic":"T\xff\xfe"},"flag":0,"language":"JAVA","opaque":7,"version":479}'
    key, value = b"topic", b"T\xc3"
    ext = struct.pack(">H", len(key)) + key + struct.pack(">i", len(value)) + value
    binary_header = struct.pack(">hBhiii", 351, 0, 479, 7, 0, 0) + struct.pack(">i", len(ext)) + ext
    for stype, header in ((0, json_header), (1, binary_header)):
        frame = struct.pack(">ii", 4 + len(header), (stype << 24) | len(header)) + header
        host, port = addr.rsplit(":", 1)
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            writer.write(frame)
            resp = await asyncio.wait_for(FrameReader(reader).read(), 10)
        finally:
            writer.close()
        assert (resp.opaque, resp.code) == (7, R.INVALID_PARAMETER)
        assert "header field <topic> is not valid Unicode" in resp.remark
    await assert_still_serving(hostile_cluster, "AfterBadUtf8")


async def test_a_send_to_a_pop_retry_topic_takes_the_group_before_the_plus(hostile_cluster):
    """%RETRY%<group>+<topic> is a legal topic (5.x POP); its group is <group>, never 'group+topic'."""
    addr = hostile_cluster.brokers[0].config.addr
    async with TcpTransport(timeout=10) as t:
        retry = replace(send_header("%RETRY%CG_POP+T_OK"), reconsume_times=1)
        sent = await call(t, addr, messages.SEND_MESSAGE, retry, b"x")
    assert sent.code == R.SUCCESS
    assert hostile_cluster.brokers[0].groups.get("CG_POP") is not None
    assert_no_illegal_name_is_held(hostile_cluster)
