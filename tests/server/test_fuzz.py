"""Bounded fuzzing of the name server and the broker with malformed frames and requests.

A seeded random loop (reproducible, a few hundred cases): random bytes, truncated frames, bad
lengths, wrong types in ext fields and broken bodies for every request code each server handles,
plus hostile names (traversal, absolute paths, newlines, NUL, lone surrogates, over-long) in every
name field. Every request must get an answer or have its connection closed; the server must keep
serving other clients; our own handlers must reject bad input deliberately, not by tripping over
it; and a canary directory next to the data directory must stay untouched.
"""

from __future__ import annotations

import asyncio
import random
import re
import struct
import zlib

import pytest

from mqadmin.model.names import NameKind
from mqadmin.model.topic import TopicConfig
from mqadmin.transport.errors import TransportError
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire.codes import RequestCode
from mqadmin.wire.codes import ResponseCode as R
from mqadmin.wire.frame import RemotingCommand, SerializeType, encode_frame

from .conftest import topic_ext
from .hostile import (
    NAME_CASES,
    assert_no_illegal_name_is_held,
    assert_untouched,
    hostile_names,
    json_bytes,
    make_canary,
    raw_request,
)

SEED = 20240611

FIELDS = (
    "topic", "brokerName", "brokerAddr", "clusterName", "cluster", "brokerId", "bodyCrc32", "compressed",
    "haServerAddr", "heartbeatTimeoutMillis", "namespace", "key", "value", "readQueueNums", "writeQueueNums",
    "perm", "topicFilterType", "topicSysFlag", "order", "attributes", "groupName", "cleanOffset", "consumerGroup",
    "queueId", "queueOffset", "maxMsgNums", "sysFlag", "commitOffset", "suspendTimeoutMillis", "subscription",
    "subVersion", "expressionType", "producerGroup", "defaultTopic", "defaultTopicQueueNums", "bornTimestamp",
    "flag", "properties", "reconsumeTimes", "unitMode", "batch", "offset", "maxNum", "beginTimestamp",
    "endTimestamp", "delayLevel", "originMsgId", "originTopic", "maxReconsumeTimes", "clientId", "lo",
    *"abcdefghijklmn",
)  # fmt: skip

VALUES = (
    "", "0", "-1", "1", "7", "abc", "99999999999999999999", "-99999999999999999999", "true", "false", "1e9",
    "null", "{}", "[]", "+message.type=FIFO", "+bad", "-x", "%RETRY%G", "TBW102", "é\u2603", "\x00\x01\x02",
    "127.0.0.1:1", "x" * 5000, "1;2;3", "a:b", " ", "SINGLE_TAG",
    "..", ".", "../../../x", "/tmp/fuzz-abs", "x/../../../../y", "abc\n", "a\x00b", "%RETRY%../x", "x" * 128,
)  # fmt: skip

BODIES = (
    b"", b"{", b"}", b"[]", b"null", b"{}", b"true", b"1", b'"s"', b"\xff\xfe\x00", b"[" * 5000 + b"]" * 5000,
    b'{"topicConfigList":1}', b'{"topicConfigList":[{"readQueueNums":"x"}]}', b'{"topicConfigList":[1]}',
    b'{"groupName":5}', b'{"groupName":"G","attributes":[]}', b'{"table":{}}', b'{"counter":"x"}',
    b'{"topicConfigSerializeWrapper":{"topicConfigTable":{"T":{"readQueueNums":{}}}}}',
    b'{"topicConfigSerializeWrapper":[]}', b'{"queueDatas":[{"perm":"x"}]}', b"a=b\nc\n\\u12",
    b'{"consumerDataSet":[{"subscriptionDataSet":"x"}],"producerDataSet":1}',
    b'{"mqSet":[{"topic":1}]}', b'{0:1,{"a":1}:2}',
    zlib.compress(b"\x00\x00\x00\x05{bad}"), zlib.compress(b"\x7f\xff\xff\xff"), b"\x78\x9c garbage",
)  # fmt: skip

# Remarks that mean a handler tripped over input instead of rejecting it.
SLOPPY = re.compile(
    r"^(TypeError|AttributeError|KeyError|IndexError|UnboundLocalError|NameError|AssertionError|RecursionError)"
)

# Our own handlers (name server, broker admin): held to the no-sloppy-errors rule.
OURS = {
    RequestCode.REGISTER_BROKER, RequestCode.UNREGISTER_BROKER, RequestCode.BROKER_HEARTBEAT,
    RequestCode.QUERY_DATA_VERSION, RequestCode.GET_ROUTEINFO_BY_TOPIC, RequestCode.GET_BROKER_CLUSTER_INFO,
    RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER, RequestCode.GET_TOPICS_BY_CLUSTER,
    RequestCode.GET_SYSTEM_TOPIC_LIST_FROM_NS, RequestCode.DELETE_TOPIC_IN_NAMESRV,
    RequestCode.REGISTER_TOPIC_IN_NAMESRV, RequestCode.PUT_KV_CONFIG, RequestCode.GET_KV_CONFIG,
    RequestCode.DELETE_KV_CONFIG, RequestCode.GET_KVLIST_BY_NAMESPACE, RequestCode.WIPE_WRITE_PERM_OF_BROKER,
    RequestCode.ADD_WRITE_PERM_OF_BROKER, RequestCode.GET_NAMESRV_CONFIG, RequestCode.UPDATE_NAMESRV_CONFIG,
    RequestCode.UPDATE_AND_CREATE_TOPIC, RequestCode.UPDATE_AND_CREATE_TOPIC_LIST, RequestCode.DELETE_TOPIC_IN_BROKER,
    RequestCode.GET_ALL_TOPIC_CONFIG, RequestCode.GET_TOPIC_CONFIG, RequestCode.QUERY_TOPIC_CONSUME_BY_WHO,
    RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, RequestCode.DELETE_SUBSCRIPTIONGROUP,
    RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG, RequestCode.GET_BROKER_CONFIG, RequestCode.UPDATE_BROKER_CONFIG,
    RequestCode.GET_BROKER_RUNTIME_INFO,
}  # fmt: skip

BROKER_FIELDS = {"brokerName": "broker-z", "brokerAddr": "127.0.0.1:1", "clusterName": "C", "brokerId": "0"}
MQ_FIELDS = {"consumerGroup": "G", "topic": "T", "queueId": "0"}

# A valid header per code, so that mutating a few fields reaches past the "field is null" checks.
TEMPLATES: dict[int, dict[str, str]] = {
    RequestCode.REGISTER_BROKER: BROKER_FIELDS
    | {"haServerAddr": "127.0.0.1:2", "compressed": "false", "bodyCrc32": "0"},
    RequestCode.UNREGISTER_BROKER: BROKER_FIELDS,
    RequestCode.BROKER_HEARTBEAT: BROKER_FIELDS,
    RequestCode.QUERY_DATA_VERSION: BROKER_FIELDS,
    RequestCode.GET_ROUTEINFO_BY_TOPIC: {"topic": "T"},
    RequestCode.GET_TOPICS_BY_CLUSTER: {"cluster": "C"},
    RequestCode.DELETE_TOPIC_IN_NAMESRV: {"topic": "T", "clusterName": "C"},
    RequestCode.REGISTER_TOPIC_IN_NAMESRV: {"topic": "T"},
    RequestCode.PUT_KV_CONFIG: {"namespace": "N", "key": "k", "value": "v"},
    RequestCode.GET_KV_CONFIG: {"namespace": "N", "key": "k"},
    RequestCode.DELETE_KV_CONFIG: {"namespace": "N", "key": "k"},
    RequestCode.GET_KVLIST_BY_NAMESPACE: {"namespace": "N"},
    RequestCode.WIPE_WRITE_PERM_OF_BROKER: {"brokerName": "broker-a"},
    RequestCode.ADD_WRITE_PERM_OF_BROKER: {"brokerName": "broker-a"},
    RequestCode.UPDATE_AND_CREATE_TOPIC: topic_ext(TopicConfig("FuzzTopic")),
    RequestCode.DELETE_TOPIC_IN_BROKER: {"topic": "FuzzTopic"},
    RequestCode.GET_TOPIC_CONFIG: {"topic": "FuzzTopic", "lo": "true"},
    RequestCode.QUERY_TOPIC_CONSUME_BY_WHO: {"topic": "FuzzTopic"},
    RequestCode.GET_TOPIC_STATS_INFO: {"topic": "FuzzTopic"},
    RequestCode.DELETE_SUBSCRIPTIONGROUP: {"groupName": "G", "cleanOffset": "true"},
    RequestCode.SEND_MESSAGE: {
        "producerGroup": "P", "topic": "FuzzTopic", "defaultTopic": "TBW102", "defaultTopicQueueNums": "4",
        "queueId": "0", "sysFlag": "0", "bornTimestamp": "0", "flag": "0", "properties": "",
    },
    RequestCode.SEND_MESSAGE_V2: {
        "a": "P", "b": "FuzzTopic", "c": "TBW102", "d": "4", "e": "0", "f": "0", "g": "0", "h": "0", "i": "",
    },
    RequestCode.PULL_MESSAGE: MQ_FIELDS | {
        "queueOffset": "0", "maxMsgNums": "32", "sysFlag": "0", "commitOffset": "0", "suspendTimeoutMillis": "0",
        "subVersion": "0",
    },
    RequestCode.GET_MAX_OFFSET: {"topic": "FuzzTopic", "queueId": "0"},
    RequestCode.GET_MIN_OFFSET: {"topic": "FuzzTopic", "queueId": "0"},
    RequestCode.QUERY_CONSUMER_OFFSET: MQ_FIELDS,
    RequestCode.UPDATE_CONSUMER_OFFSET: MQ_FIELDS | {"commitOffset": "1"},
    RequestCode.VIEW_MESSAGE_BY_ID: {"offset": "0"},
    RequestCode.QUERY_MESSAGE: {
        "topic": "FuzzTopic", "key": "k", "maxNum": "4", "beginTimestamp": "0", "endTimestamp": "9",
    },
    RequestCode.GET_CONSUMER_LIST_BY_GROUP: {"consumerGroup": "G"},
    RequestCode.GET_CONSUME_STATS: {"consumerGroup": "G"},
    RequestCode.UNREGISTER_CLIENT: {"clientID": "c", "producerGroup": "P", "consumerGroup": "G"},
}  # fmt: skip


def random_ext(rng: random.Random, code: int) -> dict[str, str]:
    """The code's valid header with a few fields replaced by junk, plus a few junk fields."""
    ext = dict(TEMPLATES.get(code, {}))
    for key in rng.sample(sorted(ext), min(len(ext), rng.randint(0, 3))):
        ext[key] = rng.choice(VALUES)
    for _ in range(rng.randint(0, 4)):
        ext[rng.choice(FIELDS)] = rng.choice(VALUES)
    return ext


async def raw_exchange(addr: str, data: bytes, timeout: float = 5.0) -> bytes:
    """Send raw bytes, half-close, and read until the server closes or answers; b'' = closed."""
    host, port = addr.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(data)
        await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
        return await asyncio.wait_for(reader.read(1 << 16), timeout)
    except (ConnectionError, OSError):
        return b""
    finally:
        writer.close()


def garbage_frames(rng: random.Random) -> list[bytes]:
    valid = encode_frame(RemotingCommand(int(RequestCode.GET_BROKER_CLUSTER_INFO), 1))
    frames = [rng.randbytes(rng.randint(1, 300)) for _ in range(40)]
    frames += [valid[: rng.randint(1, len(valid) - 1)] for _ in range(20)]  # truncated
    frames += [struct.pack(">i", n) + b"\x00" * 8 for n in (0, 1, 3, -1, -(2**31), 2**31 - 1, 16 * 1024 * 1024 + 1)]
    frames += [struct.pack(">iI", 12, (rng.randint(2, 255) << 24) | 4) + b"\x00" * 8 for _ in range(5)]  # bad type
    frames += [struct.pack(">ii", 8, 4000) + b"{}{}" for _ in range(3)]  # header longer than the frame
    frames += [struct.pack(">ii", 4 + len(h), len(h)) + h for h in (b"[]", b"{", b'{"code":"x"}', b"\xff\xfe", b"{}")]
    return frames


@pytest.fixture
async def fuzz_cluster(make_cluster):
    return await make_cluster(brokers=1)


async def still_serving(cluster, name: str) -> None:
    """A fresh client gets service from the name server and the broker after the abuse."""
    async with TcpTransport(timeout=10) as t:
        cfg = TopicConfig(f"AfterFuzz{name}")
        broker = cluster.brokers[0].config.addr
        created = await t.request(broker, RemotingCommand(int(RequestCode.UPDATE_AND_CREATE_TOPIC), ext=topic_ext(cfg)))
        assert created.code == R.SUCCESS
        route = await t.request(
            cluster.namesrv_addr,
            RemotingCommand(int(RequestCode.GET_ROUTEINFO_BY_TOPIC), ext={"topic": cfg.topic_name}),
        )
        assert route.code == R.SUCCESS


async def test_garbage_frames_close_only_that_connection(fuzz_cluster):
    rng = random.Random(SEED)
    for addr in (fuzz_cluster.namesrv_addr, fuzz_cluster.brokers[0].config.addr):
        for frame in garbage_frames(rng):
            await raw_exchange(addr, frame)  # answered or closed, within the timeout
    await still_serving(fuzz_cluster, "Frames")


async def fuzz_requests(addr: str, codes: list[int], rng: random.Random, per_code: int) -> list[str]:
    """Send malformed requests for each code; returns sloppy remarks from our handlers."""
    sloppy: list[str] = []
    transport = TcpTransport(timeout=10)
    try:
        for code in codes:
            for i in range(per_code):
                ext = random_ext(rng, code)
                if code == RequestCode.PULL_MESSAGE:
                    ext["suspendTimeoutMillis"] = "0"  # keep long polling from holding the request
                body = rng.choice(BODIES) if i % 2 else rng.randbytes(rng.randint(0, 64))
                # the binary header holds the code in 16 bits: larger codes (pop, lite) travel as JSON only
                stype = SerializeType.ROCKETMQ if i % 3 == 0 and code <= 0x7FFF else SerializeType.JSON
                cmd = RemotingCommand(code, ext=ext, body=body, serialize=stype)
                try:
                    resp = await transport.request(addr, cmd)
                except TransportError:  # the server may close this connection; a new one is opened next
                    continue
                assert resp.opaque == cmd.opaque and resp.is_response
                if code in OURS and resp.remark and SLOPPY.match(resp.remark):
                    sloppy.append(f"code {code} ext={ext} body={body[:40]!r}: {resp.remark}")
    finally:
        await transport.aclose()
    return sloppy


async def test_malformed_requests_for_every_handled_code(fuzz_cluster):
    rng = random.Random(SEED + 1)
    ns_codes = sorted(fuzz_cluster.namesrv.server.served())
    broker_codes = sorted(fuzz_cluster.brokers[0].server.served())
    sloppy = await fuzz_requests(fuzz_cluster.namesrv_addr, ns_codes, rng, per_code=8)
    sloppy += await fuzz_requests(fuzz_cluster.brokers[0].config.addr, broker_codes, rng, per_code=8)
    assert not sloppy, "\n".join(sloppy[:10])
    await still_serving(fuzz_cluster, "Requests")


async def test_oversized_bodies_and_deflate_bombs_are_bounded(fuzz_cluster):
    bomb = zlib.compress(b"\x00" * (80 * 1024 * 1024), 9)  # inflates past the 64 MiB limit
    ext = {
        "brokerName": "evil", "brokerAddr": "127.0.0.1:1", "clusterName": "C", "brokerId": "0",
        "compressed": "true", "bodyCrc32": "0",
    }  # fmt: skip
    async with TcpTransport(timeout=30) as t:
        resp = await t.request(
            fuzz_cluster.namesrv_addr, RemotingCommand(int(RequestCode.REGISTER_BROKER), ext=ext, body=bomb)
        )
    assert resp.code == R.SYSTEM_ERROR and "inflates beyond" in resp.remark
    assert "evil" not in fuzz_cluster.namesrv.routes.brokers
    await still_serving(fuzz_cluster, "Bomb")


async def test_hostile_names_and_text_in_fuzzed_requests(make_cluster, tmp_path):
    """Hostile names in every name field and lone surrogates in random fields and bodies, for every
    code both servers handle: each request is answered, nothing outside the data dir changes, no
    table takes an illegal name, and the servers still serve."""
    canary = make_canary(tmp_path)
    cluster = await make_cluster(brokers=1)
    rng = random.Random(SEED + 2)
    generators = [*hostile_names(canary, NameKind.TOPIC), *hostile_names(canary, NameKind.GROUP)]
    cases = {case.code: case for case in NAME_CASES}
    for addr, server in ((cluster.namesrv_addr, cluster.namesrv), (cluster.brokers[0].config.addr, cluster.brokers[0])):
        for code in sorted(server.server.served()):
            for _ in range(6):
                name = rng.choice(generators)
                case = cases.get(code)
                ext, body = case.build(name) if case else (random_ext(rng, code), b"")
                if rng.random() < 0.3:
                    ext[rng.choice(FIELDS)] = rng.choice(["\ud800", "x\udfff", "\udc80\udc80"])
                if code == RequestCode.PULL_MESSAGE:
                    ext["suspendTimeoutMillis"] = "0"
                if not body and rng.random() < 0.3:
                    body = json_bytes({"groupName": name, "topic": name, "clientID": "\ud800"})
                resp = await raw_request(addr, code, ext, body)
                assert resp is not None and resp.is_response, f"code {code} with {name!r}: no answer"
                assert not (resp.remark and SLOPPY.match(resp.remark)), f"code {code}: {resp.remark}"
    await cluster.brokers[0].store.messages.flush()
    assert_untouched(canary)
    assert_no_illegal_name_is_held(cluster)
    await still_serving(cluster, "Hostile")
