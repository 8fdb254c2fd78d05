"""GET_ROUTEINFO_BY_TOPIC bodies follow the request's version, as Apache's name server does
(ClientRequestProcessor.getRouteInfoByTopic): standard JSON from V4_9_4 (401) on or with
acceptStandardJsonOnly=true, else fastjson's default form with bare integer broker-id keys.

Golden bytes: the standard form is what a real Apache 4.9.8 name server sent Java mqadmin 4.9.8
(version 409) in tests/data/captures/sniff_mqadmin_ns.log; the legacy form is the same body with
the broker-id key written bare, as that name server writes it in its cluster info (code 106) in
the same capture.
"""

from __future__ import annotations

import pytest

from mqadmin.model.rpc.namesrv import GET_ROUTEINFO_BY_TOPIC, ROUTE, RouteHeader
from mqadmin.model.topic import TopicConfig
from mqadmin.server.namesrv.config import NamesrvConfig
from mqadmin.server.namesrv.server import NameServer
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire.codes import ResponseCode as R
from mqadmin.wire.frame import decode_frame
from tests.unit.captures import sniff_frames

from .test_namesrv_server import register

TOPICS = (TopicConfig("TopicTest", 4, 4, 6), TopicConfig("TBW102", 8, 8, 7))
"""A registration of one topic from an unknown broker id is refused (5.x), so two."""


def captured_route_exchange() -> tuple[bytes, bytes]:
    """The first route request for TopicTest (header frame) and the name server's answer body."""
    frames = sniff_frames("sniff_mqadmin_ns.log")
    for i, f in enumerate(frames):
        if f.direction == "C>S" and f.header_json["code"] == 105 and f.header_json["extFields"]["topic"] == "TopicTest":
            answer = frames[i + 1]
            assert answer.direction == "S>C" and answer.body is not None
            return f.frame_bytes(), answer.body
    raise AssertionError("no route request for TopicTest in the capture")


def cluster_info_broker_addrs() -> bytes:
    """How the same Apache name server writes brokerAddrs in fastjson's default form (code 106)."""
    frames = sniff_frames("sniff_mqadmin_ns.log")
    body = next(f.body for f in frames if f.direction == "S>C" and f.body and b"brokerAddrTable" in f.body)
    return body[body.index(b'"brokerAddrs":') : body.index(b"}") + 1]


def test_the_capture_shows_both_forms():
    _, standard = captured_route_exchange()
    assert b'"brokerAddrs":{"0":"127.0.0.1:10911"}' in standard
    assert cluster_info_broker_addrs() == b'"brokerAddrs":{0:"127.0.0.1:10911"}'


@pytest.fixture
async def routed(tmp_path):
    """Our name server with broker-a (127.0.0.1:10911) serving TopicTest with 4 queues, perm 6 (the
    registering connection stays open: closing it unregisters the broker)."""
    ns = NameServer(NamesrvConfig(listen_port=0, data_dir=tmp_path / "ns"))
    await ns.start()
    try:
        async with TcpTransport(timeout=10) as t:
            assert (await register(t, ns, *TOPICS)).code == R.SUCCESS
            yield ns, t
    finally:
        await ns.stop()


async def test_a_4_9_8_client_gets_the_exact_body_apache_sent_it(routed):
    ns, _ = routed
    request_frame, expected = captured_route_exchange()
    cmd = decode_frame(request_frame)
    assert cmd.version == 409
    async with TcpTransport(timeout=10) as t:
        resp = await t.request(ns.addr, cmd)
    assert (resp.code, resp.body) == (R.SUCCESS, expected)


@pytest.mark.parametrize(
    ("version", "ext", "standard"),
    [
        (479, {}, True),  # 5.3.3
        (401, {}, True),  # V4_9_4: the first version that asks for standard JSON
        (400, {}, False),
        (333, {}, False),  # the C++ client
        (317, {}, False),  # the Go client
        (0, {}, False),  # no version at all
        (333, {"acceptStandardJsonOnly": "true"}, True),
        (333, {"acceptStandardJsonOnly": "TRUE"}, True),
        (333, {"acceptStandardJsonOnly": "false"}, False),
    ],
)
async def test_the_body_form_follows_the_request(routed, version, ext, standard):
    ns, _ = routed
    _, standard_body = captured_route_exchange()
    legacy_body = standard_body.replace(b'{"0":', b"{0:")
    async with TcpTransport(timeout=10) as t:
        cmd = GET_ROUTEINFO_BY_TOPIC.request(RouteHeader(topic="TopicTest"))
        cmd.ext |= ext  # raw: the flag's spellings as clients send them ("TRUE" too)
        cmd.version = version
        resp = await t.request(ns.addr, cmd)
    assert resp.body == (standard_body if standard else legacy_body)
    route = ROUTE.decode(resp.body)  # both forms read back the same
    assert route.broker_datas[0].broker_addrs == {0: "127.0.0.1:10911"}


async def test_legacy_form_keeps_several_broker_ids_as_integers(routed):
    ns, t = routed
    assert (await register(t, ns, *TOPICS, broker_addr="127.0.0.1:10921", broker_id=1)).code == R.SUCCESS
    cmd = GET_ROUTEINFO_BY_TOPIC.request(RouteHeader(topic="TopicTest"))
    cmd.version = 333  # the C++ client
    resp = await t.request(ns.addr, cmd)
    assert b'"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"}' in resp.body
