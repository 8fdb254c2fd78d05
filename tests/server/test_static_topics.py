"""Static topics on the embedded broker: UPDATE_AND_CREATE_STATIC_TOPIC stores the logic-queue mapping with the
topic (surviving a restart), creates the physical queues, registers the mapping so routes carry it, and
GET_TOPIC_CONFIG with ``lo`` answers it; an older epoch is refused unless forced, as Apache's broker does.
Requests naming a logic queue are served from the leader's physical queue."""

from __future__ import annotations

from dataclasses import replace

from mqadmin.model.rpc.clients import (
    QUERY_CONSUMER_OFFSET,
    UPDATE_CONSUMER_OFFSET,
    QueryOffsetHeader,
    UpdateOffsetHeader,
)
from mqadmin.model.rpc.messages import GET_MAX_OFFSET, PULL_MESSAGE, SEND_MESSAGE, QueueHeader
from mqadmin.model.rpc.namesrv import GET_ROUTEINFO_BY_TOPIC, RouteHeader
from mqadmin.model.rpc.static_topics import UPDATE_AND_CREATE_STATIC_TOPIC
from mqadmin.model.rpc.topics import GET_TOPIC_CONFIG, CreateTopicHeader, GetTopicConfigHeader
from mqadmin.model.static_topic import (
    StaticTopicPlan,
    block_round_up,
    mock_broker_name,
    plan_create_or_expand,
    plan_remapping,
)
from mqadmin.server.dev import DevCluster
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire.codes import ResponseCode
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


async def test_a_mapping_for_another_broker_is_refused(make_cluster, transport) -> None:
    cluster = await make_cluster(brokers=1)
    plan = plan_create_or_expand(TOPIC, 1, {"broker-a"}, {})
    cfg = plan.brokers["broker-a"]
    assert cfg.mapping is not None
    header = CreateTopicHeader.of(cfg.config)
    resp = await call(
        transport, cluster.brokers[0].config.addr, UPDATE_AND_CREATE_STATIC_TOPIC, header,
        replace(cfg.mapping, bname="broker-z"),
    )  # fmt: skip
    assert resp.code == ResponseCode.SYSTEM_ERROR and "broker-z" in (resp.remark or "")
    resp = await call(transport, cluster.brokers[0].config.addr, GET_TOPIC_CONFIG, GetTopicConfigHeader(topic=TOPIC))
    assert resp.code == ResponseCode.TOPIC_NOT_EXIST  # nothing stored


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


async def test_a_remapped_queue_takes_sends_but_its_reads_are_refused_with_the_reason(make_cluster, transport):
    """After remapping, the new leader puts at logic offsets after the old item's; reading the queue needs the old
    broker's messages (Apache forwards), which the embedded broker does not do: refused, naming why."""
    cluster = await make_cluster(brokers=2)
    created = plan_create_or_expand(TOPIC, 2, {"broker-a", "broker-b"}, {})
    await write_plan(transport, cluster, created)
    moved = next(iter(leaders_of(created, "broker-a")))
    plan = plan_remapping(TOPIC, {"broker-b"}, dict(created.brokers))
    for cfg in plan.brokers.values():  # as remappingStaticTopic decides it: the old item ends at 0, the new starts
        assert cfg.mapping is not None
        for items in cfg.mapping.hosted_queues.values():
            for item in items:
                if item.logic_offset == -1:
                    item.logic_offset = block_round_up(0)
    await write_plan(transport, cluster, plan)
    b = cluster.brokers[1].config.addr
    resp = await call(transport, b, SEND_MESSAGE, send_header(TOPIC, queue_id=moved), b"after")
    assert resp.code == ResponseCode.SUCCESS, resp.remark
    assert (int(resp.ext["queueId"]), int(resp.ext["queueOffset"])) == (moved, block_round_up(0))
    resp = await call(transport, b, PULL_MESSAGE, pull_header(TOPIC, moved, block_round_up(0)))
    assert resp.code == ResponseCode.SYSTEM_ERROR
    assert "was remapped (earlier items on broker-a)" in (resp.remark or "") and "does not do" in (resp.remark or "")
    a = cluster.brokers[0].config.addr
    assert (await call(transport, a, SEND_MESSAGE, send_header(TOPIC, queue_id=moved), b"x")).code == 501
