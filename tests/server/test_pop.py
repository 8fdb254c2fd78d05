"""Broker-side assignment and POP consumption on an in-process cluster: QUERY_ASSIGNMENT follows the mode
setConsumeMode stored, pops hide messages until acknowledged or their invisible time ends, the group's
offset is its first unacknowledged message, pops wait for messages, and an admin reset moves them."""

from __future__ import annotations

import asyncio

from mqadmin.model.queue import MessageQueue
from mqadmin.model.rpc import clients, messages
from mqadmin.model.rpc import consumers as crpc
from mqadmin.model.rpc import pop as rpc
from mqadmin.model.rpc.consumers import RequestMode
from mqadmin.server.broker.pop import allocate, allocate_for_pop
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire.codes import ResponseCode as R
from mqadmin.wire.message import decode_messages
from tests.conftest import Deadline

from .conftest import call, send_header
from .test_messaging import beat

TOPIC, GROUP = "PopTopic", "CG_POP"


async def produce(t: TcpTransport, addr: str, count: int, queue_id: int = 0, tags: str = "") -> None:
    for i in range(count):
        header = send_header(TOPIC, queue_id=queue_id, keys=f"k{i}", tags=tags)
        r = await call(t, addr, messages.SEND_MESSAGE, header, b"x")
        assert r.code == R.SUCCESS, r.remark


def pop_header(**kw: object) -> rpc.PopHeader:
    fields = {
        "consumer_group": GROUP, "topic": TOPIC, "queue_id": -1, "max_msg_nums": 32, "invisible_time": 60_000,
        "poll_time": 0, "born_time": 0, "init_mode": rpc.INIT_MODE_MIN, "exp_type": "TAG", "exp": "*",
    }  # fmt: skip
    return rpc.PopHeader(**{**fields, **kw})  # type: ignore[arg-type]  # the test's fields by name


async def pop(t: TcpTransport, addr: str, **kw: object) -> list[int]:
    """The queue offsets of the messages one pop hands out."""
    resp = await t.request(addr, rpc.POP_MESSAGE.request(pop_header(**kw)))
    assert resp.code in (R.SUCCESS, R.PULL_NOT_FOUND), resp.remark
    return sorted(m.queue_offset for m in decode_messages(resp.body)) if resp.code == R.SUCCESS else []


async def ack(t: TcpTransport, addr: str, offset: int, queue_id: int = 0) -> None:
    header = rpc.AckHeader(consumer_group=GROUP, topic=TOPIC, queue_id=queue_id, extra_info="x", offset=offset)
    assert (await t.request(addr, rpc.ACK_MESSAGE.request(header))).code == R.SUCCESS


async def committed(t: TcpTransport, addr: str, queue_id: int = 0) -> int:
    header = clients.QueryOffsetHeader(consumer_group=GROUP, topic=TOPIC, queue_id=queue_id)
    return clients.QUERY_CONSUMER_OFFSET.reply(await call(t, addr, clients.QUERY_CONSUMER_OFFSET, header)).header.offset


async def set_mode(t: TcpTransport, addr: str, mode: str, share: int = 0) -> None:
    body = RequestMode(TOPIC, GROUP, mode, share)
    assert (await call(t, addr, crpc.SET_MESSAGE_REQUEST_MODE, body=body)).code == R.SUCCESS


async def assignment(t: TcpTransport, addr: str, client: str) -> list[tuple[MessageQueue, str]]:
    body = rpc.AssignmentRequest(TOPIC, GROUP, client)
    resp = await t.request(addr, rpc.QUERY_ASSIGNMENT.request(body=body))
    assert resp.code == R.SUCCESS, resp.remark
    return rpc.QUERY_ASSIGNMENT.reply(resp).body


async def test_assignment_follows_the_request_mode(make_cluster, transport):
    cluster = await make_cluster(brokers=2)
    addr = cluster.brokers[0].config.addr
    for b in cluster.brokers:
        await produce(transport, b.config.addr, 1)  # the topic on both brokers (auto-created, 4 queues)
    a, b = TcpTransport(), TcpTransport()
    try:
        await beat(a, addr, "client-a", GROUP, TOPIC)
        await beat(b, addr, "client-b", GROUP, TOPIC)

        deadline = Deadline(10, "the route to list the queues of both brokers")
        while len({mq for c in ("client-a", "client-b") for mq, _ in await assignment(transport, addr, c)}) < 8:
            if deadline.expired():
                raise deadline.fail()
            await asyncio.sleep(0.05)
        pulled = await assignment(transport, addr, "client-a")
        assert {m for _, m in pulled} == {"PULL"}
        assert [mq.queue_id for mq, _ in pulled] == [0, 1, 2, 3] and pulled[0][0].broker_name == "broker-a"
        other = await assignment(transport, addr, "client-b")  # the other half, averagely
        assert [(mq.broker_name, mq.queue_id) for mq, _ in other] == [("broker-b", q) for q in range(4)]
        assert await assignment(transport, addr, "client-unknown") == []  # not one of the group's clients
        await set_mode(transport, addr, "POP")
        popped = await assignment(transport, addr, "client-a")
        assert popped == [(MessageQueue(TOPIC, "broker-a", -1), "POP"), (MessageQueue(TOPIC, "broker-b", -1), "POP")]
        retry = rpc.AssignmentRequest("%RETRY%" + GROUP, GROUP, "client-a")
        resp = await transport.request(addr, rpc.QUERY_ASSIGNMENT.request(body=retry))
        assert all(m == "PULL" for _, m in rpc.ASSIGNMENTS.decode(resp.body))
    finally:
        await a.aclose()
        await b.aclose()


async def test_pop_hides_until_acked_and_hands_out_again_after_the_invisible_time(cluster, transport):
    addr = cluster.brokers[0].config.addr
    await produce(transport, addr, 3)
    assert await pop(transport, addr, invisible_time=1_000) == [0, 1, 2]
    assert await pop(transport, addr) == []  # all three are invisible
    await ack(transport, addr, 0)
    await ack(transport, addr, 2)
    assert await committed(transport, addr) == 1  # the first message not acknowledged
    again = await pop(transport, addr, poll_time=10_000)  # waits until offset 1 is visible again
    assert again == [1]
    await ack(transport, addr, 1)
    assert await committed(transport, addr) == 3


async def test_change_invisible_time_and_long_polling(cluster, transport):
    addr = cluster.brokers[0].config.addr
    await produce(transport, addr, 1)
    assert await pop(transport, addr, invisible_time=600_000) == [0]
    header = rpc.ChangeInvisibleTimeHeader(
        consumer_group=GROUP, topic=TOPIC, queue_id=0, extra_info="x", offset=0, invisible_time=0
    )
    resp = await transport.request(addr, rpc.CHANGE_MESSAGE_INVISIBLETIME.request(header))
    assert resp.code == R.SUCCESS and rpc.CHANGE_MESSAGE_INVISIBLETIME.reply(resp).header.pop_time > 0
    assert await pop(transport, addr) == [0]  # visible again at once

    waiting = asyncio.create_task(pop(transport, addr, poll_time=20_000, invisible_time=600_000))
    await produce(transport, addr, 1)
    assert await waiting == [1]


async def test_tags_filter_and_reset_moves_pops(cluster, transport):
    addr = cluster.brokers[0].config.addr
    await produce(transport, addr, 2, tags="TagA")
    await produce(transport, addr, 2, tags="TagB")
    assert await pop(transport, addr, exp="TagB") == [2, 3]
    await ack(transport, addr, 2)
    await ack(transport, addr, 3)
    assert await committed(transport, addr) == 4  # the filtered-out TagA messages count as done
    reset = crpc.ResetOffsetHeader(topic=TOPIC, group=GROUP, timestamp=0, is_force=True)
    assert (await call(transport, addr, crpc.INVOKE_BROKER_TO_RESET_OFFSET, reset)).code == R.SUCCESS
    assert await committed(transport, addr) == 0
    assert await pop(transport, addr) == [0, 1, 2, 3]


def test_allocation_is_javas() -> None:
    queues = [MessageQueue(TOPIC, "broker-a", q) for q in range(8)]
    clients = ["c0", "c1", "c2"]
    ids = {c: [mq.queue_id for mq in allocate("AVG", c, queues, clients)] for c in clients}
    assert ids == {"c0": [0, 1, 2], "c1": [3, 4, 5], "c2": [6, 7]}
    circle = {c: [mq.queue_id for mq in allocate("AVG_BY_CIRCLE", c, queues, clients)] for c in clients}
    assert circle == {"c0": [0, 3, 6], "c1": [1, 4, 7], "c2": [2, 5]}
    shared = allocate_for_pop("AVG", "c2", queues, clients, 1)  # its own share and the next client's (c0)
    assert [mq.queue_id for mq in shared] == [6, 7, 0, 1, 2]
    assert allocate_for_pop("AVG", "c0", queues, clients, 2) == [MessageQueue(TOPIC, "broker-a", -1)]
    assert allocate("AVG", "stranger", queues, clients) == []
