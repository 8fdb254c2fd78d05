"""The embedded broker's consumer administration against a real in-process cluster: resetting offsets
(222, with 220 to online consumers, stale commits ignored, pulls from elsewhere moved), the offsets
consumers hold (223 via 221), every producer (328) and message request modes (401, 402)."""

from __future__ import annotations

import time

from mqadmin.model.names import NameKind
from mqadmin.model.queue import MessageQueue
from mqadmin.model.rpc import consumers as rpc
from mqadmin.model.rpc.consumers import ConsumerStatus, RequestMode, ResetOffsetBody
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode as R
from mqadmin.wire.frame import RemotingCommand

from .conftest import pull_ext, request, send_ext, until
from .hostile import assert_no_illegal_name_is_held, assert_untouched, hostile_names, make_canary
from .test_messaging import Recorder, heartbeat

TOPIC, GROUP = "ResetTopic", "CG_RESET"


async def produce(transport: TcpTransport, addr: str, count: int, queue_id: int = 0) -> None:
    for i in range(count):
        r = await request(transport, addr, RC.SEND_MESSAGE, send_ext(TOPIC, queue_id=queue_id, keys=f"k{i}"), b"x")
        assert r.code == R.SUCCESS, r.remark


async def committed(transport: TcpTransport, addr: str, queue_id: int = 0) -> int:
    r = await request(transport, addr, RC.QUERY_CONSUMER_OFFSET, {"consumerGroup": GROUP, "topic": TOPIC,
                                                                   "queueId": str(queue_id)})  # fmt: skip
    return int(r.ext["offset"])


def reset_ext(timestamp: int, **extra: str) -> dict[str, str]:
    return {"topic": TOPIC, "group": GROUP, "timestamp": str(timestamp), "isForce": "true", **extra}


async def reset(transport: TcpTransport, addr: str, timestamp: int, **extra: str) -> dict[MessageQueue, int]:
    resp = await request(transport, addr, RC.INVOKE_BROKER_TO_RESET_OFFSET, reset_ext(timestamp, **extra))
    assert resp.code == R.SUCCESS, resp.remark
    return ResetOffsetBody().decode(resp.body)


async def commit(transport: TcpTransport, addr: str, offset: int, queue_id: int = 0) -> RemotingCommand:
    ext = {"consumerGroup": GROUP, "topic": TOPIC, "queueId": str(queue_id), "commitOffset": str(offset)}
    resp = await request(transport, addr, RC.UPDATE_CONSUMER_OFFSET, ext)
    assert resp.code == R.SUCCESS, resp.remark
    return resp


async def test_reset_commits_at_once_ignores_stale_commits_and_moves_the_next_pull(cluster, transport):
    addr = cluster.brokers[0].config.addr
    await produce(transport, addr, 5)
    await commit(transport, addr, 5)
    assert (await reset(transport, addr, 0))[MessageQueue(TOPIC, "broker-a", 0)] == 0
    assert await committed(transport, addr) == 0

    stale = await commit(transport, addr, 5)  # the consumer has not moved yet
    assert stale.remark == "Offset has been previously reset"
    assert await committed(transport, addr) == 0

    moved = await request(transport, addr, RC.PULL_MESSAGE, pull_ext(TOPIC, offset=5, group=GROUP))
    assert moved.code == R.PULL_OFFSET_MOVED and moved.ext["nextBeginOffset"] == "0"
    found = await request(transport, addr, RC.PULL_MESSAGE, pull_ext(TOPIC, offset=0, group=GROUP))
    assert found.code == R.SUCCESS  # the reset is picked up: pulls and commits are normal again
    assert (await commit(transport, addr, 3)).remark is None
    assert await committed(transport, addr) == 3


async def test_reset_to_the_end_and_one_queue_and_without_force(cluster, transport):
    addr = cluster.brokers[0].config.addr
    await produce(transport, addr, 4, queue_id=1)
    await commit(transport, addr, 0, queue_id=1)
    end = await reset(transport, addr, -1)
    assert end[MessageQueue(TOPIC, "broker-a", 1)] == 4 and end[MessageQueue(TOPIC, "broker-a", 0)] == 0
    assert await committed(transport, addr, 1) == 4

    back = await reset(transport, addr, 0, isForce="false")  # without force a queue only moves back
    assert back[MessageQueue(TOPIC, "broker-a", 1)] == 0
    forward = await reset(transport, addr, -1, isForce="false")
    assert forward[MessageQueue(TOPIC, "broker-a", 1)] == 0

    assert await reset(transport, addr, 0, queueId="1", offset="2") == {MessageQueue(TOPIC, "broker-a", 1): 2}
    assert await committed(transport, addr, 1) == 2
    out = await request(transport, addr, RC.INVOKE_BROKER_TO_RESET_OFFSET, reset_ext(0, queueId="1", offset="9"))
    assert out.code == R.SYSTEM_ERROR and "not in consume queue range [0-4]" in out.remark
    assert await committed(transport, addr, 1) == 2


async def test_reset_refusals(cluster, transport):
    addr = cluster.brokers[0].config.addr
    no_topic = await request(transport, addr, RC.INVOKE_BROKER_TO_RESET_OFFSET, reset_ext(0) | {"topic": "Nope"})
    assert no_topic.code == R.TOPIC_NOT_EXIST
    await produce(transport, addr, 1)
    no_group = await request(transport, addr, RC.INVOKE_BROKER_TO_RESET_OFFSET, reset_ext(0) | {"group": "CG_NEVER"})
    assert no_group.code == R.SUBSCRIPTION_GROUP_NOT_EXIST
    missing = await request(transport, addr, RC.INVOKE_BROKER_TO_RESET_OFFSET, {"topic": TOPIC, "group": GROUP})
    assert missing.code == R.SYSTEM_ERROR and "<timestamp>" in missing.remark


async def test_reset_tells_online_consumers_in_their_own_form(cluster, transport):
    addr = cluster.brokers[0].config.addr
    await produce(transport, addr, 3)
    await commit(transport, addr, 3)
    java, cpp = Recorder(), Recorder()
    tj, tc = TcpTransport(handler=java), TcpTransport(handler=cpp)
    try:
        await request(tj, addr, RC.HEART_BEAT, body=heartbeat("client-j", GROUP, TOPIC))
        await request(tc, addr, RC.HEART_BEAT, body=heartbeat("client-c", GROUP, TOPIC, cpp_style=True), language="CPP")
        await reset(transport, addr, 0)

        def told() -> int:
            return sum(c.code == RC.RESET_CONSUMER_CLIENT_OFFSET for rec in (java, cpp) for c in rec.seen)

        await until(lambda: told() == 2, what="both consumers told")
        (to_java,) = [c for c in java.seen if c.code == RC.RESET_CONSUMER_CLIENT_OFFSET]
        (to_cpp,) = [c for c in cpp.seen if c.code == RC.RESET_CONSUMER_CLIENT_OFFSET]
        assert to_java.is_oneway and to_java.ext["group"] == GROUP and to_java.ext["isForce"] == "false"
        assert b'{"brokerName":"broker-a","queueId":0,"topic":"ResetTopic"}:0' in to_java.body
        assert fastjson.loads(to_cpp.body)["offsetTable"][0] == {
            "brokerName": "broker-a", "offset": 0, "queueId": 0, "topic": TOPIC,
        }  # fmt: skip
    finally:
        await tj.aclose()
        await tc.aclose()


async def test_consumer_status_asks_each_consumer(cluster, transport):
    addr = cluster.brokers[0].config.addr
    await produce(transport, addr, 1)

    def answering(offset: int):
        async def handler(cmd: RemotingCommand) -> RemotingCommand | None:
            if cmd.code != RC.GET_CONSUMER_STATUS_FROM_CLIENT:
                return None
            body = rpc.ConsumerStatusBody().encode(ConsumerStatus({MessageQueue(TOPIC, "broker-a", 0): offset}, {}))
            return cmd.response(R.SUCCESS, body=body)

        return handler

    ta, tb = TcpTransport(handler=answering(7)), TcpTransport(handler=answering(9))
    try:
        none = await request(transport, addr, RC.INVOKE_BROKER_TO_GET_CONSUMER_STATUS, {"topic": TOPIC, "group": GROUP})
        assert none.code == R.SYSTEM_ERROR and "No Any Consumer online" in none.remark
        await request(ta, addr, RC.HEART_BEAT, body=heartbeat("client-a", GROUP, TOPIC))
        await request(tb, addr, RC.HEART_BEAT, body=heartbeat("client-b", GROUP, TOPIC))
        both = await request(transport, addr, RC.INVOKE_BROKER_TO_GET_CONSUMER_STATUS, {"topic": TOPIC, "group": GROUP})
        status = rpc.ConsumerStatusBody().decode(both.body)
        mq = MessageQueue(TOPIC, "broker-a", 0)
        assert status.clients == {"client-a": {mq: 7}, "client-b": {mq: 9}}
        ext = {"topic": TOPIC, "group": GROUP, "clientAddr": "client-b"}
        one = await request(transport, addr, RC.INVOKE_BROKER_TO_GET_CONSUMER_STATUS, ext)
        assert rpc.ConsumerStatusBody().decode(one.body).clients == {"client-b": {mq: 9}}
    finally:
        await ta.aclose()
        await tb.aclose()


async def test_producer_table_lists_connected_producers(cluster, transport):
    addr = cluster.brokers[0].config.addr
    before = int(time.time() * 1000)
    producer = TcpTransport()
    try:
        await request(producer, addr, RC.HEART_BEAT, body=heartbeat("client-p", "CG_P", TOPIC))
        resp = await request(transport, addr, RC.GET_ALL_PRODUCER_INFO)
        table = rpc.PRODUCER_TABLE.decode(resp.body)
        (info,) = table["PG_HB"]
        assert info.client_id == "client-p" and info.language == "PYTHON"
        assert info.remote_ip.startswith("127.0.0.1:") and info.last_update_timestamp >= before - 1000
    finally:
        await producer.aclose()


async def test_request_modes_are_kept_across_a_restart(make_cluster, tmp_path, transport):
    cluster = await make_cluster(data_dir=tmp_path / "modes")
    addr = cluster.brokers[0].config.addr
    body = rpc.REQUEST_MODE.encode(RequestMode(TOPIC, GROUP, "POP", 2))
    assert (await request(transport, addr, RC.SET_MESSAGE_REQUEST_MODE, body=body)).code == R.SUCCESS
    bad = rpc.REQUEST_MODE.encode(RequestMode(TOPIC, GROUP, "PUSH", 0))
    assert (await request(transport, addr, RC.SET_MESSAGE_REQUEST_MODE, body=bad)).code == R.SYSTEM_ERROR
    retry = rpc.REQUEST_MODE.encode(RequestMode("%RETRY%" + GROUP, GROUP, "POP", 0))
    assert (await request(transport, addr, RC.SET_MESSAGE_REQUEST_MODE, body=retry)).code == R.NO_PERMISSION
    await cluster.stop()
    again = await make_cluster(data_dir=tmp_path / "modes")
    resp = await request(transport, again.brokers[0].config.addr, RC.GET_ALL_MESSAGE_REQUEST_MODE)
    assert fastjson.loads(resp.body) == {
        "messageRequestModeMap": {TOPIC: {GROUP: {"consumerGroup": GROUP, "mode": "POP", "popShareQueueNum": 2,
                                                  "topic": TOPIC}}}
    }  # fmt: skip


async def test_hostile_names_are_refused_by_the_new_requests(make_cluster, tmp_path, transport):
    canary = make_canary(tmp_path)
    cluster = await make_cluster()
    addr = cluster.brokers[0].config.addr
    for name in hostile_names(canary, NameKind.TOPIC):
        for code, ext in (
            (RC.INVOKE_BROKER_TO_RESET_OFFSET, reset_ext(0) | {"topic": name}),
            (RC.INVOKE_BROKER_TO_RESET_OFFSET, reset_ext(0) | {"group": name}),
            (RC.INVOKE_BROKER_TO_GET_CONSUMER_STATUS, {"topic": name, "group": GROUP}),
            (RC.INVOKE_BROKER_TO_GET_CONSUMER_STATUS, {"topic": TOPIC, "group": name}),
        ):
            if "\ud800" in name or "\udfff" in name:
                continue  # our client cannot encode a lone surrogate; the fuzz suite sends those raw
            resp = await request(transport, addr, code, ext)
            assert resp.code == R.INVALID_PARAMETER, (code, name, resp.remark)
        if "\ud800" in name or "\udfff" in name:
            continue
        body = fastjson.dumps_bytes({"topic": name, "consumerGroup": name, "mode": "POP", "popShareQueueNum": 0})
        resp = await request(transport, addr, RC.SET_MESSAGE_REQUEST_MODE, body=body)
        assert resp.code == R.INVALID_PARAMETER, (name, resp.remark)
    assert_untouched(canary)
    assert_no_illegal_name_is_held(cluster)
    assert cluster.brokers[0].store is not None
