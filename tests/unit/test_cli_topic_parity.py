"""updateTopicPerm, updateTopicList, topicClusterList, allocateMQ and topicList -c through the CLI entry
point: what they do to a broker against the embedded servers (``live``), what they send and how they read the
answers of other brokers (4.9.8, 5.2.0, a slave, one that hangs) through scripted answers (the mock transport)."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from mqadmin.model.route import BrokerData, QueueData, TopicRouteData
from mqadmin.model.rpc import namesrv, topics
from mqadmin.model.rpc.spec import Decoded
from mqadmin.model.static_topic import StaticTopicConfig
from mqadmin.model.topic import TopicConfig
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode
from tests.cli.test_json_contract import assert_contract
from tests.embedded import ThreadedCluster
from tests.mock_transport import Answer, cluster_info, ok, refuse
from tests.unit.cli_helpers import A, B, Cli, Outcome, assert_one_line_error, codes, rows, scripted

V4_9_8, V5_2_0 = 409, 453
C = "127.0.0.1:10931"
NO_TOPIC = refuse(ResponseCode.TOPIC_NOT_EXIST, "No topic in this broker.")


def _matches_docs(command: str, doc: object) -> None:
    assert_contract(command, doc)


def sent(r: Outcome, addr: str, request: str) -> int:
    """How many ``request`` (a name: UPDATE_AND_CREATE_TOPIC) the ``--debug`` trace shows sent to ``addr``."""
    return len(re.findall(rf"^(?:mqadmin: )?> {re.escape(addr)} #\d+ {request}\(", r.err, re.MULTILINE))


# --- updateTopicPerm ---------------------------------------------------------------------------------


def test_update_topic_perm_changes_only_the_permission(live: Cli, embedded: ThreadedCluster) -> None:
    a, b = embedded.addr["broker-a"], embedded.addr["broker-b"]
    embedded.create_topic("broker-a", TopicConfig("PermOnly", 16, 16, 6, attributes={"message.type": "FIFO"}))
    embedded.create_topic("broker-b", TopicConfig("PermOnly", 4, 4, 6))
    r = live("updateTopicPerm", "-c", "DefaultCluster", "-t", "PermOnly", "-p", "4")
    assert r.code == 0, r.err
    assert rows(r.out)[1:] == [
        ["broker-a", a, "updated", "perm", "6→4"],
        ["broker-b", b, "updated", "perm", "6→4"],
    ]
    assert embedded.topic("broker-a", "PermOnly") == TopicConfig(
        "PermOnly", 16, 16, 4, attributes={"message.type": "FIFO"}
    )
    assert embedded.topic("broker-b", "PermOnly") == TopicConfig("PermOnly", 4, 4, 4)
    again = live("--debug", "updateTopicPerm", "-c", "DefaultCluster", "-t", "PermOnly", "-p", "4")
    assert [row[2] for row in rows(again.out)[1:]] == ["unchanged", "unchanged"]
    assert sent(again, a, "UPDATE_AND_CREATE_TOPIC") == 0


def test_update_topic_perm_never_creates_the_topic(live: Cli, embedded: ThreadedCluster) -> None:
    embedded.create_topic("broker-a", TopicConfig("PermHalf", 8, 8, 6))
    r = live("--format", "json", "updateTopicPerm", "-c", "DefaultCluster", "-t", "PermHalf", "-p", "2")
    assert r.code == 0, r.err
    assert [x["status"] for x in r.json()["results"]] == ["updated", "not found"]
    assert embedded.topic("broker-b", "PermHalf") is None
    _matches_docs("updateTopicPerm", r.json())

    missing = live("updateTopicPerm", "-c", "DefaultCluster", "-t", "Nothing", "-p", "2")
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
def test_update_topic_perm_usage_errors(monkeypatch, capsys, args: list[str], fragment: str) -> None:
    cli = scripted(monkeypatch, capsys, {topics.GET_TOPIC_CONFIG: ok(StaticTopicConfig(TopicConfig("Orders")))})
    r = cli("updateTopicPerm", *args)
    assert r.code == 2
    assert_one_line_error(r, fragment)
    assert RC.UPDATE_AND_CREATE_TOPIC not in codes(cli)


def test_update_topic_perm_refuses_a_slave(monkeypatch, capsys) -> None:
    slave = "127.0.0.1:10915"
    info = cluster_info(("broker-a", 0, A), ("broker-a", 1, slave), ("broker-b", 0, B))
    cli = scripted(monkeypatch, capsys, {namesrv.GET_BROKER_CLUSTER_INFO: ok(info)})
    r = cli("updateTopicPerm", "-b", slave, "-t", "Orders", "-p", "4")
    assert r.code == 2
    assert_one_line_error(r, "is a slave", f"-b {A}")


# --- updateTopicList ---------------------------------------------------------------------------------


def _file(tmp_path: Path, entries: object, name: str = "topics.json") -> str:
    path = tmp_path / name
    path.write_text(entries if isinstance(entries, str) else json.dumps(entries))
    return str(path)


def test_update_topic_list_sends_only_what_changed_in_one_list_request(live: Cli, embedded, tmp_path: Path) -> None:
    a, b = embedded.addr["broker-a"], embedded.addr["broker-b"]
    for broker in ("broker-a", "broker-b"):
        embedded.create_topic(broker, TopicConfig("Same", 16, 16, 6))
        embedded.create_topic(broker, TopicConfig("Narrow", 2, 2, 6))
    path = _file(
        tmp_path,
        [
            {"topicName": "Same"},
            {"topicName": "Narrow", "writeQueueNums": 4, "readQueueNums": 4},
            {"topicName": "Fresh", "perm": 4, "attributes": {"+message.type": "FIFO"}},
        ],
    )
    r = live("--debug", "updateTopicList", "-c", "DefaultCluster", "-f", path)
    assert r.code == 0, r.err
    assert [row[:4] for row in rows(r.out)[1:]] == [
        ["Same", "broker-a", a, "unchanged"],
        ["Same", "broker-b", b, "unchanged"],
        ["Narrow", "broker-a", a, "updated"],
        ["Narrow", "broker-b", b, "updated"],
        ["Fresh", "broker-a", a, "created"],
        ["Fresh", "broker-b", b, "created"],
    ]
    assert "2 created, 2 unchanged, 2 updated" in r.err
    assert sent(r, a, "UPDATE_AND_CREATE_TOPIC_LIST") == 1 and sent(r, a, "UPDATE_AND_CREATE_TOPIC") == 0
    assert embedded.topic("broker-a", "Fresh") == TopicConfig("Fresh", 16, 16, 4, attributes={"message.type": "FIFO"})
    assert embedded.topic("broker-a", "Narrow") == TopicConfig("Narrow", 4, 4, 6)


def test_the_list_request_carries_only_the_changed_topics(monkeypatch, capsys, tmp_path: Path) -> None:
    held = {"Same": TopicConfig("Same", 16, 16, 6), "Narrow": TopicConfig("Narrow", 2, 2, 6)}
    lists: list[list[str]] = []

    def read(req: Decoded[topics.GetTopicConfigHeader, None], _addr: str) -> Answer:
        return ok(StaticTopicConfig(held[req.header.topic])) if req.header.topic in held else NO_TOPIC

    def write(req: Decoded[None, list[TopicConfig]], _addr: str) -> Answer:
        lists.append([c.topic_name for c in req.body])
        return ok()

    cli = scripted(monkeypatch, capsys, {topics.GET_TOPIC_CONFIG: read, topics.UPDATE_AND_CREATE_TOPIC_LIST: write})
    path = _file(
        tmp_path, [{"topicName": "Same"}, {"topicName": "Narrow", "writeQueueNums": 4}, {"topicName": "Fresh"}]
    )
    assert cli("updateTopicList", "-b", A, "-f", path).code == 0
    assert lists == [["Narrow", "Fresh"]]


def test_update_topic_list_keeps_what_an_entry_does_not_give(live: Cli, embedded, tmp_path: Path) -> None:
    a = embedded.addr["broker-a"]
    embedded.create_topic("broker-a", TopicConfig("KeptList", 8, 8, 6, attributes={"message.type": "FIFO"}))
    path = _file(tmp_path, [{"topicName": "KeptList", "perm": 4}])
    r = live("--format", "json", "updateTopicList", "-b", a, "-f", path)
    assert r.code == 0, r.err
    assert r.json()["results"][0]["changes"] == {"perm": {"old": 6, "new": 4}}
    assert embedded.topic("broker-a", "KeptList") == TopicConfig(
        "KeptList", 8, 8, 4, attributes={"message.type": "FIFO"}
    )
    _matches_docs(
        "updateTopicList", live("--format", "json", "updateTopicList", "-c", "DefaultCluster", "-f", path).json()
    )


def test_update_topic_list_reads_toml(live: Cli, embedded, tmp_path: Path) -> None:
    toml = '[[topic]]\ntopicName = "Toml1"\nwriteQueueNums = 2\n\n[[topic]]\ntopicName = "Toml2"\norder = true\n'
    r = live("updateTopicList", "-b", embedded.addr["broker-a"], "-f", _file(tmp_path, toml, "topics.toml"))
    assert r.code == 0, r.err
    assert embedded.topic("broker-a", "Toml1").write_queue_nums == 2 and embedded.topic("broker-a", "Toml2").order


@pytest.mark.parametrize("version", [V4_9_8, V5_2_0])
def test_brokers_without_the_list_request_get_one_request_per_topic(monkeypatch, capsys, tmp_path, version) -> None:
    from mqadmin.admin import topic_batch

    monkeypatch.setattr(topic_batch, "CHUNK", 1)
    held: dict[str, TopicConfig] = {}

    def create(req: Decoded[topics.CreateTopicHeader, None], _addr: str) -> Answer:
        held[req.header.topic] = req.header.config()
        return ok()

    answers: dict[Any, Any] = {
        topics.GET_ALL_TOPIC_CONFIG: lambda _req, _addr: ok(dict(held)),
        topics.UPDATE_AND_CREATE_TOPIC: create,
    }
    if version >= 413:  # GET_TOPIC_CONFIG since 5.0; the list request since 5.3.0
        answers[topics.GET_TOPIC_CONFIG] = lambda req, _a: (
            ok(StaticTopicConfig(held[req.header.topic])) if req.header.topic in held else NO_TOPIC
        )
    cli = scripted(monkeypatch, capsys, answers, version=version)
    names = [f"T{i}" for i in range(6)]
    r = cli("updateTopicList", "-b", A, "-f", _file(tmp_path, [{"topicName": n} for n in names]))
    assert r.code == 0, r.err
    assert sorted(held) == names
    sent_codes = codes(cli, A)
    assert sent_codes.count(RC.UPDATE_AND_CREATE_TOPIC) == 6
    assert sent_codes.count(RC.UPDATE_AND_CREATE_TOPIC_LIST) <= topic_batch.CHUNKS_IN_FLIGHT  # learnt, then never again


def test_a_refused_list_is_retried_topic_by_topic_so_each_reports_its_error(live: Cli, embedded, tmp_path) -> None:
    """The broker refuses an attribute key it does not know (the old fake broker accepted it)."""
    path = _file(tmp_path, [{"topicName": "GoodList"}, {"topicName": "BadList", "attributes": {"bogus.key": "1"}}])
    r = live("--format", "json", "updateTopicList", "-b", embedded.addr["broker-a"], "-f", path)
    assert r.code == 3
    doc = r.json()
    assert [(x["topic"], x["status"]) for x in doc["results"]] == [("GoodList", "created"), ("BadList", "failed")]
    assert "unsupported key: bogus.key" in doc["results"][1]["reason"]
    assert embedded.topic("broker-a", "GoodList") is not None and embedded.topic("broker-a", "BadList") is None
    assert_one_line_error(r, "failed for 1 of 2", "BadList on broker-a")


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
def test_a_bad_file_is_a_usage_error_and_nothing_is_sent(
    monkeypatch, capsys, tmp_path: Path, entries, fragment
) -> None:
    cli = scripted(monkeypatch, capsys, {topics.GET_TOPIC_CONFIG: NO_TOPIC})
    r = cli("updateTopicList", "-c", "DefaultCluster", "-f", _file(tmp_path, entries))
    assert r.code == 2
    assert_one_line_error(r, fragment)
    assert not set(codes(cli)) & {RC.UPDATE_AND_CREATE_TOPIC, RC.UPDATE_AND_CREATE_TOPIC_LIST}


def test_missing_file_and_bad_toml(monkeypatch, capsys, tmp_path: Path) -> None:
    cli = scripted(monkeypatch, capsys, {})
    r = cli("updateTopicList", "-c", "DefaultCluster", "-f", str(tmp_path / "nope.json"))
    assert r.code == 2 and "no such file" in r.err
    r = cli("updateTopicList", "-c", "DefaultCluster", "-f", _file(tmp_path, "[[topic]\n", "t.toml"))
    assert r.code == 2 and "not valid TOML" in r.err


# --- topicClusterList, allocateMQ, topicList -c ------------------------------------------------------


def route_of(*queues: tuple[str, str, int, int]) -> TopicRouteData:
    """(broker name, address, queues, perm) holding the topic."""
    return TopicRouteData(
        [BrokerData("DefaultCluster", name, {0: addr}) for name, addr, _, _ in queues],
        [QueueData(name, n, n, perm) for name, _, n, perm in queues],
    )


def test_topic_cluster_list_names_every_cluster_of_the_route(monkeypatch, capsys) -> None:
    info = cluster_info(("broker-a", 0, A), ("broker-b", 0, B))
    info.brokers["broker-c"] = BrokerData("OtherCluster", "broker-c", {0: C})
    info.clusters["OtherCluster"] = ["broker-c"]

    def route(req: Decoded[namesrv.RouteHeader, None], _addr: str) -> Answer:
        if req.header.topic != "Orders":
            return refuse(ResponseCode.TOPIC_NOT_EXIST, "No topic route info in name server for the topic: Nothing")
        return ok(route_of(("broker-a", A, 8, 6), ("broker-c", C, 8, 6)))

    cli = scripted(
        monkeypatch, capsys, {namesrv.GET_BROKER_CLUSTER_INFO: ok(info), namesrv.GET_ROUTEINFO_BY_TOPIC: route}
    )
    r = cli("topicClusterList", "-t", "Orders")
    assert (r.code, r.out) == (0, "DefaultCluster\nOtherCluster\n")
    doc = cli("--format", "json", "topicClusterList", "-t", "Orders").json()
    assert doc == {"topic": "Orders", "clusters": ["DefaultCluster", "OtherCluster"]}
    missing = cli("topicClusterList", "-t", "Nothing")
    assert missing.code == 1 and "TOPIC_NOT_EXIST" in missing.err


def test_allocate_mq_shares_sorted_queues_among_sorted_clients(monkeypatch, capsys) -> None:
    route = route_of(("broker-a", A, 4, 6), ("broker-b", B, 3, 6))
    cli = scripted(monkeypatch, capsys, {namesrv.GET_ROUTEINFO_BY_TOPIC: ok(route)})
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


def test_allocate_mq_skips_unreadable_brokers_and_checks_client_ids(monkeypatch, capsys) -> None:
    route = route_of(("broker-a", A, 2, 6), ("broker-b", B, 2, 2))  # broker-b write-only: consumers read nothing
    cli = scripted(monkeypatch, capsys, {namesrv.GET_ROUTEINFO_BY_TOPIC: ok(route)})
    doc = cli("--format", "json", "allocateMQ", "-t", "Orders", "-i", "x").json()
    assert {q["brokerName"] for q in doc["result"]["x"]} == {"broker-a"}
    for ids, fragment in (("a,,b", "empty client id"), ("a,b,a", "names 'a' twice")):
        r = cli("allocateMQ", "-t", "Orders", "-i", ids)
        assert r.code == 2
        assert_one_line_error(r, fragment)


def topic_list_cluster(held: dict[str, dict[str, list[str]]], hang: str | None = None) -> dict[Any, Any]:
    """Name server and brokers for topicList -c: ``held`` is address -> topic -> the groups consuming it there."""
    names = sorted({t for topics_ in held.values() for t in topics_})
    by_addr = {A: "broker-a", B: "broker-b"}

    def route(req: Decoded[namesrv.RouteHeader, None], _addr: str) -> Answer:
        return ok(route_of(*((by_addr[a], a, 8, 6) for a, t in held.items() if req.header.topic in t)))

    async def consumed_by(req: Decoded[topics.TopicHeader, None], addr: str) -> Answer:
        if addr == hang:
            await asyncio.Event().wait()
        return ok(held[addr].get(req.header.topic, []))

    return {
        namesrv.GET_ALL_TOPIC_LIST_FROM_NAMESERVER: ok(names),
        namesrv.GET_ROUTEINFO_BY_TOPIC: route,
        topics.QUERY_TOPIC_CONSUME_BY_WHO: consumed_by,
    }


def test_topic_list_cluster_model_unions_each_brokers_groups(monkeypatch, capsys) -> None:
    held = {A: {"Orders": ["G1"], "%RETRY%G1": [], "Idle": []}, B: {"Orders": ["G2", "G1"], "%RETRY%G1": []}}
    cli = scripted(monkeypatch, capsys, topic_list_cluster(held))
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


def test_topic_list_cluster_model_reports_a_broker_that_fails(monkeypatch, capsys) -> None:
    cli = scripted(monkeypatch, capsys, topic_list_cluster({A: {"Orders": []}, B: {"Other": []}}, hang=B))
    r = cli("--timeout", "0.2", "--format", "json", "topicList", "-c")
    assert r.code == 3
    by_topic = {t["topic"]: t for t in r.json()["topics"]}
    assert by_topic["Orders"]["reason"] is None and "no answer" in by_topic["Other"]["reason"]
    assert_one_line_error(r, "1 of 2 topics could not be looked up")
