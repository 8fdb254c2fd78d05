"""Static topics on the embedded broker: UPDATE_AND_CREATE_STATIC_TOPIC stores the logic-queue mapping with the
topic (surviving a restart), creates the physical queues, registers the mapping so routes carry it, and
GET_TOPIC_CONFIG with ``lo`` answers it; an older epoch is refused unless forced, as Apache's broker does.
Requests naming a logic queue are served from the leader's physical queue."""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import replace
from pathlib import Path

from mqadmin.model.auth import UserInfo
from mqadmin.model.data_version import DataVersion
from mqadmin.model.rpc.brokers import UPDATE_BROKER_CONFIG
from mqadmin.model.rpc.clients import (
    QUERY_CONSUMER_OFFSET,
    UPDATE_CONSUMER_OFFSET,
    QueryOffsetHeader,
    UpdateOffsetHeader,
)
from mqadmin.model.rpc.messages import (
    GET_MAX_OFFSET,
    GET_MIN_OFFSET,
    PULL_MESSAGE,
    SEARCH_OFFSET_BY_TIMESTAMP,
    SEND_MESSAGE,
    QueueHeader,
    SearchOffsetHeader,
)
from mqadmin.model.rpc.namesrv import GET_ROUTEINFO_BY_TOPIC, RouteHeader
from mqadmin.model.rpc.registration import REGISTER_BROKER, RegisterBrokerHeader
from mqadmin.model.rpc.static_topics import UPDATE_AND_CREATE_STATIC_TOPIC
from mqadmin.model.rpc.topics import GET_TOPIC_CONFIG, CreateTopicHeader, GetTopicConfigHeader
from mqadmin.model.static_topic import (
    StaticTopicPlan,
    block_round_up,
    mock_broker_name,
    plan_create_or_expand,
    plan_remapping,
)
from mqadmin.model.topic import TopicConfig
from mqadmin.server.auth.config import AuthSettings
from mqadmin.server.broker.registration import register_body
from mqadmin.server.dev import DevCluster
from mqadmin.transport.credentials import Credentials
from mqadmin.transport.tcp import TcpTransport
from mqadmin.transport.tls import TlsSettings
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand
from mqadmin.wire.message import body_crc, decode_messages
from tests.server.conftest import call, pull_header, send_header

TOPIC = "Ledger"


async def write_plan(transport: TcpTransport, cluster: DevCluster, plan: StaticTopicPlan, force: bool = False) -> None:
    addrs = {b.config.broker_name: b.config.addr for b in cluster.brokers}
    for name, cfg in plan.brokers.items():
        header = replace(CreateTopicHeader.of(cfg.config), force=force or None)
        resp = await call(transport, addrs[name], UPDATE_AND_CREATE_STATIC_TOPIC, header, cfg.mapping)
        assert resp.code == ResponseCode.SUCCESS, resp.remark


async def route_mappings(transport: TcpTransport, cluster: DevCluster) -> dict[str, dict[int, int]]:
    resp = await call(transport, cluster.namesrv_addr, GET_ROUTEINFO_BY_TOPIC, RouteHeader(topic=TOPIC))
    if resp.code != ResponseCode.SUCCESS:
        return {}
    route = GET_ROUTEINFO_BY_TOPIC.reply(resp).body
    return {b: m.curr_id_map for b, m in route.queue_mappings.items()}


async def topic_config(transport: TcpTransport, addr: str, lo: bool | None = True):
    resp = await call(transport, addr, GET_TOPIC_CONFIG, GetTopicConfigHeader(topic=TOPIC, lo=lo))
    assert resp.code == ResponseCode.SUCCESS, resp.remark
    return GET_TOPIC_CONFIG.reply(resp).body


async def test_static_topic_is_stored_routed_and_survives_a_restart(make_cluster, transport) -> None:
    cluster = await make_cluster(brokers=2)
    plan = plan_create_or_expand(TOPIC, 4, {"broker-a", "broker-b"}, {})
    await write_plan(transport, cluster, plan)
    expected = {name: cfg.mapping.leader_ids() for name, cfg in plan.brokers.items() if cfg.mapping}
    assert sorted(gid for ids in expected.values() for gid in ids) == [0, 1, 2, 3]

    assert await route_mappings(transport, cluster) == expected  # registered before the answer
    for b in cluster.brokers:
        answer = await topic_config(transport, b.config.addr)
        mine = plan.brokers[b.config.broker_name]
        assert answer.mapping is not None and answer.mapping.to_json() == mine.mapping.to_json()
        assert answer.config.write_queue_nums == mine.config.write_queue_nums  # the physical queues exist
        assert (await topic_config(transport, b.config.addr, lo=None)).mapping is None  # only when asked (lo)

    data_dir = cluster.data_dir
    await cluster.stop()
    again = await make_cluster(brokers=2, data_dir=data_dir)
    assert await route_mappings(transport, again) == expected  # a broker registers before it has started
    for b in again.brokers:
        answer = await topic_config(transport, b.config.addr)
        assert answer.mapping is not None
        assert answer.mapping.to_json() == plan.brokers[b.config.broker_name].mapping.to_json()
    assert mock_broker_name("__global__") == "__syslo__global__"


async def test_an_older_epoch_is_refused_unless_forced(make_cluster, transport) -> None:
    cluster = await make_cluster(brokers=1)
    addr = cluster.brokers[0].config.addr
    plan = plan_create_or_expand(TOPIC, 2, {"broker-a"}, {})
    await write_plan(transport, cluster, plan)
    cfg = plan.brokers["broker-a"]
    assert cfg.mapping is not None
    older = replace(cfg.mapping, epoch=cfg.mapping.epoch - 1)
    header = CreateTopicHeader.of(cfg.config)
    resp = await call(transport, addr, UPDATE_AND_CREATE_STATIC_TOPIC, header, older)
    assert resp.code == ResponseCode.SYSTEM_ERROR
    assert resp.remark == f"Can't accept data with small epoch {older.epoch} < {cfg.mapping.epoch}"
    assert (await topic_config(transport, addr)).mapping.epoch == cfg.mapping.epoch  # unchanged

    resp = await call(transport, addr, UPDATE_AND_CREATE_STATIC_TOPIC, replace(header, force=True), older)
    assert resp.code == ResponseCode.SUCCESS, resp.remark
    assert (await topic_config(transport, addr)).mapping.epoch == older.epoch


async def test_a_mapping_naming_another_broker_is_stored_as_apache_stores_it(make_cluster, transport) -> None:
    """Apache's broker checks the mapping's broker name with a Java ``assert`` (off in a running broker): the mapping
    is stored as it came, and registered under the broker it names (the name server keys mappings by it)."""
    cluster = await make_cluster(brokers=1)
    plan = plan_create_or_expand(TOPIC, 1, {"broker-a"}, {})
    cfg = plan.brokers["broker-a"]
    assert cfg.mapping is not None
    header = CreateTopicHeader.of(cfg.config)
    named = replace(cfg.mapping, bname="broker-z")
    resp = await call(transport, cluster.brokers[0].config.addr, UPDATE_AND_CREATE_STATIC_TOPIC, header, named)
    assert resp.code == ResponseCode.SUCCESS, resp.remark
    stored = (await topic_config(transport, cluster.brokers[0].config.addr)).mapping
    assert stored is not None and stored.to_json() == named.to_json()
    assert await route_mappings(transport, cluster) == {"broker-z": named.leader_ids()}


def leaders_of(plan: StaticTopicPlan, broker: str) -> dict[int, int]:
    cfg = plan.brokers[broker]
    assert cfg.mapping is not None
    return cfg.mapping.leader_ids()


async def test_requests_to_a_logic_queue_go_to_the_leaders_physical_queue(make_cluster, transport) -> None:
    """A send names the logic queue and gets the logic queue back; the message is in the physical queue; a pull,
    the max offset and the group's offset of the logic queue are the physical queue's. A broker that does not
    lead the queue answers NOT_LEADER_FOR_QUEUE (501), as Apache's; ``lo=false`` addresses the physical queue."""
    cluster = await make_cluster(brokers=2)
    plan = plan_create_or_expand(TOPIC, 4, {"broker-a", "broker-b"}, {})
    await write_plan(transport, cluster, plan)
    a, b = (br.config.addr for br in cluster.brokers)
    (gid, physical), *_ = sorted(leaders_of(plan, "broker-a").items(), key=lambda kv: -kv[0])
    other = next(iter(leaders_of(plan, "broker-b")))

    for _ in range(3):
        resp = await call(transport, a, SEND_MESSAGE, send_header(TOPIC, queue_id=gid), b"static")
        assert resp.code == ResponseCode.SUCCESS, resp.remark
        assert int(resp.ext["queueId"]) == gid
    assert int(resp.ext["queueOffset"]) == 2
    resp = await call(transport, a, SEND_MESSAGE, send_header(TOPIC, queue_id=other), b"lost")
    assert (
        resp.code == 501
        and resp.remark == f"{TOPIC}-{other} does not exit in request process of current broker broker-a"
    )

    physical_max = QueueHeader(topic=TOPIC, queue_id=physical)
    forwarded = GET_MAX_OFFSET.request(physical_max)
    forwarded.ext["lo"] = "false"  # what a broker forwarding a request sends: the physical queue itself
    assert GET_MAX_OFFSET.reply(await transport.request(a, forwarded)).header.offset == 3
    logic_max = await call(transport, a, GET_MAX_OFFSET, QueueHeader(topic=TOPIC, queue_id=gid))
    assert GET_MAX_OFFSET.reply(logic_max).header.offset == 3

    pulled = await call(transport, a, PULL_MESSAGE, pull_header(TOPIC, gid, 1))
    assert pulled.code == ResponseCode.SUCCESS, pulled.remark
    reply = PULL_MESSAGE.reply(pulled)
    assert reply.header.next_begin_offset == 3 and reply.body and reply.body.count(b"static") == 2

    update = UpdateOffsetHeader(consumer_group="CG_TEST", topic=TOPIC, queue_id=gid, commit_offset=3)
    assert (await call(transport, a, UPDATE_CONSUMER_OFFSET, update)).code == ResponseCode.SUCCESS
    query = QueryOffsetHeader(consumer_group="CG_TEST", topic=TOPIC, queue_id=gid)
    assert QUERY_CONSUMER_OFFSET.reply(await call(transport, a, QUERY_CONSUMER_OFFSET, query)).header.offset == 3
    stored = QUERY_CONSUMER_OFFSET.request(replace(query, queue_id=physical))
    stored.ext["lo"] = "false"
    assert QUERY_CONSUMER_OFFSET.reply(await transport.request(a, stored)).header.offset == 3  # the physical queue's
    resp = await call(transport, b, QUERY_CONSUMER_OFFSET, replace(query, queue_id=gid))
    assert resp.code == 501


async def mqadmin(tmp_path: Path, *args: str) -> str:
    """Our CLI in a subprocess, awaited without blocking the loop the cluster runs in; its stdout."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mqadmin", *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "TMPDIR": str(tmp_path), "NO_COLOR": "1"},
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode == 0, (args, out.decode(), err.decode())
    return out.decode()


async def pull_all(transport: TcpTransport, addr: str, offset: int) -> list[tuple[int, bytes]]:
    """Pull logic queue 0 from ``offset`` until the broker has nothing more, following each answer's next begin
    offset as a consumer does; every message with its logic offset (its stored offset plus the answer's delta)."""
    got: list[tuple[int, bytes]] = []
    for _ in range(100):
        resp = await call(transport, addr, PULL_MESSAGE, pull_header(TOPIC, 0, offset, max_msgs=3))
        assert resp.code in PULL_MESSAGE.ok, resp.remark
        reply = PULL_MESSAGE.reply(resp).header
        if resp.code == ResponseCode.SUCCESS:
            got += [(m.queue_offset + (reply.offset_delta or 0), m.body) for m in decode_messages(resp.body)]
        elif resp.code == ResponseCode.PULL_NOT_FOUND and reply.next_begin_offset == offset:
            return got
        offset = reply.next_begin_offset
    raise AssertionError(f"the pulls never reached the end: {got}")


async def offset_of(transport: TcpTransport, addr: str, rpc, header) -> int:
    resp = await call(transport, addr, rpc, header)
    assert resp.code == ResponseCode.SUCCESS, resp.remark
    return int(rpc.reply(resp).header.offset)


async def test_a_remapped_queue_is_read_across_its_brokers(make_cluster, transport, tmp_path: Path) -> None:
    """A logic queue created on broker-a takes 5 messages, is moved to broker-b with our remappingStaticTopic, and
    takes 4 more (at logic offsets from 10000). Through broker-b, which forwards what broker-a holds: a consumer
    pulling from 0 gets all 9 in order with their logic offsets (moved on from broker-a's end to 10000), the min
    and max offsets span both items, a search by time lands on the right message, and the group's offsets are
    stored on the broker of the item they fall in. With broker-a gone, reads of its part are refused naming it."""
    cluster = await make_cluster(brokers=2)
    a, b = (br.config.addr for br in cluster.brokers)
    ns = ("-n", cluster.namesrv_addr)
    await mqadmin(tmp_path, "updateStaticTopic", *ns, "-t", TOPIC, "-qn", "1", "-b", "broker-a")
    before = [f"before-{i}".encode() for i in range(5)]
    for body in before:
        resp = await call(transport, a, SEND_MESSAGE, send_header(TOPIC, queue_id=0), body)
        assert resp.code == ResponseCode.SUCCESS, resp.remark
    before_stored = [
        m.store_timestamp
        for m in decode_messages((await call(transport, a, PULL_MESSAGE, pull_header(TOPIC, 0, 0))).body)
    ]
    await mqadmin(tmp_path, "remappingStaticTopic", *ns, "-t", TOPIC, "-b", "broker-b")
    start = block_round_up(5)
    after = [f"after-{i}".encode() for i in range(4)]
    for i, body in enumerate(after):
        resp = await call(transport, b, SEND_MESSAGE, send_header(TOPIC, queue_id=0), body)
        assert resp.code == ResponseCode.SUCCESS, resp.remark
        assert (int(resp.ext["queueId"]), int(resp.ext["queueOffset"])) == (0, start + i)

    expected = [(i, body) for i, body in enumerate(before)] + [(start + i, body) for i, body in enumerate(after)]
    assert await pull_all(transport, b, 0) == expected
    assert await pull_all(transport, b, 3) == expected[3:]
    moved_on = await call(transport, b, PULL_MESSAGE, pull_header(TOPIC, 0, 5))  # broker-a's end: on to broker-b's
    assert moved_on.code == ResponseCode.PULL_RETRY_IMMEDIATELY
    assert PULL_MESSAGE.reply(moved_on).header.next_begin_offset == start
    resp = await call(transport, a, PULL_MESSAGE, pull_header(TOPIC, 0, 0))
    assert resp.code == 501  # broker-a no longer leads the queue

    queue = QueueHeader(topic=TOPIC, queue_id=0)
    assert await offset_of(transport, b, GET_MIN_OFFSET, queue) == 0
    assert await offset_of(transport, b, GET_MAX_OFFSET, queue) == start + 4
    third = await call(transport, b, PULL_MESSAGE, pull_header(TOPIC, 0, start + 2, max_msgs=1))
    assert third.code == ResponseCode.SUCCESS, third.remark
    stored_at = decode_messages(third.body)[0].store_timestamp
    search = SearchOffsetHeader(topic=TOPIC, queue_id=0, timestamp=stored_at)
    found = await offset_of(transport, b, SEARCH_OFFSET_BY_TIMESTAMP, search)  # sent in one millisecond: any of 3
    assert start <= found <= start + 2 and await pull_all(transport, b, found) == expected[5 + found - start :]
    search = replace(search, timestamp=before_stored[1])
    assert await offset_of(transport, b, SEARCH_OFFSET_BY_TIMESTAMP, search) <= 1
    search = replace(search, timestamp=0)
    assert await offset_of(transport, b, SEARCH_OFFSET_BY_TIMESTAMP, search) == 0

    group = QueryOffsetHeader(consumer_group="CG_REMAP", topic=TOPIC, queue_id=0)
    resp = await call(transport, b, QUERY_CONSUMER_OFFSET, group)
    assert resp.code == ResponseCode.QUERY_NOT_FOUND
    for committed, where, physical in ((3, a, 3), (start + 2, b, 2)):
        update = UpdateOffsetHeader(consumer_group="CG_REMAP", topic=TOPIC, queue_id=0, commit_offset=committed)
        assert (await call(transport, b, UPDATE_CONSUMER_OFFSET, update)).code == ResponseCode.SUCCESS
        assert await offset_of(transport, b, QUERY_CONSUMER_OFFSET, group) == committed
        stored = QUERY_CONSUMER_OFFSET.request(group)  # the physical queue of the item the offset falls in
        stored.ext["lo"] = "false"
        assert QUERY_CONSUMER_OFFSET.reply(await transport.request(where, stored)).header.offset == physical

    await cluster.brokers[0].stop()
    for _ in range(2):  # broker-a's address was known (refused), then it is in no route (not found)
        resp = await call(transport, b, PULL_MESSAGE, pull_header(TOPIC, 0, 0))
        assert resp.code == ResponseCode.SYSTEM_ERROR and "broker-a" in (resp.remark or ""), resp.remark
    assert resp.remark and resp.remark.startswith("cannot find addr for broker broker-a")
    resp = await call(transport, b, GET_MIN_OFFSET, queue)
    assert resp.code == ResponseCode.SYSTEM_ERROR and "broker-a" in (resp.remark or "")
    assert await pull_all(transport, b, start) == expected[5:]  # broker-b's own part is still read


async def test_a_broker_that_does_not_answer_a_forwarded_read_is_refused_after_forward_timeout(
    make_cluster, transport, tmp_path: Path
) -> None:
    """The old item's broker is replaced, in the name server, by one that accepts connections and never answers:
    the read is answered SYSTEM_ERROR once ``forwardTimeout`` (set to 300 ms at run time) has passed, naming the
    timeout; the reading broker keeps serving its own part meanwhile."""
    cluster = await make_cluster(brokers=2)
    b = cluster.brokers[1].config.addr
    ns = ("-n", cluster.namesrv_addr)
    await mqadmin(tmp_path, "updateStaticTopic", *ns, "-t", TOPIC, "-qn", "1", "-b", "broker-a")
    resp = await call(transport, cluster.brokers[0].config.addr, SEND_MESSAGE, send_header(TOPIC), b"old")
    assert resp.code == ResponseCode.SUCCESS, resp.remark
    await mqadmin(tmp_path, "remappingStaticTopic", *ns, "-t", TOPIC, "-b", "broker-b")
    assert (await call(transport, b, SEND_MESSAGE, send_header(TOPIC), b"new")).code == ResponseCode.SUCCESS
    resp = await call(transport, b, UPDATE_BROKER_CONFIG, body={"forwardTimeout": "300"})
    assert resp.code == ResponseCode.SUCCESS, resp.remark
    await cluster.brokers[0].stop()

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # reads every request, answers none
        writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    try:
        addr = f"127.0.0.1:{server.sockets[0].getsockname()[1]}"
        topics = {t: TopicConfig(t, 1, 1) for t in (TOPIC, "Silent")}  # a new broker with one topic is refused
        body = register_body(DataVersion().to_json(), topics)
        header = RegisterBrokerHeader(
            broker_name="broker-a", broker_addr=addr, cluster_name=cluster.brokers[0].config.cluster_name,
            ha_server_addr=addr, broker_id=0, compressed=False, enable_acting_master=False, body_crc32=body_crc(body),
        )  # fmt: skip
        register = RemotingCommand(REGISTER_BROKER.code, ext=header.to_ext(), body=body)
        assert (await transport.request(cluster.namesrv_addr, register)).code == ResponseCode.SUCCESS
        for _ in range(2):  # the first may still find the stopped broker-a's address (refused at once)
            resp = await call(transport, b, PULL_MESSAGE, pull_header(TOPIC, 0, 0))
            assert resp.code == ResponseCode.SYSTEM_ERROR, resp.remark
        assert (
            resp.remark
            == f"wait response from {addr} timeout :300ms (forwarding PULL_MESSAGE of {TOPIC} to broker broker-a)"
        )
        start = block_round_up(1)
        assert [body for _, body in await pull_all(transport, b, start)] == [b"new"]
    finally:
        server.close()


async def test_forwarded_reads_are_signed_and_over_tls_where_the_cluster_wants_them(make_cluster) -> None:
    """With TLS only and ACL 2.0 on, the broker forwards the old item's reads over TLS, signed with its own (first
    Super user's) keys: the other broker serves them; a client of the cluster reads the whole queue."""
    admin = UserInfo("admin", "admin-Secret-1", "Super", "enable")
    cluster = await make_cluster(brokers=2, tls="enforcing", auth=AuthSettings((admin,)))
    assert cluster.tls is not None
    client = TcpTransport(
        timeout=10,
        tls=TlsSettings(ca_file=str(cluster.tls.ca_file)),
        credentials=Credentials("admin", "admin-Secret-1"),
    )
    try:
        a, b = (br.config.addr for br in cluster.brokers)
        created = plan_create_or_expand(TOPIC, 1, {"broker-a"}, {})
        await write_plan(client, cluster, created)
        for body in (b"old-0", b"old-1"):
            assert (await call(client, a, SEND_MESSAGE, send_header(TOPIC), body)).code == ResponseCode.SUCCESS
        plan = plan_remapping(TOPIC, {"broker-b"}, dict(created.brokers))
        for cfg in plan.brokers.values():  # as remappingStaticTopic decides it: after the old item's 2 messages
            assert cfg.mapping is not None
            for item in (i for items in cfg.mapping.hosted_queues.values() for i in items if i.logic_offset == -1):
                item.logic_offset = block_round_up(2)
        await write_plan(client, cluster, plan)
        assert (await call(client, b, SEND_MESSAGE, send_header(TOPIC), b"new-0")).code == ResponseCode.SUCCESS
        assert await pull_all(client, b, 0) == [(0, b"old-0"), (1, b"old-1"), (block_round_up(2), b"new-0")]
    finally:
        await client.aclose()
