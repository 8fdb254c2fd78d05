"""Golden tests: frames and bodies recorded from real RocketMQ software (tests/data/captures), a frame
worked out byte by byte, and the request signature (docs/protocol.md, "Frames" and "Signing")."""

from __future__ import annotations

import asyncio
import json
import struct

import pytest

from mqadmin.model.rpc.namesrv import CLUSTER_INFO, ROUTE
from mqadmin.transport.frames import FrameReader
from mqadmin.wire import fastjson, orjson_headers
from mqadmin.wire.frame import (
    MAX_ANSWER_LENGTH,
    MAX_FRAME_LENGTH,
    FrameError,
    RemotingCommand,
    SerializeType,
    decode_frame,
    encode_frame,
)
from mqadmin.wire.signing import sign
from tests.unit.captures import cap_frames, raw_stream, sniff_frames, stub_headers

SNIFF = sniff_frames("sniff_mqadmin_ns.log") + sniff_frames("sniff_mqadmin_broker.log")
CAPS = cap_frames("cap_mqadmin.log") + cap_frames("cap_messense_produce.log") + cap_frames("cap_aliions_produce.log")
STOCK_SECRET_KEY = "12345678"  # conf/tools.yml of the Apache distribution (AccessKey rocketmq2)


def _frame_id(f) -> str:
    return f"{f.source}:{f.direction}:{f.header_json['code']}:{f.header_json.get('opaque')}"


def test_the_captures_hold_what_the_tests_need() -> None:
    codes = {(f.direction, f.header_json["code"]) for f in SNIFF}
    assert {("C>S", 105), ("C>S", 106), ("C>S", 206), ("C>S", 319), ("C>S", 28), ("C>S", 17)} <= codes
    assert len(CAPS) >= 6
    assert sum(1 for f in SNIFF if f.body) >= 10


@pytest.mark.parametrize("rec", SNIFF + CAPS, ids=_frame_id)
def test_recorded_header_decodes_field_for_field(rec) -> None:
    if rec.body is None:
        # The log truncated the body: decode the header alone, which is all a frame's header needs.
        cmd = decode_frame(struct.pack(">i", len(rec.header)) + rec.header)
    else:
        cmd = decode_frame(rec.frame_bytes())
        assert cmd.body == rec.body
    h = rec.header_json
    assert cmd.code == h["code"]
    assert cmd.opaque == h["opaque"]
    assert cmd.flag == h["flag"]
    assert cmd.is_response == (rec.direction == "S>C")
    assert cmd.language == h["language"]
    assert cmd.version == h["version"]
    assert cmd.ext == {k: str(v) for k, v in (h.get("extFields") or {}).items()}
    assert cmd.remark == (h.get("remark") or None)
    assert cmd.serialize == SerializeType.JSON


def test_cpp_header_with_trailing_newline_and_empty_access_key() -> None:
    rec = cap_frames("cap_messense_produce.log")[0]
    assert rec.header.endswith(b"}\n")
    cmd = decode_frame(rec.frame_bytes())
    assert cmd.language == "CPP"
    assert cmd.version == 63
    assert cmd.ext["AccessKey"] == ""
    assert cmd.ext["topic"] == "TopicTest"
    assert cmd.remark is None  # "" means no remark


@pytest.mark.parametrize(
    ("log", "index", "expected"),
    [
        (
            "stub_aliions_admin.log",
            1,
            {"order": "false", "perm": "6", "readQueueNums": "8", "topicSysFlag": "0", "topic": "TopicTest_NEW"},
        ),
        ("stub_messense_produce.log", 1, {"queueId": "0", "sysFlag": "0", "defaultTopicQueueNums": "4"}),
    ],
)
def test_numeric_and_boolean_ext_values_become_strings(log: str, index: int, expected: dict[str, str]) -> None:
    header = stub_headers(log)[index]
    assert isinstance(json.loads(header)["extFields"][next(iter(expected))], bool | int)
    cmd = decode_frame(struct.pack(">i", len(header)) + header)
    assert expected.items() <= cmd.ext.items()


@pytest.mark.parametrize(("ordinal", "name"), [(0, "JAVA"), (1, "CPP"), (3, "PYTHON"), (9, "GO"), (12, "RUST")])
def test_language_as_an_integer_ordinal(ordinal: int, name: str) -> None:
    header = json.dumps({"code": 105, "language": ordinal, "opaque": 7, "flag": 0, "version": 333}).encode()
    assert decode_frame(struct.pack(">i", len(header)) + header).language == name


async def read_stream(*chunks: bytes) -> list[RemotingCommand]:
    """The frames a FrameReader reads from a stream fed ``chunks`` (then closed)."""
    reader = asyncio.StreamReader()
    for chunk in chunks:
        reader.feed_data(chunk)
    reader.feed_eof()
    frames, out = FrameReader(reader), []
    while True:
        try:
            out.append(await frames.read())
        except asyncio.IncompleteReadError:
            return out


async def test_raw_mqadmin_stream_holds_two_frames_fed_byte_by_byte() -> None:
    data = raw_stream("raw_mqadmin.log")
    cmds = await read_stream(*(data[i : i + 1] for i in range(len(data))))
    assert [(c.code, c.opaque) for c in cmds] == [(206, 1), (105, 0)]
    assert cmds[1].ext["topic"] == "TBW102"
    assert all(c.version == 409 and c.language == "JAVA" for c in cmds)


@pytest.mark.parametrize("name", ["raw_messense.log", "raw_aliions.log"])
async def test_raw_client_first_frames(name: str) -> None:
    (cmd,) = await read_stream(raw_stream(name))
    assert cmd.code == 105
    assert cmd.ext["topic"] == "TopicTest"


# --- a worked example: GET_ROUTEINFO_BY_TOPIC, topic T, opaque 1, version 479 -------------------

JAVA_REQUEST = (
    b'{"code":105,"extFields":{"topic":"T"},"flag":0,"language":"JAVA","opaque":1,'
    b'"serializeTypeCurrentRPC":"JSON","version":479}'
)
BINARY_FRAME = bytes.fromhex(
    "00000025 01000021 0069 00 01df 00000001 00000000 00000000 0000000c 0005 746f706963 00000001 54"
)


def _worked_example(serialize: SerializeType) -> RemotingCommand:
    return RemotingCommand(code=105, opaque=1, ext={"topic": "T"}, language="JAVA", version=479, serialize=serialize)


def test_worked_example_json_form_is_byte_exact() -> None:
    assert len(JAVA_REQUEST) == 123
    frame = encode_frame(_worked_example(SerializeType.JSON))
    assert frame == bytes.fromhex("0000007f0000007b") + JAVA_REQUEST
    assert decode_frame(frame[4:]) == _worked_example(SerializeType.JSON)


def test_worked_example_binary_form_is_byte_exact() -> None:
    assert encode_frame(_worked_example(SerializeType.ROCKETMQ)) == BINARY_FRAME
    assert decode_frame(BINARY_FRAME[4:]) == _worked_example(SerializeType.ROCKETMQ)


def test_binary_response_with_remark_round_trips() -> None:
    resp = _worked_example(SerializeType.ROCKETMQ).response(17, "No topic route info in name server for the topic: T")
    back = decode_frame(encode_frame(resp)[4:])
    assert (back.code, back.opaque, back.is_response, back.remark) == (17, 1, True, resp.remark)


# --- ACL signing (docs/protocol.md, "Signing"), and the signatures real mqadmin computed ------------


def test_signature_worked_example() -> None:
    assert (
        sign({"topic": "TopicTest", "AccessKey": "rocketmq2"}, b"", STOCK_SECRET_KEY) == "GeeGoP9mRvDhoVp4PD5omX0prgE="
    )


SIGNED = [f for f in SNIFF if f.direction == "C>S" and "Signature" in f.header_json.get("extFields", {})]


@pytest.mark.parametrize("rec", SIGNED, ids=_frame_id)
def test_recomputed_signature_equals_the_one_real_mqadmin_sent(rec) -> None:
    ext = {k: str(v) for k, v in rec.header_json["extFields"].items()}
    assert ext["AccessKey"] == "rocketmq2"
    assert sign(ext, rec.body or b"", STOCK_SECRET_KEY) == ext["Signature"]


def test_every_signed_request_was_checked() -> None:
    assert len(SIGNED) >= 15
    assert {f.header_json["code"] for f in SIGNED} >= {17, 28, 105, 106, 206, 319}


# --- fastjson bodies --------------------------------------------------------------------------------


def _body_of(code: int) -> bytes:
    """The first complete response body to a request with this code (responses follow by opaque)."""
    for source in ("sniff_mqadmin_ns.log", "sniff_mqadmin_broker.log"):
        frames = sniff_frames(source)
        for i, req in enumerate(frames):
            if req.direction == "C>S" and req.header_json["code"] == code:
                for resp in frames[i + 1 :]:
                    same = resp.header_json["opaque"] == req.header_json["opaque"]
                    if resp.direction == "S>C" and same and resp.body:
                        return resp.body
    raise LookupError(code)


def test_recorded_cluster_info_with_unquoted_integer_keys() -> None:
    body = _body_of(106)
    assert b'{0:"127.0.0.1:10911"}' in body
    with pytest.raises(json.JSONDecodeError):
        json.loads(body)
    info = CLUSTER_INFO.decode(body)
    assert info.clusters == {"DefaultCluster": ["broker-a"]}
    assert info.brokers["broker-a"].broker_addrs == {0: "127.0.0.1:10911"}
    assert info.brokers["broker-a"].master_addr == "127.0.0.1:10911"
    assert info.role_of("127.0.0.1:10911")[1] == 0


def test_recorded_route_body() -> None:
    route = ROUTE.decode(_body_of(105))
    assert [b.broker_name for b in route.broker_datas] == ["broker-a"]
    assert route.broker_datas[0].broker_addrs == {0: "127.0.0.1:10911"}
    q = route.queue_datas[0]
    assert (q.broker_name, q.read_queue_nums, q.write_queue_nums, q.perm) == ("broker-a", 4, 4, 6)
    assert route.order_topic_conf is None


def test_legacy_route_form_with_order_conf() -> None:
    body = (
        b'{"brokerDatas":[{"brokerAddrs":{0:"10.0.0.1:10911",1:"10.0.0.2:10911"},"brokerName":"broker-a",'
        b'"cluster":"C"}],"filterServerTable":{},"orderTopicConf":"broker-a:8","queueDatas":[{"brokerName":'
        b'"broker-a","perm":6,"readQueueNums":8,"topicSysFlag":0,"writeQueueNums":8}]}'
    )
    route = ROUTE.decode(body)
    assert route.broker_datas[0].broker_addrs == {0: "10.0.0.1:10911", 1: "10.0.0.2:10911"}
    assert route.order_topic_conf == "broker-a:8"


def test_recorded_topic_list_and_create_response() -> None:
    topics = fastjson.loads(_body_of(206))["topicList"]
    assert "TopicTest" in topics and "TBW102" in topics and len(topics) == 15
    create = next(f for f in SNIFF if f.direction == "S>C" and f.source.endswith("broker.log") and f.body == b"")
    cmd = decode_frame(create.frame_bytes())
    assert (cmd.code, cmd.remark) == (0, "not set any response code")


# Generated by fastjson 1.2.83 (docs/protocol.md, "Bodies and fastjson"): maps keyed by whole MessageQueue objects.
TOPIC_STATS_202 = (
    b'{"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"TopicTest"}:{"lastUpdateTimestamp":'
    b'1700000000000,"maxOffset":5,"minOffset":0},{"brokerName":"broker-a","queueId":1,"topic":"TopicTest"}:'
    b'{"lastUpdateTimestamp":0,"maxOffset":0,"minOffset":0}},"topicPutTps":0.0}'
)
CONSUME_STATS_208 = (
    b'{"consumeTps":0.0,"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:{"brokerOffset":10,'
    b'"consumerOffset":8,"lastTimestamp":1700000000000,"pullOffset":9}}}'
)


def test_topic_stats_with_object_keys() -> None:
    table = fastjson.loads(TOPIC_STATS_202)["offsetTable"]
    keys = sorted((fastjson.object_key(k)["queueId"], v["maxOffset"]) for k, v in table.items())
    assert keys == [(0, 5), (1, 0)]
    assert fastjson.object_key(next(iter(table)))["brokerName"] == "broker-a"


def test_consume_stats_with_object_keys() -> None:
    obj = fastjson.loads(CONSUME_STATS_208)
    ((key, offsets),) = obj["offsetTable"].items()
    assert fastjson.object_key(key) == {"brokerName": "broker-a", "queueId": 0, "topic": "T"}
    assert offsets["brokerOffset"] - offsets["consumerOffset"] == 2
    assert obj["consumeTps"] == 0.0


# A broker's topic table (GET_ALL_TOPIC_CONFIG) as the embedded broker writes it, as a person might indent it, and as
# an Apache 5.x broker with a static topic writes it: fastjson's raw integer keys in the queue mapping.
TOPIC_TABLE_21 = {
    "dataVersion": {"counter": 3, "stateVersion": 0, "timestamp": 1700000000000},
    "topicConfigTable": {
        "Orders": {"attributes": {"+message.type": "FIFO"}, "order": True, "perm": 6, "readQueueNums": 16,
                   "topicFilterType": "SINGLE_TAG", "topicName": "Orders", "topicSysFlag": 0, "writeQueueNums": 16},
        "Legacy": {"perm": 4, "readQueueNums": 2, "writeQueueNums": 2},
        "Mapped": {"perm": 6, "readQueueNums": 3, "topicName": "Mapped", "writeQueueNums": 3},
    },
}  # fmt: skip
STATIC_21 = (
    ',"topicQueueMappingDetailMap":{"Mapped":{"bname":"broker-a","epoch":1,"hostedQueues":{0:[{"bname":"broker-a",'
    '"gen":0,"logicOffset":0}]},"scope":"__global__","topic":"Mapped","totalQueues":3}}}'
)


@pytest.mark.parametrize(
    "body",
    [
        json.dumps(TOPIC_TABLE_21, separators=(",", ":")),
        json.dumps(TOPIC_TABLE_21, indent=2),
        json.dumps(TOPIC_TABLE_21, separators=(",", ":"))[:-1] + STATIC_21,
    ],
    ids=["compact", "indented", "apache-static"],
)
def test_a_topic_table_read_topic_by_topic_is_the_whole_documents(body: str) -> None:
    """GET_ALL_TOPIC_CONFIG's table is read one topic at a time (100,000 topics are never 100,000 JSON objects
    at once): the same configs as from the whole document, in standard JSON or fastjson's relaxed form."""
    from mqadmin.model.rpc.topics import TOPIC_CONFIG_TABLE
    from mqadmin.model.topic import TopicConfig

    whole = fastjson.loads(body)
    table = TOPIC_CONFIG_TABLE.decode(body.encode())
    assert table == {name: TopicConfig.from_json(cfg, name) for name, cfg in whole["topicConfigTable"].items()}
    assert table["Orders"] == TopicConfig("Orders", 16, 16, 6, order=True, attributes={"+message.type": "FIFO"})
    assert table["Legacy"].topic_name == "Legacy"
    assert table.static == ({"Mapped"} if "MappingDetail" in body else set())  # type: ignore[attr-defined]
    assert table.data_version is not None and table.data_version.counter == 3  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "body",
    [
        b'{"topicConfigTable":{"A":{"topicName":"A"}',  # cut short
        b'{"topicConfigTable":{"A":{"topicName":"A"}}} {',  # something after it
        b'{"topicConfigTable":{"A":{"topicName":"A"};"B":{}}}',
        b'{"topicConfigTable":[["A",{}]]}',
        b'{"topicConfigTable":{"A":7}}',
    ],
)
def test_a_topic_table_that_cannot_be_read_is_refused(body: bytes) -> None:
    from mqadmin.model.rpc.topics import TOPIC_CONFIG_TABLE

    with pytest.raises(ValueError):
        TOPIC_CONFIG_TABLE.decode(body)


# --- the 16 MiB frame guard -----------------------------------------------------------------------


async def test_a_client_refuses_an_answer_over_its_limit_before_buffering_it() -> None:
    with pytest.raises(FrameError):
        await read_stream(struct.pack(">i", MAX_ANSWER_LENGTH + 1))


async def test_a_client_reads_an_answer_over_16_mib() -> None:
    """A broker's topic table passes 16 MiB at about 80,000 topics: the client still reads it."""
    cmd = _worked_example(SerializeType.JSON).response(0, body=b"x" * (MAX_FRAME_LENGTH + 1))
    (back,) = await read_stream(encode_frame(cmd, limit=MAX_ANSWER_LENGTH))
    assert len(back.body) == MAX_FRAME_LENGTH + 1


async def test_frame_guard_accepts_exactly_16_mib() -> None:
    body = b"x" * (MAX_FRAME_LENGTH - 4 - len(JAVA_REQUEST))
    cmd = _worked_example(SerializeType.JSON)
    cmd.body = body
    frame = encode_frame(cmd)
    assert struct.unpack(">i", frame[:4])[0] == MAX_FRAME_LENGTH
    (back,) = await read_stream(frame)
    assert back.body == body


def test_encoding_a_frame_over_16_mib_is_refused() -> None:
    cmd = _worked_example(SerializeType.JSON)
    cmd.body = b"x" * MAX_FRAME_LENGTH
    with pytest.raises(FrameError):
        encode_frame(cmd)


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        (b"123456789012345678901234567890", "123456789012345678901234567890"),  # beyond 64 bits
        (b"NaN", "nan"),  # not JSON, but Python's reader (and fastjson) take it
        (b'"\\ud800"', "\ud800"),  # a lone surrogate, for the server to refuse naming the field
    ],
)
@pytest.mark.parametrize("parse_json", [None, orjson_headers.parse_header_json], ids=["json", "orjson"])
def test_header_values_the_fast_parser_refuses_are_still_read(raw: bytes, value: str, parse_json) -> None:
    header = b'{"code":310,"opaque":7,"extFields":{"a":' + raw + b',"b":"x"}}'
    cmd = decode_frame(struct.pack(">i", len(header)) + header, "surrogateescape", parse_json)
    assert (cmd.code, cmd.opaque, cmd.ext) == (310, 7, {"a": value, "b": "x"})


@pytest.mark.parametrize("parse_json", [None, orjson_headers.parse_header_json], ids=["json", "orjson"])
def test_invalid_utf8_in_a_header_is_kept_for_the_server_to_refuse(parse_json) -> None:
    header = b'{"code":310,"extFields":{"b":"T\xff"}}'
    frame = struct.pack(">i", len(header)) + header
    assert decode_frame(frame, "surrogateescape", parse_json).ext == {"b": "T\udcff"}
    with pytest.raises(FrameError, match="not JSON"):
        decode_frame(frame, "strict", parse_json)
