"""The broker's message path against a real in-process cluster: send, pull, long polling,
auto-creation, offsets, queries, client registry, stats bodies."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from mqadmin.admin.messaging import send_message
from mqadmin.admin.reading import read_messages
from mqadmin.model.clients import ConsumerData, HeartbeatData, LockBatchBody
from mqadmin.model.queue import MessageQueue
from mqadmin.model.rpc.clients import (
    GET_CONSUMER_CONNECTION_LIST,
    GET_CONSUMER_LIST_BY_GROUP,
    GET_CONSUMER_RUNNING_INFO,
    GET_PRODUCER_CONNECTION_LIST,
    HEART_BEAT,
    LOCK_BATCH_MQ,
    QUERY_CONSUMER_OFFSET,
    UNLOCK_BATCH_MQ,
    UNREGISTER_CLIENT,
    UPDATE_CONSUMER_OFFSET,
    ConsumerGroupHeader,
    ProducerGroupHeader,
    QueryOffsetHeader,
    RunningInfoHeader,
    UnregisterClientHeader,
    UpdateOffsetHeader,
)
from mqadmin.model.rpc.groups import GET_CONSUME_STATS, ConsumeStatsHeader
from mqadmin.model.rpc.messages import (
    GET_MAX_OFFSET,
    GET_MIN_OFFSET,
    PULL_MESSAGE,
    QUERY_MESSAGE,
    SEARCH_OFFSET_BY_TIMESTAMP,
    SEND_BATCH_MESSAGE,
    SEND_MESSAGE,
    VIEW_MESSAGE_BY_ID,
    PullHeader,
    QueryMessageHeader,
    QueueHeader,
    SearchOffsetHeader,
    SendHeaderV2,
    ViewMessageHeader,
)
from mqadmin.model.rpc.topics import GET_TOPIC_STATS_INFO, TopicHeader
from mqadmin.model.tags import SubscriptionData, java_string_hash
from mqadmin.server.broker.send import encode_batch
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode as R
from mqadmin.wire.frame import RemotingCommand
from mqadmin.wire.message import decode_messages, decode_properties, encode_properties, new_uniq_key, offset_msg_id

from .conftest import call, pull_header, request, send_header, until

CG_HB = ConsumerGroupHeader(consumer_group="CG_HB")


def broker_of(cluster, i: int = 0):
    return cluster.brokers[i]


def pulling(topic: str, queue_id: int = 0, offset: int = 0, *, group: str = "CG_TEST", **fields: Any) -> PullHeader:
    """``pull_header`` with other fields of the declaration set (``sys_flag``, ``sub_version``, …)."""
    return replace(pull_header(topic, queue_id, offset, group=group), **fields)


async def consumer_ids(t: TcpTransport, addr: str, group: str) -> list[str]:
    resp = await call(t, addr, GET_CONSUMER_LIST_BY_GROUP, ConsumerGroupHeader(consumer_group=group))
    return list(GET_CONSUMER_LIST_BY_GROUP.reply(resp).body.ids)


async def test_send_then_pull_round_trip(cluster, transport):
    addr = broker_of(cluster).config.addr
    sent = await call(transport, addr, SEND_MESSAGE, send_header("RoundTrip", keys="k1", tags="TagA"), b"payload")
    assert sent.code == R.SUCCESS, sent.remark
    assert (sent.ext["queueId"], sent.ext["queueOffset"]) == ("0", "0")
    assert sent.ext["MSG_REGION"] == "DefaultRegion" and sent.ext["TRACE_ON"] == "true"
    pulled = await call(transport, addr, PULL_MESSAGE, pulling("RoundTrip"))
    assert pulled.code == R.SUCCESS
    assert (pulled.ext["nextBeginOffset"], pulled.ext["maxOffset"], pulled.ext["minOffset"]) == ("1", "1", "0")
    assert pulled.ext["suggestWhichBrokerId"] == "0" and pulled.remark == "FOUND"
    (msg,) = decode_messages(pulled.body)
    assert msg.body == b"payload" and msg.tags == "TagA" and msg.keys == ["k1"]
    assert msg.msg_id == sent.ext["msgId"]
    assert msg.properties["CLUSTER"] == "DefaultCluster" and "WAIT" not in msg.properties
    again = await call(transport, addr, PULL_MESSAGE, pulling("RoundTrip", offset=1))
    assert (again.code, again.remark) == (R.PULL_NOT_FOUND, "OFFSET_OVERFLOW_ONE")
    moved = await call(transport, addr, PULL_MESSAGE, pulling("RoundTrip", offset=7))
    assert (moved.code, moved.ext["nextBeginOffset"]) == (R.PULL_OFFSET_MOVED, "1")


async def test_v2_short_keys_with_numeric_values(cluster, transport):
    """ali-ons sends code 310 with keys a–k and JSON numbers/booleans (normalised to strings): raw, as it sends it."""
    addr = broker_of(cluster).config.addr
    ext = {"a": "PG", "b": "ShortKeys", "c": "TBW102", "d": "4", "e": "2", "f": "0", "g": "1795221303873",
           "h": "0", "i": "TAGS\x01TagA\x02KEYS\x01k1\x02", "j": "0", "k": "false"}  # fmt: skip
    resp = await request(transport, addr, RC.SEND_MESSAGE_V2, ext, b"hello from ali-ons")
    assert resp.code == R.SUCCESS and resp.ext["queueId"] == "2"


async def test_long_polling_pull_completes_when_a_message_arrives(cluster, transport):
    broker = broker_of(cluster)
    addr = broker.config.addr
    await call(transport, addr, SEND_MESSAGE, send_header("Polled"), b"first")
    held = pulling("Polled", offset=1, sys_flag=6, suspend_timeout_millis=30000)
    pull = asyncio.create_task(call(transport, addr, PULL_MESSAGE, held))
    await until(lambda: broker.store.polling.suspended == 1, what="the pull to be held")
    assert not pull.done()
    sent = await call(TcpTransport(), addr, SEND_MESSAGE, send_header("Polled"), b"wake up")
    assert sent.code == R.SUCCESS
    resp = await asyncio.wait_for(pull, 10)
    assert resp.code == R.SUCCESS
    assert [m.body for m in decode_messages(resp.body)] == [b"wake up"]


async def test_held_pull_ends_with_not_found_after_its_timeout(cluster, transport):
    addr = broker_of(cluster).config.addr
    await call(transport, addr, SEND_MESSAGE, send_header("Quiet"), b"x")
    resp = await call(transport, addr, PULL_MESSAGE, pulling("Quiet", offset=1, sys_flag=6, suspend_timeout_millis=50))
    assert resp.code == R.PULL_NOT_FOUND


async def test_commit_offset_piggybacked_on_pull(cluster, transport):
    addr = broker_of(cluster).config.addr
    await call(transport, addr, SEND_MESSAGE, send_header("Piggy"), b"x")
    await call(transport, addr, PULL_MESSAGE, pulling("Piggy", sys_flag=5, commit_offset=1))
    q = await call(
        transport, addr, QUERY_CONSUMER_OFFSET, QueryOffsetHeader(consumer_group="CG_TEST", topic="Piggy", queue_id=0)
    )
    assert (q.code, QUERY_CONSUMER_OFFSET.reply(q).header.offset) == (R.SUCCESS, 1)


async def test_tag_subscription_filters_on_the_broker(cluster, transport):
    addr = broker_of(cluster).config.addr
    for tag in ("A", "B", "C"):
        await call(transport, addr, SEND_MESSAGE, send_header("Tagged", tags=tag), tag.encode())
    resp = await call(transport, addr, PULL_MESSAGE, pulling("Tagged", subscription="A || C"))
    assert [m.body for m in decode_messages(resp.body)] == [b"A", b"C"]
    assert resp.ext["nextBeginOffset"] == "3"


async def test_auto_create_through_tbw102_takes_the_smaller_queue_count(cluster, transport):
    broker = broker_of(cluster)
    addr = broker.config.addr
    resp = await call(transport, addr, SEND_MESSAGE, send_header("AutoThree", default_queues=3), b"x")
    assert resp.code == R.SUCCESS
    tc = broker.topics.get("AutoThree")
    assert (tc.read_queue_nums, tc.write_queue_nums, tc.perm) == (3, 3, 6)  # TBW102's INHERIT bit dropped
    await call(transport, addr, SEND_MESSAGE, send_header("AutoMany", default_queues=64), b"x")
    assert broker.topics.get("AutoMany").write_queue_nums == broker.topics.get("TBW102").write_queue_nums == 8


async def test_no_auto_create_answers_topic_not_exist(make_cluster, transport):
    cluster = await make_cluster(auto_create=False)
    broker = broker_of(cluster)
    resp = await call(transport, broker.config.addr, SEND_MESSAGE, send_header("Nowhere"), b"x")
    assert resp.code == R.TOPIC_NOT_EXIST
    assert "topic[Nowhere] not exist, apply first please!" in resp.remark
    assert broker.topics.get("Nowhere") is None


async def test_retry_topic_is_created_with_one_queue(make_cluster, transport):
    cluster = await make_cluster(auto_create=False)
    broker = broker_of(cluster)
    resp = await call(transport, broker.config.addr, SEND_MESSAGE, send_header("%RETRY%GroupX"), b"x")
    assert resp.code == R.SUCCESS, resp.remark
    tc = broker.topics.get("%RETRY%GroupX")
    assert (tc.read_queue_nums, tc.write_queue_nums, tc.perm) == (1, 1, 6)


async def test_oversized_message_is_illegal(cluster, transport):
    broker = broker_of(cluster)
    broker.config.max_message_size = 1024
    resp = await call(transport, broker.config.addr, SEND_MESSAGE, send_header("Big"), bytes(1025))
    assert resp.code == R.MESSAGE_ILLEGAL
    assert "1025 bytes" in resp.remark and "maxMessageSize of 1024" in resp.remark
    ok = await call(transport, broker.config.addr, SEND_MESSAGE, send_header("Big"), bytes(1024))
    assert ok.code == R.SUCCESS


async def test_queue_id_out_of_range_is_refused(cluster, transport):
    addr = broker_of(cluster).config.addr
    await call(transport, addr, SEND_MESSAGE, send_header("Ranged"), b"create it (4 queues)")
    resp = await call(transport, addr, SEND_MESSAGE, send_header("Ranged", queue_id=4), b"x")
    assert resp.code == R.SYSTEM_ERROR
    assert resp.remark.startswith("request queueId[4] is illegal, TopicConfig [topicName=Ranged")
    picked = await call(transport, addr, SEND_MESSAGE, send_header("Ranged", queue_id=-1), b"x")
    assert picked.code == R.SUCCESS and 0 <= int(picked.ext["queueId"]) < 4


async def test_msg_check_refusals(cluster, transport):
    broker = broker_of(cluster)
    addr = broker.config.addr
    bad = await call(transport, addr, SEND_MESSAGE, send_header("bad topic!"), b"x")
    assert bad.code == R.INVALID_PARAMETER and "contains illegal characters" in bad.remark
    sched = await call(transport, addr, SEND_MESSAGE, send_header("SCHEDULE_TOPIC_XXXX"), b"x")
    assert (sched.code, sched.remark) == (
        R.NO_PERMISSION,
        "Sending message to topic[SCHEDULE_TOPIC_XXXX] is forbidden.",
    )
    broker.config.broker_permission = 4
    ro = await call(transport, addr, SEND_MESSAGE, send_header("ReadOnly"), b"x")
    assert ro.code == R.NO_PERMISSION and "sending message is forbidden" in ro.remark


async def test_batch_gets_consecutive_offsets(cluster, transport):
    addr = broker_of(cluster).config.addr
    items = [(0, f"m{i}".encode(), encode_properties({"UNIQ_KEY": new_uniq_key(), "KEYS": f"b{i}"})) for i in range(3)]
    header = SendHeaderV2(
        producer_group="PG", topic="Batched", default_topic="TBW102", default_topic_queue_nums=4, queue_id=1,
        sys_flag=0, born_timestamp=1, flag=0, reconsume_times=0, unit_mode=False, batch=True,
    )  # fmt: skip
    resp = await call(transport, addr, SEND_BATCH_MESSAGE, header, encode_batch(items))
    assert resp.code == R.SUCCESS, resp.remark
    assert resp.ext["queueOffset"] == "0" and resp.ext["msgId"].count(",") == 2
    pulled = await call(transport, addr, PULL_MESSAGE, pulling("Batched", queue_id=1))
    msgs = decode_messages(pulled.body)
    assert [(m.body, m.queue_offset) for m in msgs] == [(b"m0", 0), (b"m1", 1), (b"m2", 2)]
    assert [m.msg_id for m in msgs] == resp.ext["msgId"].split(",")
    # the topic exists now: the next batch is answered from the store's commit
    again = await call(transport, addr, SEND_BATCH_MESSAGE, header, encode_batch(items[:2]))
    assert (again.code, again.ext["queueOffset"]) == (R.SUCCESS, "3"), again.remark
    pulled = await call(transport, addr, PULL_MESSAGE, pulling("Batched", queue_id=1, offset=3))
    msgs = decode_messages(pulled.body)
    assert [(m.body, m.queue_offset, m.properties["KEYS"]) for m in msgs] == [(b"m0", 3, "b0"), (b"m1", 4, "b1")]
    assert [m.msg_id for m in msgs] == again.ext["msgId"].split(",")
    broken = await call(transport, addr, SEND_BATCH_MESSAGE, header, b"\x00\x00\x00\x10garbage")  # malformed
    assert broken.code == R.MESSAGE_ILLEGAL and "malformed" in broken.remark
    empty = await call(transport, addr, SEND_BATCH_MESSAGE, header, b"")
    assert (empty.code, empty.remark) == (R.MESSAGE_ILLEGAL, "the batch holds no message")
    retry = await call(transport, addr, SEND_BATCH_MESSAGE, replace(header, topic="%RETRY%CG_B"), encode_batch(items))
    assert (retry.code, retry.remark) == (R.MESSAGE_ILLEGAL, "batch request does not support retry group")


async def test_consumer_offsets_survive_a_restart(make_cluster, tmp_path):
    data = tmp_path / "persist"
    cluster = await make_cluster(data_dir=data)
    t = TcpTransport()
    addr = broker_of(cluster).config.addr
    commit = UpdateOffsetHeader(consumer_group="CG_P", topic="Kept", queue_id=2, commit_offset=42)
    assert (await call(t, addr, UPDATE_CONSUMER_OFFSET, commit)).code == R.SUCCESS
    await t.aclose()
    await cluster.stop()
    saved = fastjson.loads((data / "broker-a" / "config" / "consumerOffset.json").read_bytes())
    assert saved == {"offsetTable": {"Kept@CG_P": {"2": 42}}}
    again = await make_cluster(data_dir=data)
    t = TcpTransport()
    query = QueryOffsetHeader(consumer_group="CG_P", topic="Kept", queue_id=2)
    q = await call(t, broker_of(again).config.addr, QUERY_CONSUMER_OFFSET, query)
    assert (q.code, QUERY_CONSUMER_OFFSET.reply(q).header.offset) == (R.SUCCESS, 42)
    absent = replace(query, queue_id=1, set_zero_if_not_found=False)
    none = await call(t, broker_of(again).config.addr, QUERY_CONSUMER_OFFSET, absent)
    assert none.code == R.QUERY_NOT_FOUND
    await t.aclose()


async def test_messages_survive_a_restart(make_cluster, tmp_path, transport):
    data = tmp_path / "msgs"
    cluster = await make_cluster(data_dir=data)
    addr = broker_of(cluster).config.addr
    for i in range(5):
        await call(transport, addr, SEND_MESSAGE, send_header("Durable"), b"%d" % i)
    await cluster.stop()
    again = await make_cluster(data_dir=data)
    t = TcpTransport()
    resp = await call(t, broker_of(again).config.addr, PULL_MESSAGE, pulling("Durable"))
    assert [m.body for m in decode_messages(resp.body)] == [b"0", b"1", b"2", b"3", b"4"]
    await t.aclose()


async def test_query_by_key_and_unique_key_and_view_by_id(cluster, transport):
    addr = broker_of(cluster).config.addr
    header = send_header("Findable", keys="order-1 shared")
    uniq = decode_properties(header.properties)["UNIQ_KEY"]
    sent = await call(transport, addr, SEND_MESSAGE, header, b"needle")
    await call(transport, addr, SEND_MESSAGE, send_header("Findable", keys="other"), b"hay")
    q = QueryMessageHeader(topic="Findable", key="order-1", max_num=32, begin_timestamp=0, end_timestamp=1 << 62)
    found = await call(transport, addr, QUERY_MESSAGE, q)
    assert found.code == R.SUCCESS and [m.body for m in decode_messages(found.body)] == [b"needle"]
    assert QUERY_MESSAGE.reply(found).header.index_last_update_phyoffset > 0
    by_uniq = await call(transport, addr, QUERY_MESSAGE, replace(q, key=uniq, unique_key=True))
    assert [m.body for m in decode_messages(by_uniq.body)] == [b"needle"]
    missing = await call(transport, addr, QUERY_MESSAGE, replace(q, key="nope"))
    assert missing.code == R.QUERY_NOT_FOUND
    host, offset = sent.ext["msgId"], None
    from mqadmin.wire.message import parse_offset_msg_id

    _store, offset = parse_offset_msg_id(host)
    view = await call(transport, addr, VIEW_MESSAGE_BY_ID, ViewMessageHeader(offset=offset))
    assert view.code == R.SUCCESS and decode_messages(view.body)[0].body == b"needle"
    assert decode_messages(view.body)[0].msg_id == offset_msg_id(_store, offset)
    bad = await call(transport, addr, VIEW_MESSAGE_BY_ID, ViewMessageHeader(offset=offset + 3))
    assert bad.code == R.SYSTEM_ERROR


async def test_max_min_offsets_and_search_by_time(cluster, transport):
    addr = broker_of(cluster).config.addr
    for _ in range(3):
        await call(transport, addr, SEND_MESSAGE, send_header("Offsets"), b"x")
    queue = QueueHeader(topic="Offsets", queue_id=0)
    mx = GET_MAX_OFFSET.reply(await call(transport, addr, GET_MAX_OFFSET, queue)).header.offset
    mn = GET_MIN_OFFSET.reply(await call(transport, addr, GET_MIN_OFFSET, queue)).header.offset
    assert (mx, mn) == (3, 0)
    search = SearchOffsetHeader(topic="Offsets", queue_id=0, timestamp=1 << 60)
    assert (
        SEARCH_OFFSET_BY_TIMESTAMP.reply(await call(transport, addr, SEARCH_OFFSET_BY_TIMESTAMP, search)).header.offset
        == 3
    )


class Recorder:
    """A client transport handler that records requests the broker makes on our connection."""

    def __init__(self) -> None:
        self.seen: list[RemotingCommand] = []

    async def __call__(self, cmd: RemotingCommand) -> None:
        self.seen.append(cmd)


def cpp_heartbeat(client_id: str, group: str, topic: str) -> bytes:
    """A heartbeat as the C++ client writes it (enums as ordinals, subVersion a string, a trailing newline):
    raw bytes, a form our declaration does not write."""
    consumer = {"consumeFromWhere": 0, "consumeType": 1, "groupName": group, "messageModel": 1,
                "subscriptionDataSet": [{"subString": "*", "subVersion": "17", "topic": topic}]}  # fmt: skip
    return (fastjson.dumps({"clientID": client_id, "consumerDataSet": [consumer]}) + "\n").encode()


def heartbeat(client_id: str, group: str, topic: str) -> HeartbeatData:
    """A Java client's heartbeat: consumer ``group`` subscribed to ``topic`` (TagA || TagB, version 17), producer
    group PG_HB."""
    sub = SubscriptionData(topic, "TagA || TagB", frozenset({"TagA", "TagB"}), frozenset(), 17)
    consumer = ConsumerData(group, "CONSUME_PASSIVELY", "CLUSTERING", "CONSUME_FROM_FIRST_OFFSET", (sub,))
    return HeartbeatData(client_id, (consumer,), ("PG_HB",))


async def beat(t: TcpTransport, addr: str, client_id: str, group: str, topic: str) -> RemotingCommand:
    return await call(t, addr, HEART_BEAT, body=heartbeat(client_id, group, topic))


async def test_heartbeat_registers_consumers_and_notifies_the_group(cluster):
    broker = broker_of(cluster)
    addr = broker.config.addr
    rec_a, rec_b = Recorder(), Recorder()
    ta, tb = TcpTransport(handler=rec_a), TcpTransport(handler=rec_b)
    try:
        r = await beat(ta, addr, "client-a", "CG_HB", "HbTopic")
        assert r.code == R.SUCCESS
        assert broker.topics.get("%RETRY%CG_HB").write_queue_nums == 1
        await request(tb, addr, RC.HEART_BEAT, body=cpp_heartbeat("client-b", "CG_HB", "HbTopic"), language="CPP")
        await until(lambda: any(c.code == RC.NOTIFY_CONSUMER_IDS_CHANGED for c in rec_a.seen), what="notify")
        assert sorted(await consumer_ids(ta, addr, "CG_HB")) == ["client-a", "client-b"]
        conns = await call(ta, addr, GET_CONSUMER_CONNECTION_LIST, CG_HB)
        body = fastjson.loads(conns.body)
        assert body["consumeType"] == "CONSUME_PASSIVELY" and body["messageModel"] == "CLUSTERING"
        assert {c["language"] for c in body["connectionSet"]} == {"PYTHON", "CPP"}
        assert "HbTopic" in body["subscriptionTable"]
        prod = await call(ta, addr, GET_PRODUCER_CONNECTION_LIST, ProducerGroupHeader(producer_group="PG_HB"))
        assert [c.client_id for c in GET_PRODUCER_CONNECTION_LIST.reply(prod).body] == ["client-a"]
        await call(tb, addr, UNREGISTER_CLIENT, UnregisterClientHeader(client_id="client-b", consumer_group="CG_HB"))
        assert await consumer_ids(ta, addr, "CG_HB") == ["client-a"]
        await ta.aclose()  # a closed connection leaves the group
        await until(lambda: "CG_HB" not in broker.store.clients.consumers, what="client-a to be dropped")
        gone = await call(tb, addr, GET_CONSUMER_LIST_BY_GROUP, CG_HB)
        assert gone.code == R.SYSTEM_ERROR
        none = await call(tb, addr, GET_CONSUMER_CONNECTION_LIST, CG_HB)
        assert none.code == R.CONSUMER_NOT_ONLINE
    finally:
        await ta.aclose()
        await tb.aclose()


async def test_pull_without_subscription_uses_the_heartbeat_one(cluster, transport):
    addr = broker_of(cluster).config.addr
    for tag in ("TagA", "TagX"):
        await call(transport, addr, SEND_MESSAGE, send_header("HbTopic2", tags=tag), tag.encode())
    no_group = await call(transport, addr, PULL_MESSAGE, pulling("HbTopic2", group="CG_H2", sys_flag=0))
    assert no_group.code == R.SUBSCRIPTION_NOT_EXIST
    await beat(transport, addr, "c1", "CG_H2", "HbTopic2")
    newer = await call(transport, addr, PULL_MESSAGE, pulling("HbTopic2", group="CG_H2", sys_flag=0, sub_version=99))
    assert newer.code == R.SUBSCRIPTION_NOT_LATEST
    ok = await call(transport, addr, PULL_MESSAGE, pulling("HbTopic2", group="CG_H2", sys_flag=0, sub_version=17))
    assert [m.body for m in decode_messages(ok.body)] == [b"TagA"]


async def test_consume_and_topic_stats_use_message_queue_keys(cluster, transport):
    addr = broker_of(cluster).config.addr
    for _ in range(3):
        await call(transport, addr, SEND_MESSAGE, send_header("Progress"), b"x")
    commit = UpdateOffsetHeader(consumer_group="CG_S", topic="Progress", queue_id=0, commit_offset=2)
    await call(transport, addr, UPDATE_CONSUMER_OFFSET, commit)
    stats = await call(transport, addr, GET_CONSUME_STATS, ConsumeStatsHeader(consumer_group="CG_S"))
    assert stats.body.startswith(b'{"consumeTps":0.0,"offsetTable":{{"brokerName":"broker-a","queueId":0,')
    table = fastjson.loads(stats.body)["offsetTable"]
    q0 = table[fastjson.dumps({"brokerName": "broker-a", "queueId": 0, "topic": "Progress"})]
    assert (q0["brokerOffset"], q0["consumerOffset"]) == (3, 2) and q0["lastTimestamp"] > 0
    assert len(table) == 4
    topic = await call(transport, addr, GET_TOPIC_STATS_INFO, TopicHeader(topic="Progress"))
    offsets = fastjson.loads(topic.body)["offsetTable"]
    assert offsets[fastjson.dumps({"brokerName": "broker-a", "queueId": 0, "topic": "Progress"})]["maxOffset"] == 3
    missing = await call(transport, addr, GET_TOPIC_STATS_INFO, TopicHeader(topic="NoSuch"))
    assert missing.code == R.TOPIC_NOT_EXIST


async def test_lock_batch_grants_free_queues_only(cluster, transport):
    addr = broker_of(cluster).config.addr
    body = LockBatchBody("CG_O", "c1", tuple(MessageQueue("Ordered", "broker-a", i) for i in range(2)))

    async def locked(body: LockBatchBody) -> tuple[MessageQueue, ...]:
        return LOCK_BATCH_MQ.reply(await call(transport, addr, LOCK_BATCH_MQ, body=body)).body.queues

    assert len(await locked(body)) == 2
    assert await locked(replace(body, client_id="c2")) == ()
    await call(transport, addr, UNLOCK_BATCH_MQ, body=body)
    assert len(await locked(replace(body, client_id="c2"))) == 2


async def test_client_send_and_consume(admin, cluster):
    r1 = await send_message(admin, "ClientTopic", b"one", keys="k", tags="T")
    assert r1.status == "SEND_OK" and r1.auto_created_route
    r2 = await until_route(admin, "ClientTopic")
    assert r2
    results = [await send_message(admin, "ClientTopic", b"%d" % i) for i in range(4)]
    assert not any(r.auto_created_route for r in results)
    got = await read_messages(admin, "ClientTopic", limit=10)
    assert sorted(m.message.body for m in got) == sorted([b"one", b"0", b"1", b"2", b"3"])


async def until_route(admin, topic):
    from mqadmin.admin.errors import ResponseError

    async def probe():
        try:
            return await admin.topic_route(topic)
        except ResponseError:
            return None

    for _ in range(200):
        route = await probe()
        if route:
            return route
        await asyncio.sleep(0.02)
    raise AssertionError("no route")


async def test_order_key_picks_the_java_hash_queue(admin, cluster):
    broker = broker_of(cluster)
    await broker.topics.update(
        broker.topics.get("TBW102").with_(topic_name="OrderedTopic", read_queue_nums=8, write_queue_nums=8, perm=6)
    )
    await until_route(admin, "OrderedTopic")
    result = await send_message(admin, "OrderedTopic", b"x", order_key="order-42")
    assert result.queue_id == abs(java_string_hash("order-42")) % 8


async def test_consumer_running_info_is_forwarded_to_the_consumer(cluster, transport):
    addr = broker_of(cluster).config.addr

    async def consumer_side(cmd: RemotingCommand) -> RemotingCommand:
        return cmd.response(R.SUCCESS, body=b'{"properties":{"answeredBy":"client-r"}}')

    consumer = TcpTransport(handler=consumer_side)
    try:
        await beat(consumer, addr, "client-r", "CG_RUN", "RunTopic")
        header = RunningInfoHeader(consumer_group="CG_RUN", client_id="client-r", jstack_enable=False)
        resp = await call(transport, addr, GET_CONSUMER_RUNNING_INFO, header)
        assert resp.code == R.SUCCESS and b"client-r" in resp.body
        missing = await call(transport, addr, GET_CONSUMER_RUNNING_INFO, replace(header, client_id="nobody"))
        assert missing.code == R.SYSTEM_ERROR and "not online" in missing.remark
    finally:
        await consumer.aclose()


async def test_query_consume_queue_shows_a_groups_subscription_or_that_it_is_offline(cluster, transport):
    """queryCq -g: the subscription of an online consumer of the group, else "not online" (as Java's broker)."""
    from mqadmin.model.rpc.messages import QUERY_CONSUME_QUEUE, QueryConsumeQueueHeader

    addr = broker_of(cluster).config.addr
    assert (await call(transport, addr, SEND_MESSAGE, send_header("CqTopic"), b"x")).code == R.SUCCESS
    await beat(transport, addr, "client-cq", "CqGroup", "CqTopic")

    async def view(group: str):
        header = QueryConsumeQueueHeader(topic="CqTopic", queue_id=0, index=0, count=1, consumer_group=group)
        resp = await transport.request(addr, QUERY_CONSUME_QUEUE.request(header))
        assert resp.code == R.SUCCESS, resp.remark
        return QUERY_CONSUME_QUEUE.reply(resp).body

    online = await view("CqGroup")
    assert online.filter_data == "null" and online.subscription_data["subString"] == "TagA || TagB"
    offline = await view("Nobody")
    assert offline.subscription_data is None and offline.filter_data == "Nobody@CqTopic is not online!"
    assert len(online.queue_data) == 1
