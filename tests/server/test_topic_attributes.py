"""Topic attributes change the way Apache 5.x changes them (AttributeParser.parseToMap and
AttributeUtil.alterCurrentAttributes): an update carries +key=value / -key operations applied to the
topic's current attributes, so an update without attributes keeps them (message.type=FIFO was lost).

The codes and remarks are those a real Apache 5.3.3 broker answered for the same requests, except
where Java fails with an internal message ('+a=': "Index 1 out of bounds for length 1",
'+reserve.time=soon': 'For input string: "soon"'), which we replace with a plain explanation."""

from __future__ import annotations

from dataclasses import replace

import pytest

from mqadmin.model.rpc import topics
from mqadmin.model.topic import TopicConfig
from mqadmin.server.broker.attributes import AttributeRefused, alter, parse_operations
from mqadmin.wire.codes import ResponseCode as R


def test_operations_keep_their_signs():
    assert parse_operations("+message.type=FIFO,-reserve.time") == {"+message.type": "FIFO", "-reserve.time": ""}
    assert parse_operations("") == {}


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        ("message.type=FIFO", "add/alter attribute format is wrong: message.type"),
        ("message.type", "delete attribute format is wrong: message.type"),
        ("+a=1,+a=2", "key duplication: +a"),
        ("+a=", "add/alter attribute format is wrong: +a="),
    ],
)
def test_malformed_operations_are_refused(spec, error):
    with pytest.raises(AttributeRefused) as e:
        parse_operations(spec)
    assert str(e.value) == error


@pytest.mark.parametrize(
    ("create", "current", "ops", "expected"),
    [
        (True, {}, {"+message.type": "FIFO"}, {"message.type": "FIFO"}),
        (False, {"message.type": "FIFO"}, {}, {"message.type": "FIFO"}),
        (False, {"message.type": "FIFO"}, {"+message.type": "NORMAL"}, {"message.type": "NORMAL"}),
        (False, {"message.type": "FIFO"}, {"-message.type": ""}, {}),
        (False, {"message.type": "FIFO"}, {"+reserve.time": "3600"}, {"message.type": "FIFO", "reserve.time": "3600"}),
        (True, {}, {"+queue.type": "BatchCQ", "+cleanup.policy": "COMPACTION"},
         {"queue.type": "BatchCQ", "cleanup.policy": "COMPACTION"}),
    ],
)  # fmt: skip
def test_alter_merges_into_the_current_attributes(create, current, ops, expected):
    assert alter(create, current, ops) == expected


@pytest.mark.parametrize(
    ("create", "current", "ops", "error"),
    [
        (True, {}, {"-message.type": ""}, "only add attribute is supported while creating topic. key: message.type"),
        (False, {}, {"-message.type": ""}, "attempt to delete a nonexistent key: message.type"),
        (False, {}, {"+nope": "1"}, "unsupported key: nope"),
        (False, {"queue.type": "SimpleCQ"}, {"+queue.type": "BatchCQ"},
         "attempt to update an unchangeable attribute. key: queue.type"),
        (False, {"cleanup.policy": "DELETE"}, {"-cleanup.policy": ""},
         "attempt to update an unchangeable attribute. key: cleanup.policy"),
        (True, {}, {"+message.type": "fifo"},
         "value is not in set: [UNSPECIFIED, TRANSACTION, FIFO, MIXED, DELAY, NORMAL]"),
        (True, {}, {"+reserve.time": "-2"}, "value is not in range(-1, 9223372036854775807)"),
        (True, {}, {"+reserve.time": "soon"}, "value 'soon' is not a number"),
        (False, {"message.type": "FIFO"}, {"+message.type": "NORMAL", "-message.type": ""},
         "alter duplication key. key: message.type"),
        (True, {}, {"+a+b": "1"}, "kv string format wrong."),
        (False, {}, {"x": "1"}, "kv string format wrong."),
        (False, {}, {"xy": "1"}, "wrong format key: y"),
    ],
)  # fmt: skip
def test_alter_refuses_what_apache_refuses(create, current, ops, error):
    with pytest.raises(AttributeRefused) as e:
        alter(create, current, ops)
    assert str(e.value) == error


# --- over the wire ------------------------------------------------------------------------------


async def update(transport, cluster, topic: str, attributes: str | None, **fields):
    """UPDATE_AND_CREATE_TOPIC of ``topic`` (4 queues unless ``fields`` say otherwise) with these attribute
    operations (None: the field absent, as a 4.x client sends it)."""
    header = replace(topics.CreateTopicHeader.of(TopicConfig(topic, 4, 4)), attributes=attributes, **fields)
    return await transport.request(cluster.brokers[0].config.addr, topics.UPDATE_AND_CREATE_TOPIC.request(header))


async def test_an_update_without_attributes_keeps_them(cluster, transport, admin):
    assert (await update(transport, cluster, "Fifo", "+message.type=FIFO")).code == R.SUCCESS
    assert (await update(transport, cluster, "Fifo", None, read_queue_nums=8, write_queue_nums=8)).code == R.SUCCESS
    assert (await update(transport, cluster, "Fifo", "")).code == R.SUCCESS
    tc = cluster.brokers[0].topics.get("Fifo")
    assert (tc.read_queue_nums, tc.attributes) == (4, {"message.type": "FIFO"})
    read = topics.GET_TOPIC_CONFIG.request(topics.GetTopicConfigHeader(topic="Fifo"))
    got = await transport.request(cluster.brokers[0].config.addr, read)
    assert topics.GET_TOPIC_CONFIG.reply(got).body.config.attributes == {"message.type": "FIFO"}


async def test_add_change_and_remove_attributes_on_update(cluster, transport):
    await update(transport, cluster, "Attrs", "+message.type=FIFO")
    assert (await update(transport, cluster, "Attrs", "+reserve.time=60")).code == R.SUCCESS
    assert cluster.brokers[0].topics.get("Attrs").attributes == {"message.type": "FIFO", "reserve.time": "60"}
    assert (await update(transport, cluster, "Attrs", "-reserve.time,+message.type=NORMAL")).code == R.SUCCESS
    assert cluster.brokers[0].topics.get("Attrs").attributes == {"message.type": "NORMAL"}


@pytest.mark.parametrize(
    ("attributes", "code", "remark"),
    [
        ("-reserve.time", R.SYSTEM_ERROR, "attempt to delete a nonexistent key: reserve.time"),
        ("+queue.type=BatchCQ", R.SYSTEM_ERROR, "attempt to update an unchangeable attribute. key: queue.type"),
        ("+message.type=MIXED", R.INVALID_PARAMETER, "MIXED message type is not supported."),
        ("+message.type=Fifo", R.SYSTEM_ERROR,
         "value is not in set: [UNSPECIFIED, TRANSACTION, FIFO, MIXED, DELAY, NORMAL]"),
        ("+nope=1", R.SYSTEM_ERROR, "unsupported key: nope"),
    ],
)  # fmt: skip
async def test_a_refused_update_changes_nothing(cluster, transport, attributes, code, remark):
    await update(transport, cluster, "Kept", "+message.type=FIFO,+queue.type=SimpleCQ")
    broker = cluster.brokers[0]
    before, version = broker.topics.get("Kept"), broker.topics.data_version["counter"]
    resp = await update(transport, cluster, "Kept", attributes, read_queue_nums=2)
    assert (resp.code, resp.remark) == (code, remark)
    assert broker.topics.get("Kept") == before and broker.topics.data_version["counter"] == version


async def test_creating_with_a_removal_is_refused(cluster, transport):
    resp = await update(transport, cluster, "New", "-message.type")
    assert (resp.code, resp.remark) == (
        R.SYSTEM_ERROR,
        "only add attribute is supported while creating topic. key: message.type",
    )
    assert cluster.brokers[0].topics.get("New") is None


async def test_topic_list_bodies_merge_the_same_way(cluster, transport):
    addr = cluster.brokers[0].config.addr
    await update(transport, cluster, "Listed", "+message.type=FIFO")
    fresh = TopicConfig("Fresh", attributes={"+message.type": "DELAY"})
    resp = await transport.request(
        addr, topics.UPDATE_AND_CREATE_TOPIC_LIST.request(body=[TopicConfig("Listed", 2, 2), fresh])
    )
    assert resp.code == R.SUCCESS
    held = cluster.brokers[0].topics
    assert held.get("Listed").attributes == {"message.type": "FIFO"} and held.get("Listed").read_queue_nums == 2
    assert held.get("Fresh").attributes == {"message.type": "DELAY"}
