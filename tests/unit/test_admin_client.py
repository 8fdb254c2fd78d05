"""AdminClient: what it sends and how it reads the answers (scripted answers through the declaration-driven mock
transport), and what it achieves on a broker (the embedded name server and brokers on loopback, one per module)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mqadmin.admin import AdminClient, ResponseError, Status, Target, UnknownCluster, outcome
from mqadmin.admin.topics import TopicChange
from mqadmin.model.order import ORDER_TOPIC_CONFIG
from mqadmin.model.route import BrokerData, ClusterInfo, QueueData, TopicRouteData
from mqadmin.model.rpc import namesrv, namesrv_admin, topics
from mqadmin.model.rpc.spec import Decoded
from mqadmin.model.static_topic import StaticTopicConfig
from mqadmin.model.topic import TopicConfig
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand
from tests.embedded import ThreadedCluster
from tests.mock_transport import Answer, MockTransport, cluster_info, ok, refuse, routes

ORDERS = TopicConfig("Orders", read_queue_nums=8, write_queue_nums=8)
NS, NS2, NS3 = "127.0.0.1:9876", "127.0.0.1:9877", "127.0.0.1:9878"
A, B, C, D = "127.0.0.1:10911", "127.0.0.1:10921", "127.0.0.1:10931", "127.0.0.1:10941"


def two_brokers() -> ClusterInfo:
    return cluster_info(("broker-a", 0, A), ("broker-b", 0, B))


def mock(handler: Any, **kw: Any) -> tuple[AdminClient, MockTransport]:
    transport = MockTransport(handler, **kw)
    return AdminClient([NS], transport=transport, timeout=0.5), transport


# --- what the client sends and reads (scripted answers) ---------------------------------------------------------


async def test_route_request_asks_for_standard_json() -> None:
    route = TopicRouteData([BrokerData("DefaultCluster", "broker-a", {0: A})], [QueueData("broker-a", 8, 8, 6)])
    admin, t = mock(routes({namesrv.GET_ROUTEINFO_BY_TOPIC: ok(route)}))
    got = await admin.topic_route("Orders")
    assert [q.broker_name for q in got.queue_datas] == ["broker-a"]
    ((_, req),) = t.sent
    assert req.code == RC.GET_ROUTEINFO_BY_TOPIC
    assert req.version >= 401
    assert req.ext == {"topic": "Orders", "acceptStandardJsonOnly": "true"}


async def test_missing_route_is_a_response_error_with_the_code_name() -> None:
    no_route = refuse(ResponseCode.TOPIC_NOT_EXIST, "No topic route info in name server for the topic: Nope")
    admin, _ = mock(routes({namesrv.GET_ROUTEINFO_BY_TOPIC: no_route}))
    with pytest.raises(ResponseError) as e:
        await admin.topic_route("Nope")
    assert (e.value.code, e.value.code_name, e.value.addr) == (17, "TOPIC_NOT_EXIST", NS)
    assert "TOPIC_NOT_EXIST (17)" in str(e.value)


async def test_cluster_info_with_a_slave() -> None:
    """(The legacy body with unquoted integer keys: tests/unit/test_wire_golden.py, from a real name server.)"""
    slave = "127.0.0.1:10915"
    info = cluster_info(("broker-a", 0, A), ("broker-a", 1, slave), ("broker-b", 0, B))
    admin, _ = mock(routes({namesrv.GET_BROKER_CLUSTER_INFO: ok(info)}))
    got = await admin.cluster_info()
    assert got.clusters == {"DefaultCluster": ["broker-a", "broker-b"]}
    assert got.brokers["broker-a"].broker_addrs == {0: A, 1: slave}
    assert got.role_of(slave)[1] == 1


class _GarbageNamesrv(MockTransport):
    """A name server answering a body no declaration reads (hostile input: raw bytes, past the mock)."""

    async def request(self, addr: str, cmd: RemotingCommand, timeout: float | None = None) -> RemotingCommand:
        if addr == NS:
            return cmd.response(body=b"[" * 100_000)  # JSON nested far too deep
        return await super().request(addr, cmd, timeout)


async def test_a_name_server_with_an_unreadable_answer_is_skipped_like_a_dead_one() -> None:
    for _ in range(8):  # whichever the random start is, the good one answers
        t = _GarbageNamesrv(routes({namesrv.GET_BROKER_CLUSTER_INFO: ok(ClusterInfo())}))
        admin = AdminClient([NS, NS2], transport=t, timeout=0.5)
        assert (await admin.cluster_info()).clusters == {}


def old_broker(table: dict[str, TopicConfig]) -> dict[Any, Any]:
    """The topic requests as Apache 4.9.8 answers them (no GET_TOPIC_CONFIG; a create keeps neither the
    attributes nor the order flag), over ``table``."""

    def create(req: Decoded[topics.CreateTopicHeader, None], _addr: str) -> Answer:
        table[req.header.topic] = req.header.config().with_(attributes={}, order=False)
        return ok()

    return {
        namesrv.GET_BROKER_CLUSTER_INFO: ok(two_brokers()),
        topics.GET_ALL_TOPIC_CONFIG: lambda _req, _addr: ok(dict(table)),
        topics.UPDATE_AND_CREATE_TOPIC: create,
    }


async def test_created_then_unchanged_then_updated_on_an_old_broker() -> None:
    table: dict[str, TopicConfig] = {}
    admin, t = mock(routes(old_broker(table)), version=409)
    a = Target("broker-a", A)
    first = await admin.update_topic(a, TopicChange("Orders"))
    assert first.status == Status.CREATED and first.data == ORDERS
    assert table["Orders"].write_queue_nums == 8
    second = await admin.update_topic(a, TopicChange("Orders"))
    assert second.status == Status.UNCHANGED
    assert t.codes_sent_to(A).count(RC.UPDATE_AND_CREATE_TOPIC) == 1  # nothing written when nothing would change
    third = await admin.update_topic(a, TopicChange("Orders", write_queue_nums=4))
    assert third.status == Status.UPDATED and third.changes == {"writeQueueNums": (8, 4)}
    assert table["Orders"].write_queue_nums == 4


async def test_old_broker_falls_back_to_the_full_topic_table_once() -> None:
    admin, t = mock(routes(old_broker({})), version=409)
    await admin.update_topic(Target("broker-a", A), TopicChange("Orders"))
    await admin.update_topic(Target("broker-a", A), TopicChange("Orders"))
    codes = t.codes_sent_to(A)
    assert codes.count(RC.GET_TOPIC_CONFIG) == 1  # learnt that 351 is unsupported
    assert codes.count(RC.GET_ALL_TOPIC_CONFIG) == 2


async def test_old_broker_that_drops_order_and_attributes_still_reports_unchanged() -> None:
    admin, _ = mock(routes(old_broker({})), version=409)
    fifo = TopicChange("Orders", order=True, attributes={"message.type": "FIFO"})
    assert (await admin.update_topic(Target("broker-a", A), fifo)).status == Status.CREATED
    assert (await admin.update_topic(Target("broker-a", A), fifo)).status == Status.UNCHANGED


async def test_cluster_fan_out_is_concurrent_and_continues_past_failures() -> None:
    arrived = {addr: asyncio.Event() for addr in (A, B, C)}

    async def broker(req: Decoded[Any, Any], addr: str) -> Answer:
        if addr == D:
            await asyncio.Event().wait()  # never answers (a SIGSTOPped broker)
        arrived[addr].set()
        # Every broker waits until all have been asked: a sequential fan-out would time out here.
        await asyncio.wait_for(asyncio.gather(*(e.wait() for e in arrived.values())), 5)
        if req.cmd.code == RC.GET_TOPIC_CONFIG:
            return refuse(ResponseCode.TOPIC_NOT_EXIST, "No topic in this broker.")
        if addr == B:
            return refuse(ResponseCode.SYSTEM_ERROR, "CODE: 1 DESC: disk full\nstack trace line")
        return ok()

    info = cluster_info(("broker-a", 0, A), ("broker-b", 0, B), ("broker-c", 0, C), ("broker-d", 0, D))

    def handler(req: Decoded[Any, Any], addr: str) -> Any:
        return ok(info) if addr == NS else broker(req, addr)

    admin, _ = mock(handler)
    results = await admin.update_topic_on(await admin.targets(None, "DefaultCluster"), TopicChange("Orders"))
    by_name = {r.name: r for r in results}
    assert [r.name for r in results] == ["broker-a", "broker-b", "broker-c", "broker-d"]
    assert by_name["broker-a"].status == by_name["broker-c"].status == Status.CREATED
    assert by_name["broker-b"].status == Status.FAILED
    assert by_name["broker-b"].reason == "SYSTEM_ERROR (1): CODE: 1 DESC: disk full"
    assert by_name["broker-b"].code == 1 and isinstance(by_name["broker-b"].error, ResponseError)  # not from the text
    assert by_name["broker-a"].code is None and by_name["broker-a"].error is None
    assert by_name["broker-d"].status == Status.FAILED and "no answer" in by_name["broker-d"].reason
    assert by_name["broker-d"].code is None and by_name["broker-d"].error is not None  # no answer, so no code
    assert by_name["broker-d"].addr == D
    assert outcome(results) == "partial"


async def test_fan_out_to_an_unreachable_broker() -> None:
    def handler(req: Decoded[Any, Any], addr: str) -> Answer:
        if req.cmd.code == RC.GET_BROKER_CLUSTER_INFO:
            return ok(two_brokers())
        return refuse(ResponseCode.TOPIC_NOT_EXIST, "No topic in this broker.") if req.cmd.code == 351 else ok()

    admin, _ = mock(handler, down=frozenset({B}))
    results = await admin.update_topic_on(await admin.targets(None, "DefaultCluster"), TopicChange("Orders"))
    assert [r.status for r in results] == [Status.CREATED, Status.FAILED]
    assert "refused" in results[1].reason


async def test_broker_name_without_a_master_is_a_failed_row() -> None:
    info = cluster_info(("broker-a", 0, A), ("broker-s", 1, "127.0.0.1:10955"))
    no_topic = refuse(ResponseCode.TOPIC_NOT_EXIST, "No topic in this broker.")
    table = {namesrv.GET_BROKER_CLUSTER_INFO: ok(info), topics.GET_TOPIC_CONFIG: no_topic}
    admin, _ = mock(routes({**table, topics.UPDATE_AND_CREATE_TOPIC: ok()}))
    results = await admin.update_topic_on(await admin.targets(None, "DefaultCluster"), TopicChange("Orders"))
    assert [(r.name, r.status) for r in results] == [("broker-a", Status.CREATED), ("broker-s", Status.FAILED)]
    assert "no master" in results[1].reason


async def test_unknown_cluster_lists_the_known_ones() -> None:
    admin, _ = mock(routes({namesrv.GET_BROKER_CLUSTER_INFO: ok(two_brokers())}))
    with pytest.raises(UnknownCluster) as e:
        await admin.targets(None, "Nope")
    assert e.value.known == ["DefaultCluster"]
    assert "'Nope'" in str(e.value) and "DefaultCluster" in str(e.value)


async def test_kv_put_and_delete_go_to_every_name_server() -> None:
    t = MockTransport(routes({namesrv_admin.PUT_KV_CONFIG: ok(), namesrv_admin.DELETE_KV_CONFIG: ok()}), down={NS3})
    admin = AdminClient([NS, NS2, NS3], transport=t, timeout=0.5)
    results = await admin.put_kv_config(ORDER_TOPIC_CONFIG, "Orders", "broker-a:8")
    assert [(r.addr, r.status) for r in results] == [(NS, Status.WRITTEN), (NS2, Status.WRITTEN), (NS3, Status.FAILED)]
    puts = [(a, c.ext) for a, c in t.sent if c.code == RC.PUT_KV_CONFIG]
    sent = {"namespace": ORDER_TOPIC_CONFIG, "key": "Orders", "value": "broker-a:8"}
    assert puts == [(NS, sent), (NS2, sent), (NS3, sent)]
    deleted = await admin.delete_kv_config(ORDER_TOPIC_CONFIG, "Orders")
    assert [r.status for r in deleted] == [Status.DELETED, Status.DELETED, Status.FAILED]


async def test_get_kv_config_missing_is_none() -> None:
    admin, _ = mock(routes({namesrv_admin.GET_KV_CONFIG: refuse(ResponseCode.QUERY_NOT_FOUND, "No config item")}))
    assert await admin.get_kv_config(ORDER_TOPIC_CONFIG, "Orders") is None


async def test_order_conf_merge_keeps_other_brokers() -> None:
    kv = {"Orders": "broker-b:4;broker-a:2"}

    def put(req: Decoded[namesrv_admin.PutKvHeader, None], _addr: str) -> Answer:
        kv[req.header.key] = req.header.value
        return ok()

    def get(req: Decoded[namesrv_admin.KvHeader, None], _addr: str) -> Answer:
        return ok(header=namesrv_admin.KvValueHeader(value=kv[req.header.key]))

    admin, _ = mock(routes({namesrv_admin.GET_KV_CONFIG: get, namesrv_admin.PUT_KV_CONFIG: put}))
    value, _ = await admin.set_order_conf("Orders", {"broker-a": 8}, merge=True)
    assert value == "broker-a:8;broker-b:4" == kv["Orders"]
    value, _ = await admin.set_order_conf("Orders", {"broker-c": 8}, merge=False)
    assert value == "broker-c:8" == kv["Orders"]


async def test_delete_keeps_the_route_while_a_broker_still_holds_the_topic() -> None:
    def handler(req: Decoded[Any, Any], addr: str) -> Answer:
        if req.cmd.code == RC.GET_BROKER_CLUSTER_INFO:
            return ok(two_brokers())
        if req.cmd.code == RC.GET_TOPIC_CONFIG:
            return ok(StaticTopicConfig(ORDERS))
        if addr == B:
            return refuse(ResponseCode.SYSTEM_ERROR, "The topic[Orders] is conflict with system topic.")
        return ok()

    admin, t = mock(handler)
    results = await admin.delete_topic("DefaultCluster", "Orders")
    assert [(r.name, r.status) for r in results] == [("broker-a", Status.DELETED), ("broker-b", Status.FAILED)]
    assert RC.DELETE_TOPIC_IN_NAMESRV not in [c.code for _, c in t.sent]


async def test_owned_transport_is_closed_but_an_injected_one_is_left_open() -> None:
    t = MockTransport(routes({namesrv.GET_BROKER_CLUSTER_INFO: ok(two_brokers())}))
    async with AdminClient([NS], transport=t) as admin:
        await admin.cluster_info()
    assert not t.closed


# --- what it achieves on a broker (the embedded servers) ---------------------------------------------------------


@pytest.fixture
async def admin(embedded: ThreadedCluster):
    async with AdminClient([embedded.namesrv_addr], timeout=10) as client:
        yield client


def on(embedded: ThreadedCluster, name: str = "broker-a") -> Target:
    return Target(name, embedded.addr[name])


async def held(admin: AdminClient, target: Target, topic: str) -> TopicConfig | None:
    return (await admin.read_topic_config(target.addr, topic))[0]


async def test_created_then_unchanged_then_updated_with_the_changes(embedded, admin) -> None:
    a = on(embedded)
    first = await admin.update_topic(a, TopicChange("Created"))
    assert first.status == Status.CREATED and first.data == ORDERS.with_(topic_name="Created")
    assert (await held(admin, a, "Created")).write_queue_nums == 8
    assert (await admin.update_topic(a, TopicChange("Created"))).status == Status.UNCHANGED
    third = await admin.update_topic(a, TopicChange("Created", write_queue_nums=4))
    assert third.status == Status.UPDATED and third.changes == {"writeQueueNums": (8, 4)}
    assert (await held(admin, a, "Created")).write_queue_nums == 4


async def test_an_update_keeps_what_it_does_not_set(embedded, admin) -> None:
    a = on(embedded)
    start = TopicChange("Kept", read_queue_nums=16, write_queue_nums=16, attributes={"message.type": "FIFO"})
    await admin.update_topic(a, start)
    result = await admin.update_topic(a, TopicChange("Kept", perm=4))
    assert result.changes == {"perm": (6, 4)}
    want = TopicConfig("Kept", 16, 16, perm=4, attributes={"message.type": "FIFO"})
    assert await held(admin, a, "Kept") == want
    assert (await admin.update_topic(a, TopicChange("Kept", perm=4))).status == Status.UNCHANGED


async def test_attribute_operations_set_and_remove_keys(embedded, admin) -> None:
    a = on(embedded)
    await admin.update_topic(a, TopicChange("Attrs", attributes={"message.type": "NORMAL", "queue.type": "SimpleCQ"}))
    result = await admin.update_topic(a, TopicChange("Attrs", attributes={"message.type": None}))
    assert result.changes == {
        "attributes": ({"message.type": "NORMAL", "queue.type": "SimpleCQ"}, {"queue.type": "SimpleCQ"})
    }
    assert (await held(admin, a, "Attrs")).attributes == {"queue.type": "SimpleCQ"}
    # queue.type is fixed at creation (Apache's TopicAttributes): the fake let it be removed
    (refused,) = await admin.update_topic_on([a], TopicChange("Attrs", attributes={"queue.type": None}))
    assert refused.status == Status.FAILED and "unchangeable attribute. key: queue.type" in refused.reason


async def test_an_unsupported_attribute_key_is_refused_by_the_broker(embedded, admin) -> None:
    a = on(embedded)
    (result,) = await admin.update_topic_on([a], TopicChange("Bogus", attributes={"bogus.key": "1"}))
    assert result.status == Status.FAILED and "unsupported key: bogus.key" in result.reason
    assert await held(admin, a, "Bogus") is None


async def test_create_only_leaves_an_existing_topic_alone(embedded, admin) -> None:
    a = on(embedded)
    await admin.update_topic(a, TopicChange("Once"))
    result = await admin.update_topic(a, TopicChange("Once", write_queue_nums=2), create_only=True)
    assert result.status == Status.UNCHANGED
    assert await held(admin, a, "Once") == ORDERS.with_(topic_name="Once")


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
async def test_each_compared_field_makes_an_update_on_a_current_broker(embedded, admin, change: dict) -> None:
    a, name = on(embedded), f"Each{len(str(change))}{next(iter(change))}"
    await admin.update_topic(a, TopicChange(name))
    assert (await admin.update_topic(a, TopicChange(name, **change))).status == Status.UPDATED


async def test_runtime_info_and_topic_stats(embedded, admin) -> None:
    a = on(embedded)
    info = await admin.broker_runtime_info(a.addr)
    assert info["brokerVersionDesc"].startswith("V5_")
    await admin.update_topic(a, TopicChange("Stats", read_queue_nums=2, write_queue_nums=2))
    stats = await admin.topic_stats(a.addr, "Stats")
    assert [(q.queue_id, q.max_offset) for q in stats] == [(0, 0), (1, 0)]


async def test_delete_topic_reports_brokers_then_name_servers(embedded, admin) -> None:
    targets = await admin.targets(None, "DefaultCluster")
    await admin.update_topic_on(targets, TopicChange("Gone"))
    results = await admin.delete_topic("DefaultCluster", "Gone")
    assert [(r.name, r.status) for r in results] == [
        ("broker-a", Status.DELETED),
        ("broker-b", Status.DELETED),
        ("namesrv", Status.DELETED),
    ]
    assert [await held(admin, t, "Gone") for t in targets] == [None, None]
    with pytest.raises(ResponseError) as e:
        await admin.topic_route("Gone")
    assert e.value.code == ResponseCode.TOPIC_NOT_EXIST


async def test_deleting_a_topic_nobody_has_reports_not_found(embedded, admin) -> None:
    results = await admin.delete_topic("DefaultCluster", "Nope")
    assert [(r.name, r.status) for r in results] == [("broker-a", Status.NOT_FOUND), ("broker-b", Status.NOT_FOUND)]
