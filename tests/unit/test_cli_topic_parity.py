"""updateTopicPerm, updateTopicList, topicClusterList, allocateMQ and topicList -c through the CLI entry
point, against fake brokers of several versions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mqadmin.model.topic import TopicConfig
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode
from tests.cli.test_json_contract import documented_shapes, mismatch
from tests.unit.cli_helpers import Cli, assert_one_line_error, rows
from tests.unit.fake_remoting import FakeBroker, two_broker_cluster

V4_9_8, V5_2_0, V5_3_3 = 409, 453, 479


def _matches_docs(command: str, doc: object) -> None:
    reasons = [mismatch(shape, doc) for shape in documented_shapes()[command]]
    assert not all(reasons), reasons


# --- updateTopicPerm ---------------------------------------------------------------------------------


def test_update_topic_perm_changes_only_the_permission(cli: Cli, cluster) -> None:
    _, a, b = cluster
    a.topics["Orders"] = TopicConfig("Orders", 16, 16, 6, attributes={"message.type": "FIFO"})
    b.topics["Orders"] = TopicConfig("Orders", 4, 4, 6)
    r = cli("updateTopicPerm", "-c", "DefaultCluster", "-t", "Orders", "-p", "4")
    assert r.code == 0, r.err
    assert rows(r.out)[1:] == [
        ["broker-a", a.addr, "updated", "perm", "6→4"],
        ["broker-b", b.addr, "updated", "perm", "6→4"],
    ]
    assert a.topics["Orders"] == TopicConfig("Orders", 16, 16, 4, attributes={"message.type": "FIFO"})
    assert b.topics["Orders"] == TopicConfig("Orders", 4, 4, 4)
    again = cli("updateTopicPerm", "-c", "DefaultCluster", "-t", "Orders", "-p", "4")
    assert [row[2] for row in rows(again.out)[1:]] == ["unchanged", "unchanged"]
    assert cli.transport.codes_sent_to(a.addr).count(RC.UPDATE_AND_CREATE_TOPIC) == 1


def test_update_topic_perm_never_creates_the_topic(cli: Cli, cluster) -> None:
    _, a, b = cluster
    a.topics["Orders"] = TopicConfig("Orders", 8, 8, 6)
    r = cli("--format", "json", "updateTopicPerm", "-c", "DefaultCluster", "-t", "Orders", "-p", "2")
    assert r.code == 0, r.err
    assert [x["status"] for x in r.json()["results"]] == ["updated", "not found"]
    assert "Orders" not in b.topics
    _matches_docs("updateTopicPerm", r.json())

    missing = cli("updateTopicPerm", "-c", "DefaultCluster", "-t", "Nothing", "-p", "2")
    assert missing.code == 1
    assert_one_line_error(missing, "'Nothing' does not exist")


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["-c", "DefaultCluster", "-t", "Orders", "-p", "7"], "-p 7"),
        (["-t", "Orders", "-p", "4"], "give -b"),
        (["-c", "DefaultCluster", "-t", "TBW102", "-p", "4"], "system topic"),
    ],
)
def test_update_topic_perm_usage_errors(cli: Cli, args: list[str], fragment: str) -> None:
    r = cli("updateTopicPerm", *args)
    assert r.code == 2
    assert_one_line_error(r, fragment)
    assert RC.UPDATE_AND_CREATE_TOPIC not in [c.code for _, c in cli.transport.sent]


def test_update_topic_perm_refuses_a_slave(monkeypatch, capsys) -> None:
    ns, a, b = two_broker_cluster()
    slave = FakeBroker("broker-a", "127.0.0.1:10915", broker_id=1)
    ns.brokers.append(slave)
    cli = Cli(monkeypatch, capsys, ns, a, b, slave)
    r = cli("updateTopicPerm", "-b", slave.addr, "-t", "Orders", "-p", "4")
    assert r.code == 2
    assert_one_line_error(r, "is a slave", f"-b {a.addr}")


# --- updateTopicList ---------------------------------------------------------------------------------


def _file(tmp_path: Path, entries: object, name: str = "topics.json") -> str:
    path = tmp_path / name
    path.write_text(entries if isinstance(entries, str) else json.dumps(entries))
    return str(path)


def _list_bodies(cli: Cli, addr: str) -> list[list[str]]:
    """The topic names of each UPDATE_AND_CREATE_TOPIC_LIST request sent to ``addr``."""
    return [
        [t["topicName"] for t in fastjson.loads(c.body)["topicConfigList"]]
        for a, c in cli.transport.sent
        if a == addr and c.code == RC.UPDATE_AND_CREATE_TOPIC_LIST
    ]


def test_update_topic_list_sends_only_what_changed_in_one_list_request(cli: Cli, cluster, tmp_path: Path) -> None:
    _, a, b = cluster
    for broker in (a, b):
        broker.topics["Same"] = TopicConfig("Same", 16, 16, 6)
        broker.topics["Narrow"] = TopicConfig("Narrow", 2, 2, 6)
    path = _file(
        tmp_path,
        [
            {"topicName": "Same"},
            {"topicName": "Narrow", "writeQueueNums": 4, "readQueueNums": 4},
            {"topicName": "Fresh", "perm": 4, "attributes": {"+message.type": "FIFO"}},
        ],
    )
    r = cli("updateTopicList", "-c", "DefaultCluster", "-f", path)
    assert r.code == 0, r.err
    assert [row[:4] for row in rows(r.out)[1:]] == [
        ["Same", "broker-a", a.addr, "unchanged"],
        ["Same", "broker-b", b.addr, "unchanged"],
        ["Narrow", "broker-a", a.addr, "updated"],
        ["Narrow", "broker-b", b.addr, "updated"],
        ["Fresh", "broker-a", a.addr, "created"],
        ["Fresh", "broker-b", b.addr, "created"],
    ]
    assert "2 created, 2 unchanged, 2 updated" in r.err
    assert _list_bodies(cli, a.addr) == [["Narrow", "Fresh"]]
    assert RC.UPDATE_AND_CREATE_TOPIC not in cli.transport.codes_sent_to(a.addr)
    assert a.topics["Fresh"] == TopicConfig("Fresh", 16, 16, 4, attributes={"message.type": "FIFO"})
    assert a.topics["Narrow"] == TopicConfig("Narrow", 4, 4, 6)


def test_update_topic_list_keeps_what_an_entry_does_not_give(cli: Cli, cluster, tmp_path: Path) -> None:
    _, a, _ = cluster
    a.topics["Orders"] = TopicConfig("Orders", 8, 8, 6, attributes={"message.type": "FIFO"})
    path = _file(tmp_path, [{"topicName": "Orders", "perm": 4}])
    r = cli("--format", "json", "updateTopicList", "-b", a.addr, "-f", path)
    assert r.code == 0, r.err
    assert r.json()["results"][0]["changes"] == {"perm": {"old": 6, "new": 4}}
    assert a.topics["Orders"] == TopicConfig("Orders", 8, 8, 4, attributes={"message.type": "FIFO"})
    _matches_docs(
        "updateTopicList", cli("--format", "json", "updateTopicList", "-c", "DefaultCluster", "-f", path).json()
    )


def test_update_topic_list_reads_toml(cli: Cli, cluster, tmp_path: Path) -> None:
    _, a, _ = cluster
    toml = '[[topic]]\ntopicName = "T1"\nwriteQueueNums = 2\n\n[[topic]]\ntopicName = "T2"\norder = true\n'
    r = cli("updateTopicList", "-b", a.addr, "-f", _file(tmp_path, toml, "topics.toml"))
    assert r.code == 0, r.err
    assert a.topics["T1"].write_queue_nums == 2 and a.topics["T2"].order


@pytest.mark.parametrize("version", [V4_9_8, V5_2_0])
def test_brokers_without_the_list_request_get_one_request_per_topic(monkeypatch, capsys, tmp_path, version) -> None:
    from mqadmin.admin import topic_batch

    monkeypatch.setattr(topic_batch, "CHUNK", 1)
    ns, a, b = two_broker_cluster(version)
    cli = Cli(monkeypatch, capsys, ns, a, b)
    names = [f"T{i}" for i in range(6)]
    r = cli("updateTopicList", "-b", a.addr, "-f", _file(tmp_path, [{"topicName": n} for n in names]))
    assert r.code == 0, r.err
    assert sorted(a.topics) == names
    codes = cli.transport.codes_sent_to(a.addr)
    assert codes.count(RC.UPDATE_AND_CREATE_TOPIC) == 6
    assert codes.count(RC.UPDATE_AND_CREATE_TOPIC_LIST) <= topic_batch.CHUNKS_IN_FLIGHT  # learnt, then never again


def test_a_refused_list_is_retried_topic_by_topic_so_each_reports_its_error(cli: Cli, cluster, tmp_path) -> None:
    _, a, _ = cluster

    async def refuse(cmd):
        if cmd.code == RC.UPDATE_AND_CREATE_TOPIC_LIST:
            return cmd.response(ResponseCode.SYSTEM_ERROR, "unsupported key: bogus")
        if cmd.code == RC.UPDATE_AND_CREATE_TOPIC and "bogus" in cmd.ext.get("attributes", ""):
            return cmd.response(ResponseCode.SYSTEM_ERROR, "unsupported key: bogus")
        return None

    a.before = refuse
    path = _file(tmp_path, [{"topicName": "Good"}, {"topicName": "Bad", "attributes": {"bogus": "1"}}])
    r = cli("--format", "json", "updateTopicList", "-b", a.addr, "-f", path)
    assert r.code == 3
    doc = r.json()
    assert [(x["topic"], x["status"]) for x in doc["results"]] == [("Good", "created"), ("Bad", "failed")]
    assert "unsupported key: bogus" in doc["results"][1]["reason"]
    assert "Good" in a.topics and "Bad" not in a.topics
    assert_one_line_error(r, "failed for 1 of 2", "Bad on broker-a")


@pytest.mark.parametrize(
    ("entries", "fragment"),
    [
        ('{"topicName": "T"}', "expected a list"),
        ("[1, 2", "not valid JSON"),
        ([{"topicName": "T", "readQueueNum": 3}], "unknown key 'readQueueNum'"),
        ([{"readQueueNums": 3}], "topicName is missing"),
        ([{"topicName": "T"}, {"topicName": "T"}], "appears twice"),
        ([{"topicName": "TBW102"}], "system topic"),
        ([{"topicName": "bad name"}], "illegal characters"),
        ([{"topicName": "T", "perm": 7}], "perm 7"),
        ([{"topicName": "T", "writeQueueNums": 0}], "writeQueueNums must be"),
        ([{"topicName": "T", "order": "yes"}], "order must be true or false"),
        ([{"topicName": "T", "attributes": {"+message.type": "QUEUE"}}], "not one of"),
        ([{"topicName": "DefaultCluster"}], "name of a cluster"),
    ],
)
def test_a_bad_file_is_a_usage_error_and_nothing_is_sent(cli: Cli, tmp_path: Path, entries, fragment: str) -> None:
    r = cli("updateTopicList", "-c", "DefaultCluster", "-f", _file(tmp_path, entries))
    assert r.code == 2
    assert_one_line_error(r, fragment)
    sent = {c.code for _, c in cli.transport.sent}
    assert not sent & {RC.UPDATE_AND_CREATE_TOPIC, RC.UPDATE_AND_CREATE_TOPIC_LIST}


def test_missing_file_and_bad_toml(cli: Cli, tmp_path: Path) -> None:
    r = cli("updateTopicList", "-c", "DefaultCluster", "-f", str(tmp_path / "nope.json"))
    assert r.code == 2 and "no such file" in r.err
    r = cli("updateTopicList", "-c", "DefaultCluster", "-f", _file(tmp_path, "[[topic]\n", "t.toml"))
    assert r.code == 2 and "not valid TOML" in r.err


# --- topicClusterList, allocateMQ, topicList -c ------------------------------------------------------


def test_topic_cluster_list_names_every_cluster_of_the_route(monkeypatch, capsys) -> None:
    ns, a, b = two_broker_cluster()
    c = FakeBroker("broker-c", "127.0.0.1:10931", cluster="OtherCluster")
    ns.brokers.append(c)
    for broker in (a, c):
        broker.topics["Orders"] = TopicConfig("Orders")
    cli = Cli(monkeypatch, capsys, ns, a, b, c)
    r = cli("topicClusterList", "-t", "Orders")
    assert (r.code, r.out) == (0, "DefaultCluster\nOtherCluster\n")
    doc = cli("--format", "json", "topicClusterList", "-t", "Orders").json()
    assert doc == {"topic": "Orders", "clusters": ["DefaultCluster", "OtherCluster"]}
    missing = cli("topicClusterList", "-t", "Nothing")
    assert missing.code == 1 and "TOPIC_NOT_EXIST" in missing.err


def test_allocate_mq_shares_sorted_queues_among_sorted_clients(cli: Cli, cluster) -> None:
    _, a, b = cluster
    a.topics["Orders"] = TopicConfig("Orders", 4, 4, 6)
    b.topics["Orders"] = TopicConfig("Orders", 3, 3, 6)
    r = cli("allocateMQ", "-t", "Orders", "-i", "c3,c1,c2")
    assert r.code == 0, r.err
    assert rows(r.out) == [
        ["CLIENT", "BROKER", "COUNT", "QUEUE", "IDS"],
        ["c1", "broker-a", "3", "0", "1", "2"],
        ["c2", "broker-a", "1", "3"],
        ["c2", "broker-b", "1", "0"],
        ["c3", "broker-b", "2", "1", "2"],
    ]
    doc = cli("--format", "json", "allocateMQ", "-t", "Orders", "-i", "c1,c2").json()
    assert [len(v) for v in doc["result"].values()] == [4, 3]
    assert doc["result"]["c2"][0] == {"brokerName": "broker-b", "queueId": 0, "topic": "Orders"}


def test_allocate_mq_skips_unreadable_brokers_and_checks_client_ids(cli: Cli, cluster) -> None:
    _, a, b = cluster
    a.topics["Orders"] = TopicConfig("Orders", 2, 2, 6)
    b.topics["Orders"] = TopicConfig("Orders", 2, 2, 2)  # write-only: consumers read nothing there
    doc = cli("--format", "json", "allocateMQ", "-t", "Orders", "-i", "x").json()
    assert {q["brokerName"] for q in doc["result"]["x"]} == {"broker-a"}
    for ids, fragment in (("a,,b", "empty client id"), ("a,b,a", "names 'a' twice")):
        r = cli("allocateMQ", "-t", "Orders", "-i", ids)
        assert r.code == 2
        assert_one_line_error(r, fragment)


def test_topic_list_cluster_model_unions_each_brokers_groups(cli: Cli, cluster) -> None:
    _, a, b = cluster
    for broker in (a, b):
        broker.topics["Orders"] = TopicConfig("Orders")
        broker.topics["%RETRY%G1"] = TopicConfig("%RETRY%G1")
    a.topics["Idle"] = TopicConfig("Idle")
    a.consumers["Orders"] = ["G1"]
    b.consumers["Orders"] = ["G2", "G1"]
    r = cli("topicList", "-c")
    assert r.code == 0, r.err
    assert rows(r.out) == [
        ["CLUSTER", "TOPIC", "CONSUMER", "GROUP"],
        ["DefaultCluster", "Idle"],
        ["DefaultCluster", "Orders", "G1"],
        ["DefaultCluster", "Orders", "G2"],
    ]
    doc = cli("--format", "json", "topicList", "-c").json()
    assert doc["topics"][1] == {
        "topic": "Orders",
        "clusters": ["DefaultCluster"],
        "groups": ["G1", "G2"],
        "reason": None,
    }
    _matches_docs("topicList", doc)
    plain = cli("topicList")
    assert plain.out.splitlines() == ["%RETRY%G1", "Idle", "Orders"]


def test_topic_list_cluster_model_reports_a_broker_that_fails(cli: Cli, cluster) -> None:
    _, a, b = cluster
    a.topics["Orders"] = TopicConfig("Orders")
    b.topics["Other"] = TopicConfig("Other")
    b.hang = True
    r = cli("--timeout", "0.2", "--format", "json", "topicList", "-c")
    assert r.code == 3
    by_topic = {t["topic"]: t for t in r.json()["topics"]}
    assert by_topic["Orders"]["reason"] is None and "no answer" in by_topic["Other"]["reason"]
    assert_one_line_error(r, "1 of 2 topics could not be looked up")
