"""The embedded broker's consumer administration against a real in-process cluster: resetting offsets
(222, with 220 to online consumers, stale commits ignored, pulls from elsewhere moved), the offsets
consumers hold (223 via 221), every producer (328) and message request modes (401, 402)."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from mqadmin.model.names import NameKind
from mqadmin.model.queue import MessageQueue
from mqadmin.model.rpc import clients, messages
from mqadmin.model.rpc import consumers as rpc
from mqadmin.model.rpc.consumers import ConsumerStatus, RequestMode
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode as R
from mqadmin.wire.frame import RemotingCommand

from .conftest import call, pull_header, request, send_header, until
from .hostile import assert_no_illegal_name_is_held, assert_untouched, hostile_names, make_canary
from .test_messaging import Recorder, beat, cpp_heartbeat

TOPIC, GROUP = "ResetTopic", "CG_RESET"


async def produce(transport: TcpTransport, addr: str, count: int, queue_id: int = 0) -> None:
    for i in range(count):
        r = await call(
            transport, addr, messages.SEND_MESSAGE, send_header(TOPIC, queue_id=queue_id, keys=f"k{i}"), b"x"
        )
        assert r.code == R.SUCCESS, r.remark


async def committed(transport: TcpTransport, addr: str, queue_id: int = 0) -> int:
    header = clients.QueryOffsetHeader(consumer_group=GROUP, topic=TOPIC, queue_id=queue_id)
    return clients.QUERY_CONSUMER_OFFSET.reply(
        await call(transport, addr, clients.QUERY_CONSUMER_OFFSET, header)
    ).header.offset


def reset_header(timestamp: int, **fields: Any) -> rpc.ResetOffsetHeader:
    return rpc.ResetOffsetHeader(**{"topic": TOPIC, "group": GROUP, "timestamp": timestamp, "is_force": True, **fields})


async def reset_call(transport: TcpTransport, addr: str, header: rpc.ResetOffsetHeader) -> RemotingCommand:
    return await call(transport, addr, rpc.INVOKE_BROKER_TO_RESET_OFFSET, header)


async def reset(transport: TcpTransport, addr: str, timestamp: int, **fields: Any) -> dict[MessageQueue, int]:
    resp = await reset_call(transport, addr, reset_header(timestamp, **fields))
    assert resp.code == R.SUCCESS, resp.remark
    return rpc.INVOKE_BROKER_TO_RESET_OFFSET.reply(resp).body


async def commit(transport: TcpTransport, addr: str, offset: int, queue_id: int = 0) -> RemotingCommand:
    header = clients.UpdateOffsetHeader(consumer_group=GROUP, topic=TOPIC, queue_id=queue_id, commit_offset=offset)
    resp = await call(transport, addr, clients.UPDATE_CONSUMER_OFFSET, header)
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

    moved = await call(transport, addr, messages.PULL_MESSAGE, pull_header(TOPIC, offset=5, group=GROUP))
    assert moved.code == R.PULL_OFFSET_MOVED and messages.PULL_MESSAGE.reply(moved).header.next_begin_offset == 0
    found = await call(transport, addr, messages.PULL_MESSAGE, pull_header(TOPIC, offset=0, group=GROUP))
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

    back = await reset(transport, addr, 0, is_force=False)  # without force a queue only moves back
    assert back[MessageQueue(TOPIC, "broker-a", 1)] == 0
    forward = await reset(transport, addr, -1, is_force=False)
    assert forward[MessageQueue(TOPIC, "broker-a", 1)] == 0

    assert await reset(transport, addr, 0, queue_id=1, offset=2) == {MessageQueue(TOPIC, "broker-a", 1): 2}
    assert await committed(transport, addr, 1) == 2
    out = await reset_call(transport, addr, reset_header(0, queue_id=1, offset=9))
    assert out.code == R.SYSTEM_ERROR and "not in consume queue range [0-4]" in out.remark
    assert await committed(transport, addr, 1) == 2


async def test_reset_refusals(cluster, transport):
    addr = cluster.brokers[0].config.addr
    no_topic = await reset_call(transport, addr, replace(reset_header(0), topic="Nope"))
    assert no_topic.code == R.TOPIC_NOT_EXIST
    await produce(transport, addr, 1)
    no_group = await reset_call(transport, addr, replace(reset_header(0), group="CG_NEVER"))
    assert no_group.code == R.SUBSCRIPTION_GROUP_NOT_EXIST
    raw = {"topic": TOPIC, "group": GROUP}  # raw: no declaration leaves the timestamp out
    missing = await request(transport, addr, RC.INVOKE_BROKER_TO_RESET_OFFSET, raw)
    assert missing.code == R.SYSTEM_ERROR and "<timestamp>" in missing.remark


async def test_reset_tells_online_consumers_in_their_own_form(cluster, transport):
    addr = cluster.brokers[0].config.addr
    await produce(transport, addr, 3)
    await commit(transport, addr, 3)
    java, cpp = Recorder(), Recorder()
    tj, tc = TcpTransport(handler=java), TcpTransport(handler=cpp)
    try:
        await beat(tj, addr, "client-j", GROUP, TOPIC)
        await request(tc, addr, RC.HEART_BEAT, body=cpp_heartbeat("client-c", GROUP, TOPIC), language="CPP")
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
        status_of = rpc.INVOKE_BROKER_TO_GET_CONSUMER_STATUS
        none = await call(transport, addr, status_of, rpc.ConsumerStatusHeader(topic=TOPIC, group=GROUP))
        assert none.code == R.SYSTEM_ERROR and "No Any Consumer online" in none.remark
        await beat(ta, addr, "client-a", GROUP, TOPIC)
        await beat(tb, addr, "client-b", GROUP, TOPIC)
        both = await call(transport, addr, status_of, rpc.ConsumerStatusHeader(topic=TOPIC, group=GROUP))
        status = status_of.reply(both).body
        mq = MessageQueue(TOPIC, "broker-a", 0)
        assert status.clients == {"client-a": {mq: 7}, "client-b": {mq: 9}}
        header = rpc.ConsumerStatusHeader(topic=TOPIC, group=GROUP, client_addr="client-b")
        one = await call(transport, addr, status_of, header)
        assert status_of.reply(one).body.clients == {"client-b": {mq: 9}}
    finally:
        await ta.aclose()
        await tb.aclose()


async def test_producer_table_lists_connected_producers(cluster, transport):
    addr = cluster.brokers[0].config.addr
    before = int(time.time() * 1000)
    producer = TcpTransport()
    try:
        await beat(producer, addr, "client-p", "CG_P", TOPIC)
        table = rpc.GET_ALL_PRODUCER_INFO.reply(await call(transport, addr, rpc.GET_ALL_PRODUCER_INFO)).body
        (info,) = table["PG_HB"]
        assert info.client_id == "client-p" and info.language == "PYTHON"
        assert info.remote_ip.startswith("127.0.0.1:") and info.last_update_timestamp >= before - 1000
    finally:
        await producer.aclose()


async def test_request_modes_are_kept_across_a_restart(make_cluster, tmp_path, transport):
    cluster = await make_cluster(data_dir=tmp_path / "modes")
    addr = cluster.brokers[0].config.addr
    mode = rpc.SET_MESSAGE_REQUEST_MODE
    assert (await call(transport, addr, mode, body=RequestMode(TOPIC, GROUP, "POP", 2))).code == R.SUCCESS
    assert (await call(transport, addr, mode, body=RequestMode(TOPIC, GROUP, "PUSH", 0))).code == R.SYSTEM_ERROR
    retry = RequestMode("%RETRY%" + GROUP, GROUP, "POP", 0)
    assert (await call(transport, addr, mode, body=retry)).code == R.NO_PERMISSION
    await cluster.stop()
    again = await make_cluster(data_dir=tmp_path / "modes")
    resp = await call(transport, again.brokers[0].config.addr, rpc.GET_ALL_MESSAGE_REQUEST_MODE)
    assert rpc.GET_ALL_MESSAGE_REQUEST_MODE.reply(resp).body == {
        "messageRequestModeMap": {TOPIC: {GROUP: {"consumerGroup": GROUP, "mode": "POP", "popShareQueueNum": 2,
                                                  "topic": TOPIC}}}
    }  # fmt: skip


async def test_hostile_names_are_refused_by_the_new_requests(make_cluster, tmp_path, transport):
    canary = make_canary(tmp_path)
    cluster = await make_cluster()
    addr = cluster.brokers[0].config.addr
    for name in hostile_names(canary, NameKind.TOPIC):
        if "\ud800" in name or "\udfff" in name:
            continue  # our client cannot encode a lone surrogate; the fuzz suite sends those raw
        for cmd in (
            rpc.INVOKE_BROKER_TO_RESET_OFFSET.request(replace(reset_header(0), topic=name)),
            rpc.INVOKE_BROKER_TO_RESET_OFFSET.request(replace(reset_header(0), group=name)),
            rpc.INVOKE_BROKER_TO_GET_CONSUMER_STATUS.request(rpc.ConsumerStatusHeader(topic=name, group=GROUP)),
            rpc.INVOKE_BROKER_TO_GET_CONSUMER_STATUS.request(rpc.ConsumerStatusHeader(topic=TOPIC, group=name)),
            rpc.SET_MESSAGE_REQUEST_MODE.request(body=RequestMode(name, name, "POP", 0)),
        ):
            resp = await transport.request(addr, cmd)
            assert resp.code == R.INVALID_PARAMETER, (cmd.code, name, resp.remark)
    assert_untouched(canary)
    assert_no_illegal_name_is_held(cluster)
    assert cluster.brokers[0].store is not None
