"""updateTopic, topicRoute, topicList, topicStatus, deleteTopic, updateOrderConf through the CLI entry point: what
they do to the brokers and name server against the embedded servers (``live``, each test its own topic names),
what they send and how they show other answers (a slave, a hanging broker, order conf) through scripted answers."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mqadmin.model.order import ORDER_TOPIC_CONFIG
from mqadmin.model.route import BrokerData, QueueData, TopicRouteData
from mqadmin.model.rpc import namesrv, namesrv_admin, topics
from mqadmin.model.rpc.spec import Decoded
from mqadmin.model.stats import QueueOffsets, TopicStats
from mqadmin.model.topic import TopicConfig
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode
from tests.embedded import ThreadedCluster
from tests.mock_transport import Answer, MockTransport, cluster_info, ok, refuse
from tests.unit.cli_helpers import A, B, Cli, assert_one_line_error, codes, rows, scripted

NS, NS2 = "127.0.0.1:9876", "127.0.0.1:9877"
NO_TOPIC = refuse(ResponseCode.TOPIC_NOT_EXIST, "No topic in this broker.")
NO_ROUTE = refuse(ResponseCode.TOPIC_NOT_EXIST, "No topic route info in name server for the topic: Nope")


def creating(hang: frozenset[str] = frozenset()) -> dict[Any, Any]:
    """Brokers without the topic that accept its creation; those in ``hang`` never answer."""

    async def answer(req: Decoded[Any, Any], addr: str) -> Answer:
        if addr in hang:
            await asyncio.Event().wait()
        return NO_TOPIC if req.cmd.code == RC.GET_TOPIC_CONFIG else ok()

    return {topics.GET_TOPIC_CONFIG: answer, topics.UPDATE_AND_CREATE_TOPIC: answer}


def kv_store(kv: dict[tuple[str, str, str], str]) -> dict[Any, Any]:
    """Name servers keeping KV entries: ``kv[(name server, namespace, key)]``."""

    def put(req: Decoded[namesrv_admin.PutKvHeader, None], addr: str) -> Answer:
        kv[(addr, req.header.namespace, req.header.key)] = req.header.value
        return ok()

    def get(req: Decoded[namesrv_admin.KvHeader, None], addr: str) -> Answer:
        value = kv.get((addr, req.header.namespace, req.header.key))
        if value is None:
            return refuse(ResponseCode.QUERY_NOT_FOUND, "No config item")
        return ok(header=namesrv_admin.KvValueHeader(value=value))

    def delete(req: Decoded[namesrv_admin.KvHeader, None], addr: str) -> Answer:
        kv.pop((addr, req.header.namespace, req.header.key), None)
        return ok()

    return {namesrv_admin.PUT_KV_CONFIG: put, namesrv_admin.GET_KV_CONFIG: get, namesrv_admin.DELETE_KV_CONFIG: delete}


# --- updateTopic ---------------------------------------------------------------------------------------------------


def test_update_topic_on_a_cluster_then_unchanged_then_updated(live: Cli, embedded: ThreadedCluster) -> None:
    a, b = embedded.addr["broker-a"], embedded.addr["broker-b"]
    r = live("updateTopic", "-c", "DefaultCluster", "-t", "Thrice")
    assert r.code == 0, r.err
    assert rows(r.out) == [["BROKER", "ADDRESS", "RESULT"], ["broker-a", a, "created"], ["broker-b", b, "created"]]
    assert (
        embedded.topic("broker-a", "Thrice") == embedded.topic("broker-b", "Thrice") == TopicConfig("Thrice", 8, 8, 6)
    )

    r = live("updateTopic", "-c", "DefaultCluster", "-t", "Thrice")
    assert (r.code, [row[2] for row in rows(r.out)[1:]]) == (0, ["unchanged", "unchanged"])

    r = live("updateTopic", "-c", "DefaultCluster", "-t", "Thrice", "-w", "4")
    assert (r.code, [row[2] for row in rows(r.out)[1:]]) == (0, ["updated", "updated"])
    assert embedded.topic("broker-a", "Thrice").write_queue_nums == 4


def test_update_topic_json_shape(live: Cli, embedded: ThreadedCluster) -> None:
    a, b = embedded.addr["broker-a"], embedded.addr["broker-b"]
    r = live("--format", "json", "updateTopic", "-c", "DefaultCluster", "-t", "Shape", "-r", "4", "-w", "4", "-p", "4")
    assert r.code == 0
    config = {
        "readQueueNums": 4,
        "writeQueueNums": 4,
        "perm": 4,
        "permString": "R--",
        "order": False,
        "topicSysFlag": 0,
        "topicFilterType": "SINGLE_TAG",
        "attributes": {},
    }
    assert r.json() == {
        "topic": "Shape",
        "target": {"cluster": "DefaultCluster"},
        "results": [
            {"name": "broker-a", "addr": a, "status": "created", "reason": None, "changes": {}, "config": config},
            {"name": "broker-b", "addr": b, "status": "created", "reason": None, "changes": {}, "config": config},
        ],
        "orderConf": None,
        "outcome": "ok",
    }


def test_a_hanging_broker_is_a_partial_failure_with_the_other_done(monkeypatch, capsys) -> None:
    cli = scripted(monkeypatch, capsys, creating(hang=frozenset({B})))
    r = cli("--timeout", "0.2", "--format", "json", "updateTopic", "-c", "DefaultCluster", "-t", "Orders")
    assert r.code == 3
    doc = r.json()
    assert [x["status"] for x in doc["results"]] == ["created", "failed"]
    assert "no answer within 0.2s" in doc["results"][1]["reason"]
    assert doc["outcome"] == "partial"
    assert RC.UPDATE_AND_CREATE_TOPIC in codes(cli, A)
    assert_one_line_error(r, "failed on 1 of 2 targets", "broker-b")


def test_every_broker_failing_is_exit_1_and_the_table_says_why(monkeypatch, capsys) -> None:
    cli = scripted(monkeypatch, capsys, creating(hang=frozenset({A, B})))
    r = cli("--timeout", "0.2", "updateTopic", "-c", "DefaultCluster", "-t", "Orders")
    assert r.code == 1
    assert [row[2] for row in rows(r.out)[1:]] == ["failed", "failed"]
    assert "REASON" in r.out
    assert_one_line_error(r, "failed on every target")


def test_update_topic_asks_the_name_server_once(monkeypatch, capsys) -> None:
    """The cluster info read to check the name serves to find the brokers too (one round trip, not two)."""
    cli = scripted(monkeypatch, capsys, creating())
    assert cli("updateTopic", "-c", "DefaultCluster", "-t", "Orders").code == 0
    assert codes(cli, NS) == [RC.GET_BROKER_CLUSTER_INFO]


def test_update_topic_on_one_broker(live: Cli, embedded: ThreadedCluster) -> None:
    b = embedded.addr["broker-b"]
    r = live("updateTopic", "-b", b, "-t", "OneFifo", "-a", "+message.type=fifo")
    assert r.code == 0
    assert rows(r.out)[1] == ["broker-b", b, "created"]
    assert embedded.topic("broker-b", "OneFifo").attributes == {"message.type": "FIFO"}
    assert embedded.topic("broker-a", "OneFifo") is None


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["-t", "Orders"], "give -b"),
        (["-t", "Orders", "-b", "127.0.0.1:10911", "-c", "DefaultCluster"], "not both"),
        (["-c", "DefaultCluster", "-t", "bad topic!"], "illegal characters"),
        (["-c", "DefaultCluster", "-t", "x" * 128], "at most 127"),
        (["-c", "DefaultCluster", "-t", "TBW102"], "system topic"),
        (["-c", "DefaultCluster", "-t", "rmq_sys_mine"], "system topic"),
        (["-c", "DefaultCluster", "-t", "DefaultCluster"], "name of a cluster"),
        (["-c", "DefaultCluster", "-t", "broker-a"], "name of a broker"),
        (["-c", "DefaultCluster", "-t", "Orders", "-p", "5"], "-p 5"),
        (["-c", "DefaultCluster", "-t", "Orders", "-o", "maybe"], "-o takes true or false"),
        (["-c", "DefaultCluster", "-t", "Orders", "-a", "message.type=FIFO"], "+key=value"),
        (["-c", "DefaultCluster", "-t", "Orders", "-a", "+message.type=QUEUE"], "not one of"),
        (["-c", "Nope", "-t", "Orders"], "known clusters: DefaultCluster"),
    ],
)
def test_bad_input_is_a_usage_error_and_nothing_is_created(monkeypatch, capsys, args: list[str], fragment) -> None:
    cli = scripted(monkeypatch, capsys, creating())
    r = cli("updateTopic", *args)
    assert r.code == 2
    assert_one_line_error(r, fragment)
    assert RC.UPDATE_AND_CREATE_TOPIC not in codes(cli)


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["updateTopic", "-c", "DefaultCluster"], "Missing option '-t'"),
        (["updateTopic", "-c", "DefaultCluster", "-t", "T", "-w", "many"], "'-w'"),
        (["updateTopic", "-c", "DefaultCluster", "-t", "T", "-w", "0"], "'-w'"),
        (["--format", "xml", "topicList"], "'--format'"),
        (["noSuchCommand"], "No such command"),
    ],
)
def test_option_parsing_errors_are_one_line_usage_errors(monkeypatch, capsys, args: list[str], fragment) -> None:
    r = scripted(monkeypatch, capsys, {})(*args)
    assert r.code == 2
    assert_one_line_error(r, fragment, "--help")


def test_slave_address_is_refused_with_the_master_as_hint(monkeypatch, capsys) -> None:
    slave = "127.0.0.1:10915"
    info = cluster_info(("broker-a", 0, A), ("broker-a", 1, slave), ("broker-b", 0, B))
    cli = scripted(monkeypatch, capsys, {namesrv.GET_BROKER_CLUSTER_INFO: ok(info), **creating()})
    r = cli("updateTopic", "-b", slave, "-t", "Orders")
    assert r.code == 2
    assert_one_line_error(r, "is a slave", f"-b {A}")
    assert codes(cli, slave) == []


def test_order_with_cluster_writes_order_conf_to_every_name_server(monkeypatch, capsys) -> None:
    kv: dict[tuple[str, str, str], str] = {}
    cli = scripted(monkeypatch, capsys, creating() | kv_store(kv), namesrvs=[NS, NS2])
    r = cli("--format", "json", "updateTopic", "-c", "DefaultCluster", "-t", "Orders", "-o", "TRUE", "-w", "4")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["orderConf"]["value"] == "broker-a:4;broker-b:4"
    assert [x["status"] for x in doc["orderConf"]["results"]] == ["written", "written"]
    assert kv == {(ns, ORDER_TOPIC_CONFIG, "Orders"): "broker-a:4;broker-b:4" for ns in (NS, NS2)}
    assert isinstance(cli.transport, MockTransport)
    (create, *_) = [c for a, c in cli.transport.sent if a == A and c.code == RC.UPDATE_AND_CREATE_TOPIC]
    assert create.ext["order"] == "true"


def test_order_with_one_broker_merges_its_entry(monkeypatch, capsys) -> None:
    kv = {(NS, ORDER_TOPIC_CONFIG, "Orders"): "broker-a:8"}
    cli = scripted(monkeypatch, capsys, creating() | kv_store(kv))
    r = cli("updateTopic", "-b", B, "-t", "Orders", "-o", "true", "-w", "2")
    assert r.code == 0, r.err
    assert kv[(NS, ORDER_TOPIC_CONFIG, "Orders")] == "broker-a:8;broker-b:2"
    assert "orderTopicConf broker-a:8;broker-b:2" in r.out


def test_no_name_server_configured(monkeypatch, capsys) -> None:
    cli = scripted(monkeypatch, capsys, {})
    monkeypatch.delenv("NAMESRV_ADDR")
    r = cli("updateTopic", "-c", "DefaultCluster", "-t", "Orders")
    assert r.code == 2
    assert_one_line_error(r, "pass -n host:9876 or set NAMESRV_ADDR")


def test_unreachable_name_servers_exit_4(monkeypatch, capsys) -> None:
    cli = scripted(monkeypatch, capsys, {}, down=frozenset({NS, "127.0.0.1:1"}))
    r = cli("topicRoute", "-t", "Orders", "-n", f"{NS};127.0.0.1:1")
    assert r.code == 4
    assert_one_line_error(r, "no name server answered", NS, "127.0.0.1:1", "NAMESRV_ADDR")


# --- topicRoute, topicList, topicStatus ----------------------------------------------------------------------------


def test_debug_shows_the_traceback(live: Cli) -> None:
    r = live("--debug", "topicRoute", "-t", "Nope")
    assert r.code == 1
    assert "Traceback" in r.err


def test_topic_route_table_json_and_list(monkeypatch, capsys) -> None:
    route = TopicRouteData(
        [BrokerData("DefaultCluster", "broker-a", {0: A}), BrokerData("DefaultCluster", "broker-b", {0: B})],
        [QueueData("broker-a", 8, 4, 6), QueueData("broker-b", 2, 2, 4)],
        "broker-a:4;broker-b:2",  # a name server with orderMessageEnable
    )
    cli = scripted(monkeypatch, capsys, {namesrv.GET_ROUTEINFO_BY_TOPIC: ok(route)})
    r = cli("topicRoute", "-t", "Orders")
    assert r.code == 0
    assert ["DefaultCluster", "broker-a", "0", "master", A] in rows(r.out)
    assert ["broker-a", "8", "4", "RW-", "0"] in rows(r.out)
    assert ["broker-b", "2", "2", "R--", "0"] in rows(r.out)
    assert "orderTopicConf: broker-a:4;broker-b:2" in r.out

    doc = cli("--format", "json", "topicRoute", "-t", "Orders").json()
    assert doc["brokers"][0] == {"cluster": "DefaultCluster", "broker": "broker-a", "addrs": {"0": A}}
    assert doc["queues"][1] == {
        "broker": "broker-b",
        "readQueueNums": 2,
        "writeQueueNums": 2,
        "perm": 4,
        "permString": "R--",
        "topicSysFlag": 0,
    }
    assert doc["orderTopicConf"] == "broker-a:4;broker-b:2"

    table = rows(cli("topicRoute", "-t", "Orders", "-l").out)
    assert table[1] == ["DefaultCluster", "broker-a", f"0={A}", "8", "4", "RW-"]
    assert table[-1] == ["Total:", "2", "10", "6"]


def test_topic_route_of_an_unknown_topic(live: Cli) -> None:
    r = live("topicRoute", "-t", "Nope")
    assert r.code == 1
    assert_one_line_error(r, "TOPIC_NOT_EXIST (17)", "topicList")
    assert r.out == ""


def test_topic_list(monkeypatch, capsys) -> None:
    cli = scripted(monkeypatch, capsys, {namesrv.GET_ALL_TOPIC_LIST_FROM_NAMESERVER: ok(["Zeta", "Alpha"])})
    assert cli("topicList").out == "Alpha\nZeta\n"
    assert cli("--format", "json", "topicList").json() == {"topics": ["Alpha", "Zeta"]}


def test_topic_list_shows_what_the_brokers_registered(live: Cli, embedded: ThreadedCluster) -> None:
    embedded.create_topic("broker-a", TopicConfig("Listed"))
    assert "Listed" in live("topicList").out.splitlines()


def test_topic_status_with_a_failing_broker(monkeypatch, capsys) -> None:
    route = TopicRouteData(
        [BrokerData("DefaultCluster", "broker-a", {0: A}), BrokerData("DefaultCluster", "broker-b", {0: B})],
        [QueueData("broker-a", 2, 2, 6), QueueData("broker-b", 2, 2, 6)],
    )
    hang: set[str] = set()

    async def stats(req: Decoded[topics.TopicHeader, None], addr: str) -> Answer:
        if addr in hang:
            await asyncio.Event().wait()
        name = "broker-a" if addr == A else "broker-b"
        return ok(
            TopicStats([QueueOffsets("Orders", name, 0, 0, 3, 1700000000000), QueueOffsets("Orders", name, 1, 0, 0, 0)])
        )

    cli = scripted(monkeypatch, capsys, {namesrv.GET_ROUTEINFO_BY_TOPIC: ok(route), topics.GET_TOPIC_STATS_INFO: stats})
    r = cli("--format", "json", "topicStatus", "-t", "Orders")
    assert r.code == 0
    doc = r.json()
    assert [(q["broker"], q["queueId"], q["maxOffset"]) for q in doc["queues"]] == [
        ("broker-a", 0, 3),
        ("broker-a", 1, 0),
        ("broker-b", 0, 3),
        ("broker-b", 1, 0),
    ]
    assert doc["queues"][1]["lastUpdateTimestamp"] is None
    hang.add(B)
    r = cli("--timeout", "0.2", "topicStatus", "-t", "Orders")
    assert r.code == 3
    assert ["broker-a", "1", "0", "0"] in rows(r.out)
    assert "Brokers that did not answer" in r.out


def test_topic_status_of_the_embedded_brokers(live: Cli, embedded: ThreadedCluster) -> None:
    for broker in ("broker-a", "broker-b"):
        embedded.create_topic(broker, TopicConfig("Status", 2, 2))
    doc = live("--format", "json", "topicStatus", "-t", "Status").json()
    assert [(q["broker"], q["queueId"], q["maxOffset"]) for q in doc["queues"]] == [
        ("broker-a", 0, 0),
        ("broker-a", 1, 0),
        ("broker-b", 0, 0),
        ("broker-b", 1, 0),
    ]


# --- deleteTopic, --if-not-exists, updateOrderConf -----------------------------------------------------------------


def test_delete_topic(live: Cli, embedded: ThreadedCluster) -> None:
    for broker in ("broker-a", "broker-b"):
        embedded.create_topic(broker, TopicConfig("Deleted"))
    r = live("--format", "json", "deleteTopic", "-t", "Deleted", "-c", "DefaultCluster")
    assert r.code == 0
    assert [(x["name"], x["status"]) for x in r.json()["results"]] == [
        ("broker-a", "deleted"),
        ("broker-b", "deleted"),
        ("namesrv", "deleted"),
    ]
    assert embedded.topic("broker-a", "Deleted") is None and embedded.topic("broker-b", "Deleted") is None
    assert "Deleted" not in live("topicList").out.splitlines()


def test_update_topic_if_not_exists_creates_where_missing_and_never_overwrites(live: Cli, embedded) -> None:
    embedded.create_topic("broker-a", TopicConfig("IfNot", 4, 4, 4))
    r = live("updateTopic", "-c", "DefaultCluster", "-t", "IfNot", "-r", "16", "-w", "16", "--if-not-exists")
    assert r.code == 0, r.err
    assert [row[2] for row in rows(r.out)[1:]] == ["unchanged", "created"]
    assert embedded.topic("broker-a", "IfNot") == TopicConfig("IfNot", 4, 4, 4)
    assert embedded.topic("broker-b", "IfNot") == TopicConfig("IfNot", 16, 16, 6)


def test_delete_topic_of_a_missing_topic_fails_unless_if_exists(live: Cli) -> None:
    r = live("deleteTopic", "-t", "Nope", "-c", "DefaultCluster")
    assert r.code == 1
    assert_one_line_error(r, "topic 'Nope' does not exist on cluster 'DefaultCluster'", "--if-exists")
    assert live("deleteTopic", "-t", "Nope", "-c", "DefaultCluster", "--if-exists").code == 0


def test_update_order_conf_put_get_delete(monkeypatch, capsys) -> None:
    kv: dict[tuple[str, str, str], str] = {}
    cli = scripted(monkeypatch, capsys, kv_store(kv), namesrvs=[NS, NS2])
    assert cli("updateOrderConf", "-t", "Orders", "-m", "put", "-v", "broker-b:4; broker-a:4").code == 0
    assert kv == {(ns, ORDER_TOPIC_CONFIG, "Orders"): "broker-a:4;broker-b:4" for ns in (NS, NS2)}
    assert cli("updateOrderConf", "-t", "Orders", "-m", "get").out == "broker-a:4;broker-b:4\n"
    assert cli("updateOrderConf", "-t", "Orders", "-m", "delete").code == 0
    assert kv == {}
    missing = cli("updateOrderConf", "-t", "Orders", "-m", "get")
    assert missing.code == 1
    assert_one_line_error(missing, "no orderTopicConf")
    bad = cli("updateOrderConf", "-t", "Orders", "-m", "put", "-v", "broker-a")
    assert bad.code == 2
