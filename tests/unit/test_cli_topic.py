"""updateTopic, topicRoute, topicList, topicStatus, deleteTopic, updateOrderConf through the CLI entry point."""

from __future__ import annotations

import pytest

from mqadmin.model.order import ORDER_TOPIC_CONFIG
from mqadmin.model.topic import TopicConfig
from mqadmin.wire.codes import RequestCode as RC
from tests.unit.cli_helpers import Cli, assert_one_line_error, rows
from tests.unit.fake_remoting import FakeBroker, FakeNamesrv, two_broker_cluster


def test_update_topic_on_a_cluster_then_unchanged_then_updated(cli: Cli, cluster) -> None:
    _, a, b = cluster
    r = cli("updateTopic", "-c", "DefaultCluster", "-t", "Orders")
    assert r.code == 0, r.err
    assert rows(r.out) == [
        ["BROKER", "ADDRESS", "RESULT"],
        ["broker-a", a.addr, "created"],
        ["broker-b", b.addr, "created"],
    ]
    assert a.topics["Orders"] == b.topics["Orders"] == TopicConfig("Orders", 8, 8, 6)

    r = cli("updateTopic", "-c", "DefaultCluster", "-t", "Orders")
    assert (r.code, [row[2] for row in rows(r.out)[1:]]) == (0, ["unchanged", "unchanged"])

    r = cli("updateTopic", "-c", "DefaultCluster", "-t", "Orders", "-w", "4")
    assert (r.code, [row[2] for row in rows(r.out)[1:]]) == (0, ["updated", "updated"])
    assert a.topics["Orders"].write_queue_nums == 4


def test_update_topic_json_shape(cli: Cli, cluster) -> None:
    _, a, b = cluster
    r = cli("--format", "json", "updateTopic", "-c", "DefaultCluster", "-t", "Orders", "-r", "4", "-w", "4", "-p", "4")
    assert r.code == 0
    doc = r.json()
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
    assert doc == {
        "topic": "Orders",
        "target": {"cluster": "DefaultCluster"},
        "results": [
            {"name": "broker-a", "addr": a.addr, "status": "created", "reason": None, "changes": {}, "config": config},
            {"name": "broker-b", "addr": b.addr, "status": "created", "reason": None, "changes": {}, "config": config},
        ],
        "orderConf": None,
        "outcome": "ok",
    }


def test_a_hanging_broker_is_a_partial_failure_with_the_other_done(cli: Cli, cluster) -> None:
    _, a, b = cluster
    b.hang = True
    r = cli("--timeout", "0.2", "--format", "json", "updateTopic", "-c", "DefaultCluster", "-t", "Orders")
    assert r.code == 3
    doc = r.json()
    assert [x["status"] for x in doc["results"]] == ["created", "failed"]
    assert "no answer within 0.2s" in doc["results"][1]["reason"]
    assert doc["outcome"] == "partial"
    assert "Orders" in a.topics
    assert_one_line_error(r, "failed on 1 of 2 targets", "broker-b")


def test_every_broker_failing_is_exit_1_and_the_table_says_why(cli: Cli, cluster) -> None:
    _, a, b = cluster
    a.hang = b.hang = True
    r = cli("--timeout", "0.2", "updateTopic", "-c", "DefaultCluster", "-t", "Orders")
    assert r.code == 1
    assert [row[2] for row in rows(r.out)[1:]] == ["failed", "failed"]
    assert "REASON" in r.out
    assert_one_line_error(r, "failed on every target")


def test_update_topic_asks_the_name_server_once(cli: Cli, cluster) -> None:
    """The cluster info read to check the name serves to find the brokers too (one round trip, not two)."""
    ns, _, _ = cluster
    assert cli("updateTopic", "-c", "DefaultCluster", "-t", "Orders").code == 0
    assert cli.transport.codes_sent_to(ns.addr) == [RC.GET_BROKER_CLUSTER_INFO]


def test_update_topic_on_one_broker(cli: Cli, cluster) -> None:
    _, a, b = cluster
    r = cli("updateTopic", "-b", b.addr, "-t", "Orders", "-a", "+message.type=fifo")
    assert r.code == 0
    assert rows(r.out)[1] == ["broker-b", b.addr, "created"]
    assert b.topics["Orders"].attributes == {"message.type": "FIFO"}
    assert "Orders" not in a.topics


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
def test_bad_input_is_a_usage_error_and_nothing_is_created(cli: Cli, cluster, args: list[str], fragment: str) -> None:
    r = cli("updateTopic", *args)
    assert r.code == 2
    assert_one_line_error(r, fragment)
    assert RC.UPDATE_AND_CREATE_TOPIC not in [c.code for _, c in cli.transport.sent]


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
def test_option_parsing_errors_are_one_line_usage_errors(cli: Cli, args: list[str], fragment: str) -> None:
    r = cli(*args)
    assert r.code == 2
    assert_one_line_error(r, fragment, "--help")


def test_slave_address_is_refused_with_the_master_as_hint(monkeypatch, capsys) -> None:
    ns, a, b = two_broker_cluster()
    slave = FakeBroker("broker-a", "127.0.0.1:10915", broker_id=1)
    ns.brokers.append(slave)
    cli = Cli(monkeypatch, capsys, ns, a, b, slave)
    r = cli("updateTopic", "-b", slave.addr, "-t", "Orders")
    assert r.code == 2
    assert_one_line_error(r, "is a slave", f"-b {a.addr}")
    assert cli.transport.codes_sent_to(slave.addr) == []


def test_order_with_cluster_writes_order_conf_to_every_name_server(monkeypatch, capsys) -> None:
    ns, a, b = two_broker_cluster()
    ns2 = FakeNamesrv("127.0.0.1:9877", ns.brokers)
    cli = Cli(monkeypatch, capsys, ns, ns2, a, b)
    r = cli("--format", "json", "updateTopic", "-c", "DefaultCluster", "-t", "Orders", "-o", "TRUE", "-w", "4")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["orderConf"]["value"] == "broker-a:4;broker-b:4"
    assert [x["status"] for x in doc["orderConf"]["results"]] == ["written", "written"]
    assert ns.kv[(ORDER_TOPIC_CONFIG, "Orders")] == ns2.kv[(ORDER_TOPIC_CONFIG, "Orders")] == "broker-a:4;broker-b:4"
    assert a.topics["Orders"].order


def test_order_with_one_broker_merges_its_entry(monkeypatch, capsys) -> None:
    ns, a, b = two_broker_cluster()
    ns.kv[(ORDER_TOPIC_CONFIG, "Orders")] = "broker-a:8"
    cli = Cli(monkeypatch, capsys, ns, a, b)
    r = cli("updateTopic", "-b", b.addr, "-t", "Orders", "-o", "true", "-w", "2")
    assert r.code == 0, r.err
    assert ns.kv[(ORDER_TOPIC_CONFIG, "Orders")] == "broker-a:8;broker-b:2"
    assert "orderTopicConf broker-a:8;broker-b:2" in r.out


def test_no_name_server_configured(monkeypatch, capsys) -> None:
    cli = Cli(monkeypatch, capsys)
    monkeypatch.delenv("NAMESRV_ADDR")
    r = cli("updateTopic", "-c", "DefaultCluster", "-t", "Orders")
    assert r.code == 2
    assert_one_line_error(r, "pass -n host:9876 or set NAMESRV_ADDR")


def test_unreachable_name_servers_exit_4(monkeypatch, capsys) -> None:
    ns, a, b = two_broker_cluster()
    ns.down = True
    cli = Cli(monkeypatch, capsys, ns, a, b)
    r = cli("topicRoute", "-t", "Orders", "-n", f"{ns.addr};127.0.0.1:1")
    assert r.code == 4
    assert_one_line_error(r, "no name server answered", ns.addr, "127.0.0.1:1", "NAMESRV_ADDR")


def test_debug_shows_the_traceback(cli: Cli) -> None:
    r = cli("--debug", "topicRoute", "-t", "Nope")
    assert r.code == 1
    assert "Traceback" in r.err


def test_topic_route_table_json_and_list(cli: Cli, cluster) -> None:
    ns, a, b = cluster
    a.topics["Orders"] = TopicConfig("Orders", 8, 4, 6)
    b.topics["Orders"] = TopicConfig("Orders", 2, 2, 4)
    ns.kv[(ORDER_TOPIC_CONFIG, "Orders")] = "broker-a:4;broker-b:2"
    ns.order_message_enable = True

    r = cli("topicRoute", "-t", "Orders")
    assert r.code == 0
    assert ["DefaultCluster", "broker-a", "0", "master", a.addr] in rows(r.out)
    assert ["broker-a", "8", "4", "RW-", "0"] in rows(r.out)
    assert ["broker-b", "2", "2", "R--", "0"] in rows(r.out)
    assert "orderTopicConf: broker-a:4;broker-b:2" in r.out

    doc = cli("--format", "json", "topicRoute", "-t", "Orders").json()
    assert doc["brokers"][0] == {"cluster": "DefaultCluster", "broker": "broker-a", "addrs": {"0": a.addr}}
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
    assert table[1] == ["DefaultCluster", "broker-a", f"0={a.addr}", "8", "4", "RW-"]
    assert table[-1] == ["Total:", "2", "10", "6"]


def test_topic_route_of_an_unknown_topic(cli: Cli) -> None:
    r = cli("topicRoute", "-t", "Nope")
    assert r.code == 1
    assert_one_line_error(r, "TOPIC_NOT_EXIST (17)", "topicList")
    assert r.out == ""


def test_topic_list(cli: Cli, cluster) -> None:
    _, a, b = cluster
    a.topics["Zeta"] = b.topics["Alpha"] = TopicConfig("x")
    assert cli("topicList").out == "Alpha\nZeta\n"
    assert cli("--format", "json", "topicList").json() == {"topics": ["Alpha", "Zeta"]}


def test_topic_status_with_a_failing_broker(cli: Cli, cluster) -> None:
    _, a, b = cluster
    a.topics["Orders"] = TopicConfig("Orders", 2, 2)
    b.topics["Orders"] = TopicConfig("Orders", 2, 2)
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
    b.hang = True
    r = cli("--timeout", "0.2", "topicStatus", "-t", "Orders")
    assert r.code == 3
    assert ["broker-a", "1", "0", "0"] in rows(r.out)
    assert "Brokers that did not answer" in r.out


def test_delete_topic(cli: Cli, cluster) -> None:
    _, a, b = cluster
    a.topics["Orders"] = b.topics["Orders"] = TopicConfig("Orders")
    r = cli("--format", "json", "deleteTopic", "-t", "Orders", "-c", "DefaultCluster")
    assert r.code == 0
    assert [(x["name"], x["status"]) for x in r.json()["results"]] == [
        ("broker-a", "deleted"),
        ("broker-b", "deleted"),
        ("namesrv", "deleted"),
    ]
    assert not a.topics and not b.topics


def test_update_topic_if_not_exists_creates_where_missing_and_never_overwrites(cli: Cli, cluster) -> None:
    _, a, b = cluster
    a.topics["Orders"] = TopicConfig("Orders", 4, 4, 4)
    r = cli("updateTopic", "-c", "DefaultCluster", "-t", "Orders", "-r", "16", "-w", "16", "--if-not-exists")
    assert r.code == 0, r.err
    assert [row[2] for row in rows(r.out)[1:]] == ["unchanged", "created"]
    assert a.topics["Orders"] == TopicConfig("Orders", 4, 4, 4)
    assert b.topics["Orders"] == TopicConfig("Orders", 16, 16, 6)


def test_delete_topic_of_a_missing_topic_fails_unless_if_exists(cli: Cli) -> None:
    r = cli("deleteTopic", "-t", "Nope", "-c", "DefaultCluster")
    assert r.code == 1
    assert_one_line_error(r, "topic 'Nope' does not exist on cluster 'DefaultCluster'", "--if-exists")
    assert cli("deleteTopic", "-t", "Nope", "-c", "DefaultCluster", "--if-exists").code == 0


def test_update_order_conf_put_get_delete(monkeypatch, capsys) -> None:
    ns, a, b = two_broker_cluster()
    ns2 = FakeNamesrv("127.0.0.1:9877")
    cli = Cli(monkeypatch, capsys, ns, ns2)
    assert cli("updateOrderConf", "-t", "Orders", "-m", "put", "-v", "broker-b:4; broker-a:4").code == 0
    assert ns.kv == ns2.kv == {(ORDER_TOPIC_CONFIG, "Orders"): "broker-a:4;broker-b:4"}
    assert cli("updateOrderConf", "-t", "Orders", "-m", "get").out == "broker-a:4;broker-b:4\n"
    assert cli("updateOrderConf", "-t", "Orders", "-m", "delete").code == 0
    assert ns.kv == ns2.kv == {}
    missing = cli("updateOrderConf", "-t", "Orders", "-m", "get")
    assert missing.code == 1
    assert_one_line_error(missing, "no orderTopicConf")
    bad = cli("updateOrderConf", "-t", "Orders", "-m", "put", "-v", "broker-a")
    assert bad.code == 2
