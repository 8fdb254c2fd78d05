"""RouteInfoManager: routes from masters, registration rules, unregistration and expiry (no sockets)."""

from __future__ import annotations

from mqadmin.model.data_version import DataVersion
from mqadmin.model.register_body import RegisterBody
from mqadmin.model.topic import TopicConfig
from mqadmin.server.namesrv.routes import RouteInfoManager

A, B = "127.0.0.1:10911", "127.0.0.1:10921"


def body(*topics: TopicConfig, counter: int = 1) -> RegisterBody:
    return RegisterBody(DataVersion(counter, 0, 1000).to_json(), {t.topic_name: t for t in topics})


def register(rim: RouteInfoManager, addr: str = A, name: str = "broker-a", broker_id: int = 0, **kw):
    kw.setdefault("body", body(TopicConfig("T1"), TopicConfig("T2")))
    return rim.register(
        cluster=kw.pop("cluster", "C"), addr=addr, name=name, broker_id=broker_id, ha_addr=addr + "1",
        channel=kw.pop("channel", object()), now=kw.pop("now", 0.0), **kw,
    )  # fmt: skip


def test_route_lists_queue_data_and_broker_data_of_each_broker() -> None:
    rim = RouteInfoManager()
    register(rim, A, "broker-a", body=body(TopicConfig("T1", 4, 4, 6), TopicConfig("Other")))
    register(rim, B, "broker-b", body=body(TopicConfig("T1", 8, 8, 6), TopicConfig("Only")))
    route = rim.route("T1")
    assert route is not None
    assert [(q.broker_name, q.read_queue_nums, q.perm) for q in route.queue_datas] == [
        ("broker-a", 4, 6),
        ("broker-b", 8, 6),
    ]
    assert {b.broker_name: b.broker_addrs for b in route.broker_datas} == {"broker-a": {0: A}, "broker-b": {0: B}}
    assert [b.broker_name for b in rim.route("Only").broker_datas] == ["broker-b"]
    assert rim.route("Nope") is None


def test_only_the_master_contributes_topics() -> None:
    rim = RouteInfoManager()
    register(rim, B, "broker-a", broker_id=1, body=body(TopicConfig("FromSlave"), TopicConfig("X")))
    assert rim.route("FromSlave") is None
    assert rim.cluster_info().brokers["broker-a"].broker_addrs == {1: B}


def test_slave_registration_learns_master_and_ha_address() -> None:
    rim = RouteInfoManager()
    register(rim, A, "broker-a", broker_id=0)
    result = register(rim, B, "broker-a", broker_id=1)
    assert result is not None and result.master_addr == A and result.ha_server_addr == A + "1"


def test_same_address_under_another_id_is_dropped_first() -> None:
    rim = RouteInfoManager()
    register(rim, A, "broker-a", broker_id=0)
    register(rim, B, "broker-a", broker_id=1)
    register(rim, B, "broker-a", broker_id=0)  # the slave became master
    assert rim.cluster_info().brokers["broker-a"].broker_addrs == {0: B}


def test_unknown_broker_id_with_exactly_one_topic_is_refused() -> None:
    rim = RouteInfoManager()
    assert register(rim, body=body(TopicConfig("Single"))) is None
    assert rim.cluster_info().brokers == {}
    register(rim)  # now known: a later one-topic (incremental) registration is fine
    assert register(rim, body=body(TopicConfig("Single"), counter=2)) is not None
    assert rim.route("Single") is not None


def test_topics_are_reapplied_only_when_the_data_version_changes_or_are_new() -> None:
    rim = RouteInfoManager()
    register(rim, body=body(TopicConfig("T1", 8, 8), TopicConfig("T2"), counter=1))
    register(rim, body=body(TopicConfig("T1", 2, 2), TopicConfig("T2"), counter=1))
    assert rim.route("T1").queue_datas[0].read_queue_nums == 8  # same DataVersion: ignored
    register(rim, body=body(TopicConfig("T1", 2, 2), TopicConfig("T2"), TopicConfig("New"), counter=1))
    assert rim.route("New") is not None  # 5.x: a topic not yet listed is added anyway
    register(rim, body=body(TopicConfig("T1", 2, 2), TopicConfig("T2"), counter=2))
    assert rim.route("T1").queue_datas[0].read_queue_nums == 2


def test_topics_missing_from_a_registration_stay() -> None:
    rim = RouteInfoManager()
    register(rim, body=body(TopicConfig("T1"), TopicConfig("T2"), counter=1))
    register(rim, body=body(TopicConfig("T3"), TopicConfig("T4"), counter=2))
    assert rim.all_topics() == ["T1", "T2", "T3", "T4"]


def test_channel_close_unregisters_only_the_brokers_of_that_channel() -> None:
    rim = RouteInfoManager()
    ch_a, ch_b = object(), object()
    register(rim, A, "broker-a", channel=ch_a, body=body(TopicConfig("Shared"), TopicConfig("OnlyA")))
    register(rim, B, "broker-b", channel=ch_b, body=body(TopicConfig("Shared"), TopicConfig("OnlyB")))
    assert rim.channel_closed(ch_a) == [A]
    assert set(rim.cluster_info().brokers) == {"broker-b"}
    assert rim.route("OnlyA") is None
    assert [q.broker_name for q in rim.route("Shared").queue_datas] == ["broker-b"]
    assert rim.channel_closed(object()) == []


def test_a_reregistration_on_a_new_channel_survives_the_old_channels_close() -> None:
    rim = RouteInfoManager()
    old, new = object(), object()
    register(rim, channel=old)
    register(rim, channel=new, body=body(TopicConfig("T1"), TopicConfig("T2"), counter=2))
    assert rim.channel_closed(old) == []
    assert "broker-a" in rim.cluster_info().brokers


def test_expiry_removes_silent_brokers_and_the_cluster() -> None:
    rim = RouteInfoManager(default_timeout=120.0)
    register(rim, A, "broker-a", now=0.0)
    register(rim, B, "broker-b", now=100.0)
    assert rim.expire(now=119.0) == []
    expired = rim.expire(now=121.0)
    assert [addr for addr, _ in expired] == [A]
    assert set(rim.cluster_info().brokers) == {"broker-b"}
    rim.heartbeat("C", B, now=200.0)
    assert rim.expire(now=300.0) == []
    assert [addr for addr, _ in rim.expire(now=321.0)] == [B]
    assert rim.cluster_info().clusters == {}
    assert rim.all_topics() == []


def test_registration_timeout_from_the_header_overrides_the_default() -> None:
    rim = RouteInfoManager(default_timeout=120.0)
    register(rim, now=0.0, timeout=5.0)
    assert [a for a, _ in rim.expire(now=6.0)] == [A]


def test_unregister_of_the_master_keeps_the_slave_and_the_queue_data() -> None:
    rim = RouteInfoManager()
    register(rim, A, "broker-a", broker_id=0)
    register(rim, B, "broker-a", broker_id=1)
    assert rim.unregister("C", A, "broker-a", 0)
    assert rim.cluster_info().brokers["broker-a"].broker_addrs == {1: B}
    assert rim.route("T1") is not None
    assert not rim.unregister("C", A, "broker-a", 0)


def test_wipe_and_add_write_perm_count_topics_and_add_resets_to_6() -> None:
    rim = RouteInfoManager()
    register(rim, body=body(TopicConfig("T1", perm=7), TopicConfig("T2", perm=6)))
    assert rim.wipe_write_perm("broker-a") == 2
    assert [q.perm for t in ("T1", "T2") for q in rim.route(t).queue_datas] == [5, 4]
    assert rim.add_write_perm("broker-a") == 2
    assert [q.perm for t in ("T1", "T2") for q in rim.route(t).queue_datas] == [6, 6]
    assert rim.wipe_write_perm("nobody") == 0


def test_delete_topic_everywhere_or_per_cluster() -> None:
    rim = RouteInfoManager()
    register(rim, A, "broker-a", cluster="C1")
    register(rim, B, "broker-b", cluster="C2")
    rim.delete_topic("T1", "C1")
    assert [q.broker_name for q in rim.route("T1").queue_datas] == ["broker-b"]
    rim.delete_topic("T1")
    assert rim.route("T1") is None
    assert rim.topics_of_cluster("C2") == ["T2"]


def test_system_topic_list_holds_cluster_and_broker_names() -> None:
    rim = RouteInfoManager()
    register(rim, A, "broker-a")
    topics, addr = rim.system_topics()
    assert topics == ["C", "broker-a"] and addr == A


def test_query_data_version_refreshes_when_unchanged() -> None:
    rim = RouteInfoManager(default_timeout=10)
    register(rim, now=0.0, body=body(TopicConfig("T1"), TopicConfig("T2"), counter=3))
    changed, stored = rim.query_data_version("C", A, DataVersion(3, 0, 1000), now=9.0)
    assert not changed and stored == DataVersion(3, 0, 1000)
    assert rim.expire(now=15.0) == []  # refreshed at 9
    changed, _ = rim.query_data_version("C", A, DataVersion(4, 0, 1000), now=16.0)
    assert changed
