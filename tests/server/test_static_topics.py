"""Static topics on the embedded broker: UPDATE_AND_CREATE_STATIC_TOPIC stores the logic-queue mapping with the
topic (surviving a restart), creates the physical queues, registers the mapping so routes carry it, and
GET_TOPIC_CONFIG with ``lo`` answers it; an older epoch is refused unless forced, as Apache's broker does."""

from __future__ import annotations

from dataclasses import replace

from mqadmin.model.rpc.namesrv import GET_ROUTEINFO_BY_TOPIC, RouteHeader
from mqadmin.model.rpc.static_topics import UPDATE_AND_CREATE_STATIC_TOPIC
from mqadmin.model.rpc.topics import GET_TOPIC_CONFIG, CreateTopicHeader, GetTopicConfigHeader
from mqadmin.model.static_topic import StaticTopicPlan, mock_broker_name, plan_create_or_expand
from mqadmin.server.dev import DevCluster
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire.codes import ResponseCode
from tests.server.conftest import call

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
