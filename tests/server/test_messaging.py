"""The broker's message path against a real in-process cluster: send, pull, long polling,
auto-creation, offsets, queries, client registry, stats bodies."""

from __future__ import annotations

import asyncio

from mqadmin.admin.messaging import send_message
from mqadmin.admin.reading import read_messages
from mqadmin.model.tags import java_string_hash
from mqadmin.server.broker.batch import encode_batch
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode as R
from mqadmin.wire.frame import RemotingCommand
from mqadmin.wire.message import decode_messages, encode_properties, new_uniq_key, offset_msg_id

from .conftest import pull_ext, request, send_ext, until


def broker_of(cluster, i: int = 0):
    return cluster.brokers[i]


async def test_send_then_pull_round_trip(cluster, transport):
    addr = broker_of(cluster).config.addr
    sent = await request(transport, addr, RC.SEND_MESSAGE, send_ext("RoundTrip", keys="k1", tags="TagA"), b"payload")
    assert sent.code == R.SUCCESS, sent.remark
    assert (sent.ext["queueId"], sent.ext["queueOffset"]) == ("0", "0")
    assert sent.ext["MSG_REGION"] == "DefaultRegion" and sent.ext["TRACE_ON"] == "true"
    pulled = await request(transport, addr, RC.PULL_MESSAGE, pull_ext("RoundTrip"))
    assert pulled.code == R.SUCCESS
    assert (pulled.ext["nextBeginOffset"], pulled.ext["maxOffset"], pulled.ext["minOffset"]) == ("1", "1", "0")
    assert pulled.ext["suggestWhichBrokerId"] == "0" and pulled.remark == "FOUND"
    (msg,) = decode_messages(pulled.body)
    assert msg.body == b"payload" and msg.tags == "TagA" and msg.keys == ["k1"]
    assert msg.msg_id == sent.ext["msgId"]
    assert msg.properties["CLUSTER"] == "DefaultCluster" and "WAIT" not in msg.properties
    again = await request(transport, addr, RC.PULL_MESSAGE, pull_ext("RoundTrip", offset=1))
    assert (again.code, again.remark) == (R.PULL_NOT_FOUND, "OFFSET_OVERFLOW_ONE")
    moved = await request(transport, addr, RC.PULL_MESSAGE, pull_ext("RoundTrip", offset=7))
    assert (moved.code, moved.ext["nextBeginOffset"]) == (R.PULL_OFFSET_MOVED, "1")


async def test_v2_short_keys_with_numeric_values(cluster, transport):
    """ali-ons sends code 310 with keys a–k and JSON numbers/booleans (normalised to strings)."""
    addr = broker_of(cluster).config.addr
    ext = {"a": "PG", "b": "ShortKeys", "c": "TBW102", "d": "4", "e": "2", "f": "0", "g": "1795221303873",
           "h": "0", "i": "TAGS\x01TagA\x02KEYS\x01k1\x02", "j": "0", "k": "false"}  # fmt: skip
    resp = await request(transport, addr, RC.SEND_MESSAGE_V2, ext, b"hello from ali-ons")
    assert resp.code == R.SUCCESS and resp.ext["queueId"] == "2"


async def test_long_polling_pull_completes_when_a_message_arrives(cluster, transport):
    broker = broker_of(cluster)
    addr = broker.config.addr
    await request(transport, addr, RC.SEND_MESSAGE, send_ext("Polled"), b"first")
    ext = pull_ext("Polled", offset=1, sysFlag="6", suspendTimeoutMillis="30000")
    pull = asyncio.create_task(request(transport, addr, RC.PULL_MESSAGE, ext))
    await until(lambda: broker.store.polling.suspended == 1, what="the pull to be held")
    assert not pull.done()
    sent = await request(TcpTransport(), addr, RC.SEND_MESSAGE, send_ext("Polled"), b"wake up")
    assert sent.code == R.SUCCESS
    resp = await asyncio.wait_for(pull, 10)
    assert resp.code == R.SUCCESS
    assert [m.body for m in decode_messages(resp.body)] == [b"wake up"]


async def test_held_pull_ends_with_not_found_after_its_timeout(cluster, transport):
    addr = broker_of(cluster).config.addr
    await request(transport, addr, RC.SEND_MESSAGE, send_ext("Quiet"), b"x")
    ext = pull_ext("Quiet", offset=1, sysFlag="6", suspendTimeoutMillis="50")
    resp = await request(transport, addr, RC.PULL_MESSAGE, ext)
    assert resp.code == R.PULL_NOT_FOUND


async def test_commit_offset_piggybacked_on_pull(cluster, transport):
    addr = broker_of(cluster).config.addr
    await request(transport, addr, RC.SEND_MESSAGE, send_ext("Piggy"), b"x")
    await request(transport, addr, RC.PULL_MESSAGE, pull_ext("Piggy", sysFlag="5", commitOffset="1"))
    q = await request(
        transport, addr, RC.QUERY_CONSUMER_OFFSET, {"consumerGroup": "CG_TEST", "topic": "Piggy", "queueId": "0"}
    )
    assert (q.code, q.ext["offset"]) == (R.SUCCESS, "1")


async def test_tag_subscription_filters_on_the_broker(cluster, transport):
    addr = broker_of(cluster).config.addr
    for tag in ("A", "B", "C"):
        await request(transport, addr, RC.SEND_MESSAGE, send_ext("Tagged", tags=tag), tag.encode())
    resp = await request(transport, addr, RC.PULL_MESSAGE, pull_ext("Tagged", subscription="A || C"))
    assert [m.body for m in decode_messages(resp.body)] == [b"A", b"C"]
    assert resp.ext["nextBeginOffset"] == "3"


async def test_auto_create_through_tbw102_takes_the_smaller_queue_count(cluster, transport):
    broker = broker_of(cluster)
    addr = broker.config.addr
    resp = await request(transport, addr, RC.SEND_MESSAGE, send_ext("AutoThree", default_queues=3), b"x")
    assert resp.code == R.SUCCESS
    tc = broker.topics.get("AutoThree")
    assert (tc.read_queue_nums, tc.write_queue_nums, tc.perm) == (3, 3, 6)  # TBW102's INHERIT bit dropped
    await request(transport, addr, RC.SEND_MESSAGE, send_ext("AutoMany", default_queues=64), b"x")
    assert broker.topics.get("AutoMany").write_queue_nums == broker.topics.get("TBW102").write_queue_nums == 8


async def test_no_auto_create_answers_topic_not_exist(make_cluster, transport):
    cluster = await make_cluster(auto_create=False)
    broker = broker_of(cluster)
    resp = await request(transport, broker.config.addr, RC.SEND_MESSAGE, send_ext("Nowhere"), b"x")
    assert resp.code == R.TOPIC_NOT_EXIST
    assert "topic[Nowhere] not exist, apply first please!" in resp.remark
    assert broker.topics.get("Nowhere") is None


async def test_retry_topic_is_created_with_one_queue(make_cluster, transport):
    cluster = await make_cluster(auto_create=False)
    broker = broker_of(cluster)
    resp = await request(transport, broker.config.addr, RC.SEND_MESSAGE, send_ext("%RETRY%GroupX"), b"x")
    assert resp.code == R.SUCCESS, resp.remark
    tc = broker.topics.get("%RETRY%GroupX")
    assert (tc.read_queue_nums, tc.write_queue_nums, tc.perm) == (1, 1, 6)


async def test_oversized_message_is_illegal(cluster, transport):
    broker = broker_of(cluster)
    broker.config.max_message_size = 1024
    resp = await request(transport, broker.config.addr, RC.SEND_MESSAGE, send_ext("Big"), bytes(1025))
    assert resp.code == R.MESSAGE_ILLEGAL
    assert "1025 bytes" in resp.remark and "maxMessageSize of 1024" in resp.remark
    ok = await request(transport, broker.config.addr, RC.SEND_MESSAGE, send_ext("Big"), bytes(1024))
    assert ok.code == R.SUCCESS


async def test_queue_id_out_of_range_is_refused(cluster, transport):
    addr = broker_of(cluster).config.addr
    await request(transport, addr, RC.SEND_MESSAGE, send_ext("Ranged"), b"create it (4 queues)")
    resp = await request(transport, addr, RC.SEND_MESSAGE, send_ext("Ranged", queue_id=4), b"x")
    assert resp.code == R.SYSTEM_ERROR
    assert resp.remark.startswith("request queueId[4] is illegal, TopicConfig [topicName=Ranged")
    picked = await request(transport, addr, RC.SEND_MESSAGE, send_ext("Ranged", queue_id=-1), b"x")
    assert picked.code == R.SUCCESS and 0 <= int(picked.ext["queueId"]) < 4


async def test_msg_check_refusals(cluster, transport):
    broker = broker_of(cluster)
    addr = broker.config.addr
    bad = await request(transport, addr, RC.SEND_MESSAGE, send_ext("bad topic!"), b"x")
    assert bad.code == R.INVALID_PARAMETER and "contains illegal characters" in bad.remark
    sched = await request(transport, addr, RC.SEND_MESSAGE, send_ext("SCHEDULE_TOPIC_XXXX"), b"x")
    assert (sched.code, sched.remark) == (
        R.NO_PERMISSION,
        "Sending message to topic[SCHEDULE_TOPIC_XXXX] is forbidden.",
    )
    broker.config.broker_permission = 4
    ro = await request(transport, addr, RC.SEND_MESSAGE, send_ext("ReadOnly"), b"x")
    assert ro.code == R.NO_PERMISSION and "sending message is forbidden" in ro.remark


async def test_batch_gets_consecutive_offsets(cluster, transport):
    addr = broker_of(cluster).config.addr
    items = [(0, f"m{i}".encode(), encode_properties({"UNIQ_KEY": new_uniq_key(), "KEYS": f"b{i}"})) for i in range(3)]
    ext = {"a": "PG", "b": "Batched", "c": "TBW102", "d": "4", "e": "1", "f": "0", "g": "1", "h": "0",
           "j": "0", "k": "false", "m": "true"}  # fmt: skip
    resp = await request(transport, addr, RC.SEND_BATCH_MESSAGE, ext, encode_batch(items))
    assert resp.code == R.SUCCESS, resp.remark
    assert resp.ext["queueOffset"] == "0" and resp.ext["msgId"].count(",") == 2
    pulled = await request(transport, addr, RC.PULL_MESSAGE, pull_ext("Batched", queue_id=1))
    msgs = decode_messages(pulled.body)
    assert [(m.body, m.queue_offset) for m in msgs] == [(b"m0", 0), (b"m1", 1), (b"m2", 2)]
    assert [m.msg_id for m in msgs] == resp.ext["msgId"].split(",")
    # the topic exists now: the next batch is answered from the store's commit
    again = await request(transport, addr, RC.SEND_BATCH_MESSAGE, ext, encode_batch(items[:2]))
    assert (again.code, again.ext["queueOffset"]) == (R.SUCCESS, "3"), again.remark
    pulled = await request(transport, addr, RC.PULL_MESSAGE, pull_ext("Batched", queue_id=1, offset=3))
    msgs = decode_messages(pulled.body)
    assert [(m.body, m.queue_offset, m.properties["KEYS"]) for m in msgs] == [(b"m0", 3, "b0"), (b"m1", 4, "b1")]
    assert [m.msg_id for m in msgs] == again.ext["msgId"].split(",")
    broken = await request(transport, addr, RC.SEND_BATCH_MESSAGE, ext, b"\x00\x00\x00\x10garbage")
    assert broken.code == R.MESSAGE_ILLEGAL and "malformed" in broken.remark
    empty = await request(transport, addr, RC.SEND_BATCH_MESSAGE, ext, b"")
    assert (empty.code, empty.remark) == (R.MESSAGE_ILLEGAL, "the batch holds no message")
    retry = await request(transport, addr, RC.SEND_BATCH_MESSAGE, {**ext, "b": "%RETRY%CG_B"}, encode_batch(items))
    assert (retry.code, retry.remark) == (R.MESSAGE_ILLEGAL, "batch request does not support retry group")


async def test_consumer_offsets_survive_a_restart(make_cluster, tmp_path):
    data = tmp_path / "persist"
    cluster = await make_cluster(data_dir=data)
    t = TcpTransport()
    addr = broker_of(cluster).config.addr
    ext = {"consumerGroup": "CG_P", "topic": "Kept", "queueId": "2", "commitOffset": "42"}
    assert (await request(t, addr, RC.UPDATE_CONSUMER_OFFSET, ext)).code == R.SUCCESS
    await t.aclose()
    await cluster.stop()
    saved = fastjson.loads((data / "broker-a" / "config" / "consumerOffset.json").read_bytes())
    assert saved == {"offsetTable": {"Kept@CG_P": {"2": 42}}}
    again = await make_cluster(data_dir=data)
    t = TcpTransport()
    q = await request(
        t,
        broker_of(again).config.addr,
        RC.QUERY_CONSUMER_OFFSET,
        {"consumerGroup": "CG_P", "topic": "Kept", "queueId": "2"},
    )
    assert (q.code, q.ext["offset"]) == (R.SUCCESS, "42")
    ext = {"consumerGroup": "CG_P", "topic": "Kept", "queueId": "1", "setZeroIfNotFound": "false"}
    none = await request(t, broker_of(again).config.addr, RC.QUERY_CONSUMER_OFFSET, ext)
    assert none.code == R.QUERY_NOT_FOUND
    await t.aclose()


async def test_messages_survive_a_restart(make_cluster, tmp_path, transport):
    data = tmp_path / "msgs"
    cluster = await make_cluster(data_dir=data)
    addr = broker_of(cluster).config.addr
    for i in range(5):
        await request(transport, addr, RC.SEND_MESSAGE, send_ext("Durable"), b"%d" % i)
    await cluster.stop()
    again = await make_cluster(data_dir=data)
    t = TcpTransport()
    resp = await request(t, broker_of(again).config.addr, RC.PULL_MESSAGE, pull_ext("Durable"))
    assert [m.body for m in decode_messages(resp.body)] == [b"0", b"1", b"2", b"3", b"4"]
    await t.aclose()


async def test_query_by_key_and_unique_key_and_view_by_id(cluster, transport):
    addr = broker_of(cluster).config.addr
    ext = send_ext("Findable", keys="order-1 shared")
    uniq = [p.split("\x01")[1] for p in ext["properties"].split("\x02") if p.startswith("UNIQ_KEY")][0]
    sent = await request(transport, addr, RC.SEND_MESSAGE, ext, b"needle")
    await request(transport, addr, RC.SEND_MESSAGE, send_ext("Findable", keys="other"), b"hay")
    q = {"topic": "Findable", "key": "order-1", "maxNum": "32", "beginTimestamp": "0", "endTimestamp": str(1 << 62)}
    found = await request(transport, addr, RC.QUERY_MESSAGE, q)
    assert found.code == R.SUCCESS and [m.body for m in decode_messages(found.body)] == [b"needle"]
    assert int(found.ext["indexLastUpdatePhyoffset"]) > 0
    by_uniq = await request(transport, addr, RC.QUERY_MESSAGE, {**q, "key": uniq, "_UNIQUE_KEY_QUERY": "true"})
    assert [m.body for m in decode_messages(by_uniq.body)] == [b"needle"]
    missing = await request(transport, addr, RC.QUERY_MESSAGE, {**q, "key": "nope"})
    assert missing.code == R.QUERY_NOT_FOUND
    host, offset = sent.ext["msgId"], None
    from mqadmin.wire.message import parse_offset_msg_id

    _store, offset = parse_offset_msg_id(host)
    view = await request(transport, addr, RC.VIEW_MESSAGE_BY_ID, {"offset": str(offset)})
    assert view.code == R.SUCCESS and decode_messages(view.body)[0].body == b"needle"
    assert decode_messages(view.body)[0].msg_id == offset_msg_id(_store, offset)
    bad = await request(transport, addr, RC.VIEW_MESSAGE_BY_ID, {"offset": str(offset + 3)})
    assert bad.code == R.SYSTEM_ERROR


async def test_max_min_offsets_and_search_by_time(cluster, transport):
    addr = broker_of(cluster).config.addr
    for _ in range(3):
        await request(transport, addr, RC.SEND_MESSAGE, send_ext("Offsets"), b"x")
    mx = await request(transport, addr, RC.GET_MAX_OFFSET, {"topic": "Offsets", "queueId": "0"})
    mn = await request(transport, addr, RC.GET_MIN_OFFSET, {"topic": "Offsets", "queueId": "0"})
    assert (mx.ext["offset"], mn.ext["offset"]) == ("3", "0")
    s = await request(transport, addr, 29, {"topic": "Offsets", "queueId": "0", "timestamp": str(1 << 60)})
    assert s.ext["offset"] == "3"


class Recorder:
    """A client transport handler that records requests the broker makes on our connection."""

    def __init__(self) -> None:
        self.seen: list[RemotingCommand] = []

    async def __call__(self, cmd: RemotingCommand) -> None:
        self.seen.append(cmd)


def heartbeat(client_id: str, group: str, topic: str, *, cpp_style: bool = False) -> bytes:
    if cpp_style:
        consumer = {"consumeFromWhere": 0, "consumeType": 1, "groupName": group, "messageModel": 1,
                    "subscriptionDataSet": [{"subString": "*", "subVersion": "17", "topic": topic}]}  # fmt: skip
        return (fastjson.dumps({"clientID": client_id, "consumerDataSet": [consumer]}) + "\n").encode()
    consumer = {"groupName": group, "consumeType": "CONSUME_PASSIVELY", "messageModel": "CLUSTERING",
                "consumeFromWhere": "CONSUME_FROM_FIRST_OFFSET", "unitMode": False,
                "subscriptionDataSet": [{"topic": topic, "subString": "TagA || TagB", "tagsSet": ["TagA", "TagB"],
                                         "codeSet": [], "subVersion": 17, "classFilterMode": False}]}  # fmt: skip
    return fastjson.dumps_bytes(
        {"clientID": client_id, "consumerDataSet": [consumer], "producerDataSet": [{"groupName": "PG_HB"}]}
    )


async def test_heartbeat_registers_consumers_and_notifies_the_group(cluster):
    broker = broker_of(cluster)
    addr = broker.config.addr
    rec_a, rec_b = Recorder(), Recorder()
    ta, tb = TcpTransport(handler=rec_a), TcpTransport(handler=rec_b)
    try:
        r = await request(ta, addr, RC.HEART_BEAT, body=heartbeat("client-a", "CG_HB", "HbTopic"))
        assert r.code == R.SUCCESS
        assert broker.topics.get("%RETRY%CG_HB").write_queue_nums == 1
        await request(
            tb, addr, RC.HEART_BEAT, body=heartbeat("client-b", "CG_HB", "HbTopic", cpp_style=True), language="CPP"
        )
        await until(lambda: any(c.code == RC.NOTIFY_CONSUMER_IDS_CHANGED for c in rec_a.seen), what="notify")
        ids = await request(ta, addr, RC.GET_CONSUMER_LIST_BY_GROUP, {"consumerGroup": "CG_HB"})
        assert sorted(fastjson.loads(ids.body)["consumerIdList"]) == ["client-a", "client-b"]
        conns = await request(ta, addr, RC.GET_CONSUMER_CONNECTION_LIST, {"consumerGroup": "CG_HB"})
        body = fastjson.loads(conns.body)
        assert body["consumeType"] == "CONSUME_PASSIVELY" and body["messageModel"] == "CLUSTERING"
        assert {c["language"] for c in body["connectionSet"]} == {"PYTHON", "CPP"}
        assert "HbTopic" in body["subscriptionTable"]
        prod = await request(ta, addr, RC.GET_PRODUCER_CONNECTION_LIST, {"producerGroup": "PG_HB"})
        assert [c["clientId"] for c in fastjson.loads(prod.body)["connectionSet"]] == ["client-a"]
        await request(tb, addr, RC.UNREGISTER_CLIENT, {"clientID": "client-b", "consumerGroup": "CG_HB"})
        ids = await request(ta, addr, RC.GET_CONSUMER_LIST_BY_GROUP, {"consumerGroup": "CG_HB"})
        assert fastjson.loads(ids.body)["consumerIdList"] == ["client-a"]
        await ta.aclose()  # a closed connection leaves the group
        await until(lambda: "CG_HB" not in broker.store.clients.consumers, what="client-a to be dropped")
        gone = await request(tb, addr, RC.GET_CONSUMER_LIST_BY_GROUP, {"consumerGroup": "CG_HB"})
        assert gone.code == R.SYSTEM_ERROR
        none = await request(tb, addr, RC.GET_CONSUMER_CONNECTION_LIST, {"consumerGroup": "CG_HB"})
        assert none.code == R.CONSUMER_NOT_ONLINE
    finally:
        await ta.aclose()
        await tb.aclose()


async def test_pull_without_subscription_uses_the_heartbeat_one(cluster, transport):
    addr = broker_of(cluster).config.addr
    for tag in ("TagA", "TagX"):
        await request(transport, addr, RC.SEND_MESSAGE, send_ext("HbTopic2", tags=tag), tag.encode())
    no_group = await request(transport, addr, RC.PULL_MESSAGE, pull_ext("HbTopic2", group="CG_H2", sysFlag="0"))
    assert no_group.code == R.SUBSCRIPTION_NOT_EXIST
    await request(transport, addr, RC.HEART_BEAT, body=heartbeat("c1", "CG_H2", "HbTopic2"))
    newer = await request(
        transport, addr, RC.PULL_MESSAGE, pull_ext("HbTopic2", group="CG_H2", sysFlag="0", subVersion="99")
    )
    assert newer.code == R.SUBSCRIPTION_NOT_LATEST
    ok = await request(
        transport, addr, RC.PULL_MESSAGE, pull_ext("HbTopic2", group="CG_H2", sysFlag="0", subVersion="17")
    )
    assert [m.body for m in decode_messages(ok.body)] == [b"TagA"]


async def test_consume_and_topic_stats_use_message_queue_keys(cluster, transport):
    addr = broker_of(cluster).config.addr
    for _ in range(3):
        await request(transport, addr, RC.SEND_MESSAGE, send_ext("Progress"), b"x")
    await request(transport, addr, RC.UPDATE_CONSUMER_OFFSET,
                  {"consumerGroup": "CG_S", "topic": "Progress", "queueId": "0", "commitOffset": "2"})  # fmt: skip
    stats = await request(transport, addr, RC.GET_CONSUME_STATS, {"consumerGroup": "CG_S"})
    assert stats.body.startswith(b'{"consumeTps":0.0,"offsetTable":{{"brokerName":"broker-a","queueId":0,')
    table = fastjson.loads(stats.body)["offsetTable"]
    q0 = table[fastjson.dumps({"brokerName": "broker-a", "queueId": 0, "topic": "Progress"})]
    assert (q0["brokerOffset"], q0["consumerOffset"]) == (3, 2) and q0["lastTimestamp"] > 0
    assert len(table) == 4
    topic = await request(transport, addr, RC.GET_TOPIC_STATS_INFO, {"topic": "Progress"})
    offsets = fastjson.loads(topic.body)["offsetTable"]
    assert offsets[fastjson.dumps({"brokerName": "broker-a", "queueId": 0, "topic": "Progress"})]["maxOffset"] == 3
    missing = await request(transport, addr, RC.GET_TOPIC_STATS_INFO, {"topic": "NoSuch"})
    assert missing.code == R.TOPIC_NOT_EXIST


async def test_lock_batch_grants_free_queues_only(cluster, transport):
    addr = broker_of(cluster).config.addr
    mqs = [{"brokerName": "broker-a", "queueId": i, "topic": "Ordered"} for i in range(2)]
    body = {"consumerGroup": "CG_O", "clientId": "c1", "mqSet": mqs}
    first = await request(transport, addr, RC.LOCK_BATCH_MQ, body=fastjson.dumps_bytes(body))
    assert len(fastjson.loads(first.body)["lockOKMQSet"]) == 2
    other = await request(transport, addr, RC.LOCK_BATCH_MQ, body=fastjson.dumps_bytes({**body, "clientId": "c2"}))
    assert fastjson.loads(other.body)["lockOKMQSet"] == []
    await request(transport, addr, RC.UNLOCK_BATCH_MQ, body=fastjson.dumps_bytes(body))
    now = await request(transport, addr, RC.LOCK_BATCH_MQ, body=fastjson.dumps_bytes({**body, "clientId": "c2"}))
    assert len(fastjson.loads(now.body)["lockOKMQSet"]) == 2


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
        await request(consumer, addr, RC.HEART_BEAT, body=heartbeat("client-r", "CG_RUN", "RunTopic"))
        ext = {"consumerGroup": "CG_RUN", "clientId": "client-r", "jstackEnable": "false"}
        resp = await request(transport, addr, RC.GET_CONSUMER_RUNNING_INFO, ext)
        assert resp.code == R.SUCCESS and b"client-r" in resp.body
        missing = await request(transport, addr, RC.GET_CONSUMER_RUNNING_INFO, {**ext, "clientId": "nobody"})
        assert missing.code == R.SYSTEM_ERROR and "not online" in missing.remark
    finally:
        await consumer.aclose()


async def test_query_consume_queue_shows_a_groups_subscription_or_that_it_is_offline(cluster, transport):
    """queryCq -g: the subscription of an online consumer of the group, else "not online" (as Java's broker)."""
    from mqadmin.model.rpc.messages import QUERY_CONSUME_QUEUE, QueryConsumeQueueHeader

    addr = broker_of(cluster).config.addr
    assert (await request(transport, addr, RC.SEND_MESSAGE, send_ext("CqTopic"), b"x")).code == R.SUCCESS
    await request(transport, addr, RC.HEART_BEAT, body=heartbeat("client-cq", "CqGroup", "CqTopic"))

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
