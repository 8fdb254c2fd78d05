"""Bodies of the consumer requests: version names, MessageQueue-keyed maps, connections, running info."""

from __future__ import annotations

import pytest

from mqadmin.model.clients import ConsumerConnection, ConsumerRunningInfo
from mqadmin.model.queue import MessageQueue, loads_mq_keyed
from mqadmin.model.rpc import clients as client_rpc
from mqadmin.model.rpc import consumers as rpc
from mqadmin.model.rpc.consumers import ConsumerStatus, ResetOffsetBody
from mqadmin.model.version import HIGHER_VERSION, version_desc, version_ordinal
from mqadmin.wire import fastjson

MQ_A0, MQ_B1 = MessageQueue("T", "broker-a", 0), MessageQueue("T", "broker-b", 1)


@pytest.mark.parametrize(
    ("ordinal", "name"),
    [(0, "V3_0_0_SNAPSHOT"), (15, "V3_0_0_FINAL"), (28, "V3_0_7_SNAPSHOT"), (137, "V3_5_8"), (213, "V4_0_0"),
     (409, "V4_9_8"), (413, "V5_0_0"), (433, "V5_1_0"), (479, "V5_3_3"), (513, "V5_5_0"), (611, "V5_9_9"),
     (612, HIGHER_VERSION), (10_000, HIGHER_VERSION)],
)  # fmt: skip
def test_version_names_are_javas_ordinals(ordinal: int, name: str) -> None:
    assert version_desc(ordinal) == name
    if name != HIGHER_VERSION:
        assert version_ordinal(name) == ordinal


def test_reset_offset_body_in_java_and_cpp_forms() -> None:
    table = {MQ_B1: 5, MQ_A0: 3}
    java = ResetOffsetBody().encode(table)
    assert java == (
        b'{"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:3,'
        b'{"brokerName":"broker-b","queueId":1,"topic":"T"}:5}}'
    )
    cpp = ResetOffsetBody(for_c=True).encode(table)
    assert cpp.startswith(b'{"offsetTable":[{"brokerName":"broker-a","offset":3,"queueId":0,"topic":"T"}')
    assert ResetOffsetBody().decode(java) == ResetOffsetBody().decode(cpp) == {MQ_A0: 3, MQ_B1: 5}


def test_consumer_status_body_nests_queue_keyed_maps() -> None:
    status = ConsumerStatus({MQ_A0: 1}, {"c1": {MQ_A0: 7, MQ_B1: 2}, "c2": {}})
    data = rpc.ConsumerStatusBody().encode(status)
    assert rpc.ConsumerStatusBody().decode(data) == status


def test_connection_bodies_as_a_java_broker_writes_them() -> None:
    body = (
        b'{"connectionSet":[{"clientAddr":"127.0.0.1:5","clientId":"b@1","language":"JAVA","version":409},'
        b'{"clientAddr":"127.0.0.1:6","clientId":"a@2","language":"CPP","version":479}],'
        b'"consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","consumeType":"CONSUME_PASSIVELY",'
        b'"messageModel":"CLUSTERING","subscriptionTable":{"T":{"classFilterMode":false,"codeSet":[],'
        b'"expressionType":"TAG","subString":"*","subVersion":1700000000000,"tagsSet":[],"topic":"T"}}}'
    )
    cc = client_rpc.CONSUMER_CONNECTION.decode(body)
    assert [c.client_id for c in cc.connections] == ["a@2", "b@1"] and cc.min_version() == 409
    assert cc.subscriptions["T"].sub_version == 1_700_000_000_000
    other = ConsumerConnection.from_json({"connectionSet": [{"clientId": "c@3", "version": 513}]})
    cc.merge(other)
    assert [c.version_desc for c in cc.connections] == ["V5_3_3", "V4_9_8", "V5_5_0"]
    body = client_rpc.CONSUMER_CONNECTION
    assert body.decode(body.encode(cc)).connections == cc.connections


def test_running_info_from_a_java_client() -> None:
    body = (
        b'{"jstack":"\\"main\\"","mqTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:'
        b'{"cachedMsgCount":2,"commitOffset":10,"locked":false}},"properties":{"PROP_CONSUME_TYPE":'
        b'"CONSUME_PASSIVELY","PROP_CONSUMEORDERLY":"true","PROP_CONSUMER_START_TIMESTAMP":"1700000000000",'
        b'"consumeThreadMax":20},"statusTable":{"T":{"pullRT":1.5}},"subscriptionSet":[{"topic":"T",'
        b'"subString":"*"}]}'
    )
    info = client_rpc.RUNNING_INFO.decode(body)
    assert info.mq_table == {MQ_A0: {"cachedMsgCount": 2, "commitOffset": 10, "locked": False}}
    assert info.consume_type == "CONSUME_PASSIVELY" and info.orderly and info.start_timestamp == 1_700_000_000_000
    assert info.properties["consumeThreadMax"] == "20" and info.jstack == '"main"'
    assert ConsumerRunningInfo.from_json(info.wire_json()) == info


@pytest.mark.parametrize(
    "body",
    [
        b'{"consumeTps":1.5E-4,"offsetTable":{{"brokerName":"b","queueId":0,"topic":"%RETRY%G|x"}:{"brokerOffset":2}}}',
        b'{"a":"x,{b}:c","offsetTable":{{"topic":"T"}:1}}',  # a string that looks like a key stays a string
        b'{"offsetTable":{{"topic":"T\\"x"}:1}}',
        b'{"x":{{"a":{"b":1}}:2}}',
        b'{0:"a",1:"b"}',
        b'{"offsetTable":{}}',
        b"[]",
    ],
)
def test_queue_keyed_bodies_read_as_fastjson_reads_them(body: bytes) -> None:
    assert loads_mq_keyed(body) == fastjson.loads(body)


def test_malformed_bodies_are_value_errors() -> None:
    with pytest.raises(ValueError):
        client_rpc.CONSUMER_CONNECTION.decode(b'{"connectionSet":"x"}')
    with pytest.raises(ValueError):
        client_rpc.RUNNING_INFO.decode(b'{"properties":["x"]}')
    with pytest.raises(ValueError):
        ResetOffsetBody().decode(b'{"offsetTable":{"not a queue":1}}')
