"""A broker and its name servers: registration with every one, at once after changes, after restarts."""

from __future__ import annotations

from pathlib import Path

from mqadmin.admin.client import AdminClient
from mqadmin.admin.topics import TopicChange
from mqadmin.model.topic import TopicConfig
from mqadmin.server.broker.broker import Broker
from mqadmin.server.broker.config import BrokerConfig
from mqadmin.server.namesrv.config import NamesrvConfig
from mqadmin.server.namesrv.server import NameServer

from .conftest import until


async def start_namesrv(path: Path, port: int = 0) -> NameServer:
    ns = NameServer(NamesrvConfig(listen_port=port, data_dir=path))
    await ns.start()
    return ns


async def test_registers_with_every_name_server_and_announces_changes_to_all(tmp_path):
    ns1, ns2 = await start_namesrv(tmp_path / "ns1"), await start_namesrv(tmp_path / "ns2")
    broker = Broker(BrokerConfig(listen_port=0, namesrv_addrs=[ns1.addr, ns2.addr], data_dir=tmp_path / "b"))
    try:
        await broker.start()
        for ns in (ns1, ns2):
            assert ns.routes.cluster_info().brokers["broker-a"].broker_addrs == {0: broker.config.addr}
            assert ns.routes.route("TBW102") is not None
        await broker.topics.update(TopicConfig("Everywhere"))
        for ns in (ns1, ns2):  # announced before update() returned
            assert ns.routes.route("Everywhere") is not None
    finally:
        await broker.stop()
        await ns1.stop()
        await ns2.stop()


async def test_stop_unregisters(tmp_path):
    ns = await start_namesrv(tmp_path / "ns")
    broker = Broker(BrokerConfig(listen_port=0, namesrv_addrs=[ns.addr], data_dir=tmp_path / "b"))
    await broker.start()
    assert "broker-a" in ns.routes.brokers
    await broker.stop()
    assert "broker-a" not in ns.routes.brokers
    await ns.stop()


async def test_a_restarted_name_server_learns_the_broker_again_with_all_topics(tmp_path):
    ns = await start_namesrv(tmp_path / "ns")
    port = ns.config.listen_port
    broker = Broker(
        BrokerConfig(listen_port=0, namesrv_addrs=[ns.addr], data_dir=tmp_path / "b", register_interval=3600)
    )
    await broker.start()
    try:
        await broker.topics.update(TopicConfig("BeforeRestart"))
        await ns.stop()
        ns = await start_namesrv(tmp_path / "ns", port)
        assert ns.routes.route("BeforeRestart") is None
        await until(lambda: ns.routes.route("BeforeRestart") is not None, what="re-registration")
        await broker.topics.update(TopicConfig("AfterRestart"))
        assert ns.routes.route("AfterRestart") is not None
    finally:
        await broker.stop()
        await ns.stop()


async def test_a_name_server_started_after_the_broker_gets_the_registration(tmp_path):
    from tests.conftest import free_port

    port = free_port()
    broker = Broker(
        BrokerConfig(listen_port=0, namesrv_addrs=[f"127.0.0.1:{port}"], data_dir=tmp_path / "b", register_timeout=1)
    )
    await broker.start()  # no name server yet: the broker still starts and keeps trying
    ns = await start_namesrv(tmp_path / "ns", port)
    try:
        await until(lambda: "broker-a" in ns.routes.brokers, what="late registration")
    finally:
        await broker.stop()
        await ns.stop()


async def test_order_conf_from_the_name_server_marks_the_topic_ordered(cluster):
    async with AdminClient([cluster.namesrv_addr]) as admin:
        await admin.update_topic_on(await admin.targets(None, cluster.cluster), TopicChange("Ordered"))
        await admin.put_kv_config("ORDER_TOPIC_CONFIG", "Ordered", "broker-a:8")
        assert await cluster.brokers[0].registrar.register_all()
        assert cluster.brokers[0].topics.get("Ordered").order
        assert (await admin.topic_route("Ordered")).order_topic_conf == "broker-a:8"


async def test_announced_perms_follow_a_read_only_broker(tmp_path):
    ns = await start_namesrv(tmp_path / "ns")
    cfg = BrokerConfig(listen_port=0, namesrv_addrs=[ns.addr], data_dir=tmp_path / "b", broker_permission=4)
    broker = Broker(cfg)
    await broker.start()
    try:
        await broker.topics.update(TopicConfig("RO", perm=6))
        assert ns.routes.route("RO").queue_datas[0].perm == 4
        assert broker.topics.get("RO").perm == 6  # the broker's own config is unchanged
    finally:
        await broker.stop()
        await ns.stop()


async def test_a_periodic_registration_carries_the_topics_only_when_the_name_server_lacks_them(tmp_path, monkeypatch):
    """A name server that holds the broker's DataVersion gets a registration without topics (it keeps the broker
    alive); one that forgot the broker (expired or unregistered it) gets every topic again."""
    ns = await start_namesrv(tmp_path / "ns")
    broker = Broker(
        BrokerConfig(listen_port=0, namesrv_addrs=[ns.addr], data_dir=tmp_path / "b", register_interval=3600)
    )
    sent: list[int] = []
    register = ns.routes.register

    def spy(**kwargs):
        sent.append(len(kwargs["body"].topics))
        return register(**kwargs)

    monkeypatch.setattr(ns.routes, "register", spy)
    await broker.start()
    try:
        await broker.topics.update(TopicConfig("Kept"))
        sent.clear()
        assert await broker.registrar.register_all()
        assert sent == [0]
        assert ns.routes.route("Kept") is not None
        cfg = broker.config
        ns.routes.unregister(cfg.cluster_name, cfg.addr, cfg.broker_name, cfg.broker_id)
        assert ns.routes.route("Kept") is None
        assert await broker.registrar.register_all()
        assert sent[-1] > 1 and ns.routes.route("Kept") is not None
    finally:
        await broker.stop()
        await ns.stop()


def test_a_registration_too_large_for_a_frame_is_sent_compressed() -> None:
    """Tens of thousands of topics with long names pass the 16 MiB a name server reads in one request: the body
    is then the compressed form (as a Java broker's with compressedRegister), every topic in it."""
    from mqadmin.model.register_body import decode
    from mqadmin.server.broker.registration import register_body
    from mqadmin.wire.frame import MAX_FRAME_LENGTH

    topics = {
        n: TopicConfig(n, 8, 8, 6) for n in (f"Orders_of_a_large_fleet_{'x' * 30}_{i:06d}" for i in range(70_000))
    }
    dv = {"counter": 7, "timestamp": 1}
    body = register_body(dv, topics)
    assert len(body) < MAX_FRAME_LENGTH
    back = decode(body)
    assert (
        back.topics.keys() == topics.keys()
        and back.topics["Orders_of_a_large_fleet_" + "x" * 30 + "_000042"]
        == (topics["Orders_of_a_large_fleet_" + "x" * 30 + "_000042"])
    )
    small = {"A": TopicConfig("A")}
    assert register_body(dv, small).startswith(b"{")  # JSON while it fits
