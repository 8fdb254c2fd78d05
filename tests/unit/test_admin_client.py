"""AdminClient over the in-memory fake transport."""

from __future__ import annotations

import asyncio

import pytest

from mqadmin.admin import AdminClient, ResponseError, Status, Target, UnknownCluster, outcome
from mqadmin.admin.topics import TopicChange
from mqadmin.model.order import ORDER_TOPIC_CONFIG
from mqadmin.model.topic import TopicConfig
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.frame import RemotingCommand
from tests.unit.fake_remoting import FakeBroker, FakeNamesrv, FakeTransport, two_broker_cluster

ORDERS = TopicConfig("Orders", read_queue_nums=8, write_queue_nums=8)


def client(*servers, namesrvs: list[str] | None = None) -> tuple[AdminClient, FakeTransport]:
    transport = FakeTransport(*servers)
    addrs = namesrvs or [s.addr for s in servers if isinstance(s, FakeNamesrv)]
    return AdminClient(addrs, transport=transport, timeout=0.5), transport


def on(broker: FakeBroker) -> Target:
    return Target(broker.name, broker.addr)


async def cluster_targets(admin: AdminClient) -> list[Target]:
    return await admin.targets(None, "DefaultCluster")


async def test_route_request_asks_for_standard_json() -> None:
    ns, a, _ = two_broker_cluster()
    a.topics["Orders"] = ORDERS
    admin, t = client(ns, a)
    route = await admin.topic_route("Orders")
    assert [q.broker_name for q in route.queue_datas] == ["broker-a"]
    (_, req), *_ = t.sent
    assert req.code == RC.GET_ROUTEINFO_BY_TOPIC
    assert req.version >= 401
    assert req.ext == {"topic": "Orders", "acceptStandardJsonOnly": "true"}


async def test_missing_route_is_a_response_error_with_the_code_name() -> None:
    ns, *_ = two_broker_cluster()
    admin, _ = client(ns)
    with pytest.raises(ResponseError) as e:
        await admin.topic_route("Nope")
    assert (e.value.code, e.value.code_name, e.value.addr) == (17, "TOPIC_NOT_EXIST", ns.addr)
    assert "TOPIC_NOT_EXIST (17)" in str(e.value)


async def test_cluster_info_from_the_legacy_body() -> None:
    ns, a, b = two_broker_cluster()
    slave = FakeBroker("broker-a", "127.0.0.1:10915", broker_id=1)
    ns.brokers.append(slave)
    admin, _ = client(ns)
    info = await admin.cluster_info()
    assert info.clusters == {"DefaultCluster": ["broker-a", "broker-b"]}
    assert info.brokers["broker-a"].broker_addrs == {0: a.addr, 1: slave.addr}
    assert info.role_of(slave.addr)[1] == 1


async def test_a_name_server_with_an_unreadable_answer_is_skipped_like_a_dead_one() -> None:
    bad, good = FakeNamesrv("127.0.0.1:9876"), FakeNamesrv("127.0.0.1:9877")

    async def garbage(cmd: RemotingCommand) -> RemotingCommand:
        return cmd.response(body=b"[" * 100_000)  # JSON nested far too deep

    bad.handle = garbage  # type: ignore[method-assign]
    for _ in range(8):  # whichever the random start is, the good one answers
        admin, _ = client(bad, good)
        assert (await admin.cluster_info()).clusters == {}


@pytest.mark.parametrize("version", [479, 409])
async def test_created_then_unchanged_then_updated_with_the_changes(version: int) -> None:
    ns, a, _ = two_broker_cluster(version)
    admin, t = client(ns, a)
    first = await admin.update_topic(on(a), TopicChange("Orders"))
    assert first.status == Status.CREATED and first.data == ORDERS
    assert a.topics["Orders"].write_queue_nums == 8

    second = await admin.update_topic(on(a), TopicChange("Orders"))
    assert second.status == Status.UNCHANGED
    creates = [c for c in t.codes_sent_to(a.addr) if c == RC.UPDATE_AND_CREATE_TOPIC]
    assert len(creates) == 1  # nothing is written when nothing would change

    third = await admin.update_topic(on(a), TopicChange("Orders", write_queue_nums=4))
    assert third.status == Status.UPDATED
    assert third.changes == {"writeQueueNums": (8, 4)}
    assert a.topics["Orders"].write_queue_nums == 4


async def test_an_update_keeps_what_it_does_not_set() -> None:
    ns, a, _ = two_broker_cluster(479)
    a.topics["Orders"] = ORDERS.with_(read_queue_nums=16, write_queue_nums=16, attributes={"message.type": "FIFO"})
    admin, _ = client(ns, a)
    result = await admin.update_topic(on(a), TopicChange("Orders", perm=4))
    assert result.changes == {"perm": (6, 4)}
    assert a.topics["Orders"] == ORDERS.with_(
        read_queue_nums=16, write_queue_nums=16, perm=4, attributes={"message.type": "FIFO"}
    )
    again = await admin.update_topic(on(a), TopicChange("Orders", perm=4))
    assert again.status == Status.UNCHANGED


async def test_attribute_operations_set_and_remove_keys() -> None:
    ns, a, _ = two_broker_cluster(479)
    a.topics["Orders"] = ORDERS.with_(attributes={"message.type": "FIFO", "queue.type": "SimpleCQ"})
    admin, t = client(ns, a)
    result = await admin.update_topic(on(a), TopicChange("Orders", attributes={"queue.type": None}))
    assert result.changes == {
        "attributes": ({"message.type": "FIFO", "queue.type": "SimpleCQ"}, {"message.type": "FIFO"})
    }
    (sent,) = [c for addr, c in t.sent if c.code == RC.UPDATE_AND_CREATE_TOPIC]
    assert sent.ext["attributes"] == "-queue.type"  # only the change: 5.x brokers merge it
    assert a.topics["Orders"].attributes == {"message.type": "FIFO"}


async def test_create_only_leaves_an_existing_topic_alone() -> None:
    ns, a, _ = two_broker_cluster(479)
    a.topics["Orders"] = ORDERS
    admin, t = client(ns, a)
    result = await admin.update_topic(on(a), TopicChange("Orders", write_queue_nums=2), create_only=True)
    assert result.status == Status.UNCHANGED and a.topics["Orders"] == ORDERS
    assert RC.UPDATE_AND_CREATE_TOPIC not in t.codes_sent_to(a.addr)


async def test_old_broker_falls_back_to_the_full_topic_table_once() -> None:
    ns, a, _ = two_broker_cluster(409)
    admin, t = client(ns, a)
    await admin.update_topic(on(a), TopicChange("Orders"))
    await admin.update_topic(on(a), TopicChange("Orders"))
    codes = t.codes_sent_to(a.addr)
    assert codes.count(RC.GET_TOPIC_CONFIG) == 1  # learnt that 351 is unsupported
    assert codes.count(RC.GET_ALL_TOPIC_CONFIG) == 2


async def test_old_broker_that_drops_order_and_attributes_still_reports_unchanged() -> None:
    ns, a, _ = two_broker_cluster(409)
    admin, _ = client(ns, a)
    fifo = TopicChange("Orders", order=True, attributes={"message.type": "FIFO"})
    assert (await admin.update_topic(on(a), fifo)).status == Status.CREATED
    assert (await admin.update_topic(on(a), fifo)).status == Status.UNCHANGED


@pytest.mark.parametrize(
    "change",
    [
        {"read_queue_nums": 4},
        {"perm": 4},
        {"order": True},
        {"topic_sys_flag": 1},
        {"topic_filter_type": "MULTI_TAG"},
        {"attributes": {"message.type": "FIFO"}},
    ],
)
async def test_each_compared_field_makes_an_update_on_a_current_broker(change: dict) -> None:
    ns, a, _ = two_broker_cluster(479)
    a.topics["Orders"] = ORDERS
    admin, _ = client(ns, a)
    assert (await admin.update_topic(on(a), TopicChange("Orders", **change))).status == Status.UPDATED


async def test_cluster_fan_out_is_concurrent_and_continues_past_failures() -> None:
    ns, a, b = two_broker_cluster()
    c = FakeBroker("broker-c", "127.0.0.1:10931")
    d = FakeBroker("broker-d", "127.0.0.1:10941", hang=True)
    ns.brokers += [c, d]
    arrived = {x.addr: asyncio.Event() for x in (a, b, c)}

    def barrier(me: FakeBroker):
        async def hook(cmd: RemotingCommand) -> RemotingCommand | None:
            arrived[me.addr].set()
            # Every broker waits until all have been asked: a sequential fan-out would time out here.
            await asyncio.wait_for(asyncio.gather(*(e.wait() for e in arrived.values())), 5)
            if me is b and cmd.code == RC.UPDATE_AND_CREATE_TOPIC:
                return cmd.response(1, "CODE: 1 DESC: disk full\nstack trace line")
            return None

        return hook

    for x in (a, b, c):
        x.before = barrier(x)
    admin, _ = client(ns, a, b, c, d)
    results = await admin.update_topic_on(await cluster_targets(admin), TopicChange("Orders"))
    by_name = {r.name: r for r in results}
    assert [r.name for r in results] == ["broker-a", "broker-b", "broker-c", "broker-d"]
    assert by_name["broker-a"].status == by_name["broker-c"].status == Status.CREATED
    assert by_name["broker-b"].status == Status.FAILED
    assert by_name["broker-b"].reason == "SYSTEM_ERROR (1): CODE: 1 DESC: disk full"
    assert by_name["broker-b"].code == 1 and isinstance(by_name["broker-b"].error, ResponseError)  # not from the text
    assert by_name["broker-a"].code is None and by_name["broker-a"].error is None
    assert by_name["broker-d"].status == Status.FAILED and "no answer" in by_name["broker-d"].reason
    assert by_name["broker-d"].code is None and by_name["broker-d"].error is not None  # no answer, so no code
    assert by_name["broker-d"].addr == d.addr
    assert outcome(results) == "partial"
    assert "Orders" in a.topics and "Orders" in c.topics


async def test_fan_out_to_an_unreachable_broker() -> None:
    ns, a, b = two_broker_cluster()
    admin, _ = client(ns, a)  # broker-b's address refuses connections
    results = await admin.update_topic_on(await cluster_targets(admin), TopicChange("Orders"))
    assert [r.status for r in results] == [Status.CREATED, Status.FAILED]
    assert "refused" in results[1].reason


async def test_broker_name_without_a_master_is_a_failed_row() -> None:
    ns, a, _ = two_broker_cluster()
    ns.brokers = [a, FakeBroker("broker-s", "127.0.0.1:10955", broker_id=1)]
    admin, _ = client(ns, a)
    results = await admin.update_topic_on(await cluster_targets(admin), TopicChange("Orders"))
    assert [(r.name, r.status) for r in results] == [("broker-a", Status.CREATED), ("broker-s", Status.FAILED)]
    assert "no master" in results[1].reason


async def test_unknown_cluster_lists_the_known_ones() -> None:
    ns, *_ = two_broker_cluster()
    admin, _ = client(ns)
    with pytest.raises(UnknownCluster) as e:
        await admin.targets(None, "Nope")
    assert e.value.known == ["DefaultCluster"]
    assert "'Nope'" in str(e.value) and "DefaultCluster" in str(e.value)


async def test_kv_put_and_delete_go_to_every_name_server() -> None:
    ns1, ns2, ns3 = FakeNamesrv("127.0.0.1:9876"), FakeNamesrv("127.0.0.1:9877"), FakeNamesrv("127.0.0.1:9878")
    ns3.down = True
    admin, _ = client(ns1, ns2, ns3)
    results = await admin.put_kv_config(ORDER_TOPIC_CONFIG, "Orders", "broker-a:8")
    assert [(r.addr, r.status) for r in results] == [
        (ns1.addr, Status.WRITTEN),
        (ns2.addr, Status.WRITTEN),
        (ns3.addr, Status.FAILED),
    ]
    assert ns1.kv == ns2.kv == {(ORDER_TOPIC_CONFIG, "Orders"): "broker-a:8"}
    deleted = await admin.delete_kv_config(ORDER_TOPIC_CONFIG, "Orders")
    assert [r.status for r in deleted] == [Status.DELETED, Status.DELETED, Status.FAILED]
    assert ns1.kv == ns2.kv == {}


async def test_get_kv_config_missing_is_none() -> None:
    ns = FakeNamesrv("127.0.0.1:9876")
    admin, _ = client(ns)
    assert await admin.get_kv_config(ORDER_TOPIC_CONFIG, "Orders") is None


async def test_order_conf_merge_keeps_other_brokers() -> None:
    ns = FakeNamesrv("127.0.0.1:9876", kv={(ORDER_TOPIC_CONFIG, "Orders"): "broker-b:4;broker-a:2"})
    admin, _ = client(ns)
    value, results = await admin.set_order_conf("Orders", {"broker-a": 8}, merge=True)
    assert value == "broker-a:8;broker-b:4"
    assert ns.kv[(ORDER_TOPIC_CONFIG, "Orders")] == value
    value, _ = await admin.set_order_conf("Orders", {"broker-c": 8}, merge=False)
    assert value == "broker-c:8"


async def test_runtime_info_and_topic_stats() -> None:
    ns, a, _ = two_broker_cluster()
    a.topics["Orders"] = ORDERS.with_(write_queue_nums=2)
    admin, _ = client(ns, a)
    info = await admin.broker_runtime_info(a.addr)
    assert info["brokerVersionDesc"] == "V5_3_3"
    stats = await admin.topic_stats(a.addr, "Orders")
    assert [(q.queue_id, q.max_offset) for q in stats] == [(0, 3), (1, 0)]


async def test_delete_topic_reports_brokers_then_name_servers() -> None:
    ns, a, b = two_broker_cluster()
    a.topics["Orders"] = b.topics["Orders"] = ORDERS
    admin, t = client(ns, a, b)
    results = await admin.delete_topic("DefaultCluster", "Orders")
    assert [(r.name, r.status) for r in results] == [
        ("broker-a", Status.DELETED),
        ("broker-b", Status.DELETED),
        ("namesrv", Status.DELETED),
    ]
    assert not a.topics and not b.topics
    (req,) = [c for addr, c in t.sent if c.code == RC.DELETE_TOPIC_IN_NAMESRV]
    assert req.ext == {"topic": "Orders", "clusterName": "DefaultCluster"}


async def test_delete_keeps_the_route_while_a_broker_still_holds_the_topic() -> None:
    ns, a, b = two_broker_cluster()
    a.topics["Orders"] = b.topics["Orders"] = ORDERS

    async def refuse(cmd: RemotingCommand) -> RemotingCommand | None:
        if cmd.code == RC.DELETE_TOPIC_IN_BROKER:
            return cmd.response(1, "The topic[Orders] is conflict with system topic.")
        return None

    b.before = refuse
    admin, t = client(ns, a, b)
    results = await admin.delete_topic("DefaultCluster", "Orders")
    assert [(r.name, r.status) for r in results] == [("broker-a", Status.DELETED), ("broker-b", Status.FAILED)]
    assert RC.DELETE_TOPIC_IN_NAMESRV not in [c.code for _, c in t.sent]


async def test_deleting_a_topic_nobody_has_reports_not_found_and_leaves_the_name_servers_alone() -> None:
    ns, a, b = two_broker_cluster()
    admin, t = client(ns, a, b)
    results = await admin.delete_topic("DefaultCluster", "Nope")
    assert [(r.name, r.status) for r in results] == [("broker-a", Status.NOT_FOUND), ("broker-b", Status.NOT_FOUND)]
    assert RC.DELETE_TOPIC_IN_BROKER not in [c.code for _, c in t.sent]
    assert RC.DELETE_TOPIC_IN_NAMESRV not in [c.code for _, c in t.sent]


async def test_owned_transport_is_closed_but_an_injected_one_is_left_open() -> None:
    ns, *_ = two_broker_cluster()
    async with AdminClient([ns.addr], transport=(t := FakeTransport(ns))) as admin:
        await admin.cluster_info()
    assert not t.closed
