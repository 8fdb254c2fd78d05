"""The lite-topic requests on the embedded broker, which has no lite topics or groups: Apache 5.5's answers for a
missing topic or group (the answers for a normal one are compared with Apache in tests/conformance)."""

from __future__ import annotations

import json

from mqadmin.wire.codes import ResponseCode as R

from .conftest import request
from .test_broker_admin import addr_of

GET_PARENT_TOPIC_INFO, GET_LITE_TOPIC_INFO, GET_LITE_GROUP_INFO, TRIGGER_LITE_DISPATCH = 200075, 200076, 200078, 200079


async def test_missing_topics_and_groups(make_cluster, transport):
    cluster = await make_cluster(auto_create=False)
    addr = addr_of(cluster)
    for code, ext in [(GET_PARENT_TOPIC_INFO, {"topic": "Nope"}), (GET_LITE_TOPIC_INFO, {"parentTopic": "Nope"})]:
        resp = await request(transport, addr, code, ext)
        assert (resp.code, resp.remark) == (R.TOPIC_NOT_EXIST, "Topic [Nope] not exist.")
    cluster.brokers[0].groups.auto_create = False
    for code in (GET_LITE_GROUP_INFO, TRIGGER_LITE_DISPATCH):
        resp = await request(transport, addr, code, {"group": "NoGroup"})
        assert (resp.code, resp.remark) == (R.SUBSCRIPTION_GROUP_NOT_EXIST, "Group [NoGroup] not exist.")


async def test_a_topic_cannot_be_made_lite(cluster, transport):
    """So no lite topic can exist here: the attribute Apache 5.5 makes one with is refused."""
    from mqadmin.model.topic import TopicConfig

    from .conftest import topic_ext

    ext = topic_ext(TopicConfig("Chats", attributes={"message.type": "LITE"}))
    resp = await request(transport, addr_of(cluster), 17, ext)
    assert (resp.code, resp.remark) == (
        R.SYSTEM_ERROR,
        "value is not in set: [UNSPECIFIED, TRANSACTION, FIFO, MIXED, DELAY, NORMAL]",
    )
    info = await request(transport, addr_of(cluster), 200074)
    assert json.loads(info.body)["topicMeta"] == {}


async def test_a_bound_group_has_no_lag(cluster, transport):
    """A group bound to a parent topic (lite.bind.topic) while no lite topic exists: Apache 5.5's bodies."""
    from mqadmin.wire import fastjson

    addr = addr_of(cluster)
    group = {"groupName": "Bound", "attributes": {"+lite.bind.topic": "Chats"}}
    created = await request(transport, addr, 200, body=fastjson.dumps_bytes(group))
    assert created.code == R.SUCCESS, created.remark
    whole = await request(transport, addr, GET_LITE_GROUP_INFO, {"group": "Bound", "topK": "5"})
    body = json.loads(whole.body)
    assert (body["parentTopic"], body["totalLagCount"], body["earliestUnconsumedTimestamp"]) == ("Chats", 0, -1)
    one = json.loads((await request(transport, addr, GET_LITE_GROUP_INFO, {"group": "Bound", "liteTopic": "r"})).body)
    assert (one["liteTopic"], one["totalLagCount"], one["earliestUnconsumedTimestamp"]) == ("r", -1, -1)
    no_k = await request(transport, addr, GET_LITE_GROUP_INFO, {"group": "Bound", "topK": "0"})
    assert (no_k.code, no_k.remark) == (R.SYSTEM_ERROR, "topK=0: it must be at least 1")
    assert (await request(transport, addr, TRIGGER_LITE_DISPATCH, {"group": "Bound"})).code == R.SUCCESS
