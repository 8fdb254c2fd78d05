"""updateStaticTopic, remappingStaticTopic and the lite-topic commands through the CLI entry point, over the
mock transport: 5.x brokers that keep logic-queue mappings, and 5.5 brokers answering the lite requests."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

from mqadmin.model.lite import (
    BrokerLiteInfo,
    LiteClientInfo,
    LiteGroupInfo,
    LiteLag,
    LiteOffsets,
    LiteTopicInfo,
    ParentTopicInfo,
)
from mqadmin.model.rpc import lite as lite_rpc
from mqadmin.model.rpc import namesrv, topics
from mqadmin.model.rpc.spec import Decoded
from mqadmin.model.rpc.static_topics import UPDATE_AND_CREATE_STATIC_TOPIC, UPDATE_AND_CREATE_STATIC_TOPIC_CODE
from mqadmin.model.static_topic import StaticTopicConfig, TopicQueueMappingDetail
from mqadmin.model.stats import QueueOffsets, TopicStats
from mqadmin.model.topic import TopicConfig
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand
from tests.cli.test_json_contract import assert_contract
from tests.mock_transport import Answer, ok, refuse, topic_route
from tests.unit.cli_helpers import A, B, assert_one_line_error, codes, scripted


def _matches_docs(command: str, doc: object) -> None:
    assert_contract(command, doc)


class StaticBroker:
    """A 5.x broker's static-topic side: GET_TOPIC_CONFIG with lo=true returns the mapping, and
    UPDATE_AND_CREATE_STATIC_TOPIC stores config and mapping (refusing an older epoch without force). The
    embedded broker has no static topics (it refuses 513), so this is scripted over the declarations."""

    def __init__(self, name: str, addr: str) -> None:
        self.name, self.addr = name, addr
        self.topics: dict[str, TopicConfig] = {}
        self.mappings: dict[str, TopicQueueMappingDetail] = {}
        self.writes: list[int] = []  # epoch of each accepted write

    def topic_config(self, req: Decoded[topics.GetTopicConfigHeader, None]) -> Answer:
        cfg = self.topics.get(req.header.topic)
        if cfg is None:
            return refuse(ResponseCode.TOPIC_NOT_EXIST, "No topic in this broker.")
        return ok(StaticTopicConfig(cfg, self.mappings.get(cfg.topic_name) if req.header.lo else None))

    def write(self, req: Decoded[topics.CreateTopicHeader, TopicQueueMappingDetail]) -> Answer:
        old = self.mappings.get(req.header.topic)
        if old is not None and req.body.epoch < old.epoch and not req.header.force:
            return refuse(ResponseCode.SYSTEM_ERROR, "Can't accept data with small epoch")
        self.topics[req.header.topic] = req.header.config()
        self.mappings[req.header.topic] = req.body
        self.writes.append(req.body.epoch)
        return ok()

    def stats(self, req: Decoded[topics.TopicHeader, None]) -> Answer:
        """Queue 0 of each topic holds 3 messages, the others none."""
        cfg = self.topics.get(req.header.topic)
        if cfg is None:
            return refuse(ResponseCode.TOPIC_NOT_EXIST, "topic not exist")
        qs = [
            QueueOffsets(cfg.topic_name, self.name, q, 0, 3 if q == 0 else 0, NOW) for q in range(cfg.write_queue_nums)
        ]
        return ok(TopicStats(qs))


def static_brokers(sa: StaticBroker, sb: StaticBroker) -> dict[Any, Any]:
    by_addr = {sa.addr: sa, sb.addr: sb}
    return {
        topics.GET_TOPIC_CONFIG: lambda req, addr: by_addr[addr].topic_config(req),
        UPDATE_AND_CREATE_STATIC_TOPIC: lambda req, addr: by_addr[addr].write(req),
        topics.GET_TOPIC_STATS_INFO: lambda req, addr: by_addr[addr].stats(req),
    }


@pytest.fixture
def static_cluster(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    sa, sb = StaticBroker("broker-a", A), StaticBroker("broker-b", B)
    return scripted(monkeypatch, capsys, static_brokers(sa, sb)), sa, sb


def _led(s: StaticBroker, topic: str) -> list[int]:
    return sorted(s.mappings[topic].leader_ids())


def test_create_then_expand_a_static_topic(static_cluster, tmp_path: Path) -> None:
    cli, sa, sb = static_cluster
    r = cli("--format", "json", "updateStaticTopic", "-t", "Ledger", "-qn", "4", "-c", "DefaultCluster")
    assert r.code == 0, r.err
    doc = r.json()
    _matches_docs("updateStaticTopic", doc)
    assert [x["status"] for x in doc["results"]] == ["created", "created"]
    assert sorted(_led(sa, "Ledger") + _led(sb, "Ledger")) == [0, 1, 2, 3]
    assert len(_led(sa, "Ledger")) == len(_led(sb, "Ledger")) == 2
    assert sa.mappings["Ledger"].epoch == sb.mappings["Ledger"].epoch == doc["epoch"]
    assert sa.topics["Ledger"].write_queue_nums == 2
    assert Path(doc["files"]["after"]).parent == tmp_path and "before" not in doc["files"]

    before = {gid: items[0].bname for s in (sa, sb) for gid, items in s.mappings["Ledger"].hosted_queues.items()}
    r = cli("--format", "json", "updateStaticTopic", "-t", "Ledger", "-qn", "6", "-b", "broker-a")
    assert r.code == 0, r.err
    assert [x["status"] for x in r.json()["results"]] == ["updated", "updated"]
    after = {gid: items[-1].bname for s in (sa, sb) for gid, items in s.mappings["Ledger"].hosted_queues.items()}
    assert {g: after[g] for g in before} == before  # existing queues did not move
    assert sorted(after) == [0, 1, 2, 3, 4, 5]
    saved = json.loads(Path(r.json()["files"]["before"]).read_text())
    assert saved["epoch"] == doc["epoch"]  # the old mapping, ready for -mf ... -fr true


def test_same_queue_number_changes_nothing(static_cluster) -> None:
    cli, sa, _ = static_cluster
    assert cli("updateStaticTopic", "-t", "Ledger", "-qn", "2", "-c", "DefaultCluster").code == 0
    writes = len(sa.writes)
    r = cli("updateStaticTopic", "-t", "Ledger", "-qn", "2", "-c", "DefaultCluster")
    assert r.code == 1
    assert_one_line_error(r, "already has 2 queues")
    assert len(sa.writes) == writes


def test_dry_run_then_apply_the_printed_mapping_with_mf(static_cluster, tmp_path: Path) -> None:
    cli, sa, sb = static_cluster
    r = cli("--format", "json", "updateStaticTopic", "-t", "Ledger", "-qn", "4", "-c", "DefaultCluster", "--dry-run")
    assert r.code == 0 and r.json()["dryRun"] and r.json()["results"] == []
    assert sa.writes == sb.writes == []
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(r.json()["plan"]))
    applied = cli("updateStaticTopic", "-t", "Ledger", "-mf", str(plan))
    assert applied.code == 0, applied.err
    assert sa.mappings["Ledger"].epoch == r.json()["epoch"]
    wrong = cli("updateStaticTopic", "-t", "Other", "-mf", str(plan))
    assert wrong.code == 2 and "is for topic Ledger" in wrong.err


def test_remapping_moves_queues_in_javas_order_and_continues_above_the_old_offsets(static_cluster) -> None:
    cli, sa, sb = static_cluster
    assert cli("updateStaticTopic", "-t", "Ledger", "-qn", "4", "-c", "DefaultCluster").code == 0
    moved = _led(sb, "Ledger")
    r = cli("--format", "json", "remappingStaticTopic", "-t", "Ledger", "-b", "broker-a")
    assert r.code == 0, r.err
    doc = r.json()
    _matches_docs("remappingStaticTopic", doc)
    assert (doc["plan"]["brokerToMapIn"], doc["plan"]["brokerToMapOut"]) == (["broker-a"], ["broker-b"])
    order = [a for a, c in cli.transport.sent if c.code == UPDATE_AND_CREATE_STATIC_TOPIC_CODE][-3:]
    assert order == [sa.addr, sb.addr, sa.addr]  # map in, map out, map in with offsets
    assert _led(sa, "Ledger") == [0, 1, 2, 3] and _led(sb, "Ledger") == []
    for gid in moved:
        old, new = sa.mappings["Ledger"].hosted_queues[gid]
        assert (old.bname, new.bname, new.gen) == ("broker-b", "broker-a", 1)
        assert new.logic_offset == 10000  # the old queue's max offset (3 or 0) rounded up to the next block


def test_a_normal_topic_cannot_become_static(static_cluster) -> None:
    cli, sa, _ = static_cluster
    sa.topics["Plain"] = TopicConfig("Plain")
    r = cli("updateStaticTopic", "-t", "Plain", "-qn", "4", "-c", "DefaultCluster")
    assert r.code == 1
    assert_one_line_error(r, "is not a static topic")
    assert sa.writes == []


@pytest.mark.parametrize("version", [409, 479])
def test_brokers_without_static_topics_stop_at_the_first_refusal(monkeypatch, capsys, tmp_path, version) -> None:
    """4.9 brokers (no GET_TOPIC_CONFIG either) and 5.x brokers without request 513 (as mqadmin's embedded one)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    no_topic = refuse(ResponseCode.TOPIC_NOT_EXIST, "No topic in this broker.")
    cli = scripted(monkeypatch, capsys, {topics.GET_TOPIC_CONFIG: no_topic} if version >= 413 else {}, version=version)
    r = cli("updateStaticTopic", "-t", "Ledger", "-qn", "4", "-c", "DefaultCluster")
    assert r.code == 1
    assert_one_line_error(r, "cannot host static topics", "REQUEST_CODE_NOT_SUPPORTED", "nothing was changed")
    assert codes(cli).count(UPDATE_AND_CREATE_STATIC_TOPIC_CODE) == 1


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["-t", "Ledger", "-c", "DefaultCluster"], "-qn is required"),
        (["-t", "Ledger", "-qn", "4"], "give -c"),
        (["-t", "Ledger", "-qn", "4", "-c", "Nope"], "unknown cluster 'Nope'"),
        (["-t", "Ledger", "-qn", "4", "-b", "127.0.0.1:10911"], "-b takes broker names"),
        (["-t", "Ledger", "-qn", "4", "-c", "DefaultCluster", "-fr", "maybe"], "-fr takes true or false"),
    ],
)
def test_static_usage_errors(static_cluster, args: list[str], fragment: str) -> None:
    cli, sa, sb = static_cluster
    r = cli("updateStaticTopic", *args)
    assert r.code == 2
    assert_one_line_error(r, fragment)
    assert sa.writes == sb.writes == []


# --- lite topics --------------------------------------------------------------------------------------

NOW = 1_700_000_000_000
LITE_ANSWERS = {
    lite_rpc.GET_BROKER_LITE_INFO_CODE: BrokerLiteInfo(
        "default", 20000, 3, 1, 0, 40, 12, 0, {"Chats": 3600}, {"Chats": ["G"]}
    ),
    lite_rpc.GET_PARENT_TOPIC_INFO_CODE: ParentTopicInfo("Chats", 3600, 2, 3, ["G"]),
    lite_rpc.GET_LITE_TOPIC_INFO_CODE: LiteTopicInfo("Chats", "room", 0, 5, NOW, True, [("c1", "G")]),
    lite_rpc.GET_LITE_CLIENT_INFO_CODE: LiteClientInfo("Chats", "G", "c1", 2, ["room", "room2"], NOW, 0),
    lite_rpc.GET_LITE_GROUP_INFO_CODE: LiteGroupInfo(
        "G",
        "Chats",
        None,
        4,
        NOW,
        LiteOffsets(9, 5, NOW),
        [LiteLag("room", 4, NOW)],
        [LiteLag("room2", 0, -1), LiteLag("room", 4, NOW)],
    ),
}


LITE_RPCS = {
    lite_rpc.GET_BROKER_LITE_INFO, lite_rpc.GET_PARENT_TOPIC_INFO, lite_rpc.GET_LITE_TOPIC_INFO,
    lite_rpc.GET_LITE_CLIENT_INFO, lite_rpc.GET_LITE_GROUP_INFO, lite_rpc.TRIGGER_LITE_DISPATCH,
}  # fmt: skip


@pytest.fixture
def lite_cli(monkeypatch, capsys):
    """Two 5.5 brokers holding the lite parent topic Chats, answering the lite requests (the embedded broker
    refuses them); ``seen``: the lite requests as they arrived."""
    seen: list[RemotingCommand] = []

    def answer(req: Decoded[Any, Any], _addr: str) -> Answer:
        seen.append(req.cmd)
        return ok(LITE_ANSWERS.get(req.cmd.code))

    table: dict[Any, Any] = {rpc: answer for rpc in LITE_RPCS}
    table[namesrv.GET_ROUTEINFO_BY_TOPIC] = ok(topic_route(("broker-a", A), ("broker-b", B)))
    return scripted(monkeypatch, capsys, table, version=513), seen


LITE_COMMANDS = {
    "getBrokerLiteInfo": ["-c", "DefaultCluster", "-d"],
    "getParentTopicInfo": ["-p", "Chats"],
    "getLiteTopicInfo": ["-p", "Chats", "-l", "room", "-s"],
    "getLiteClientInfo": ["-p", "Chats", "-g", "G", "-c", "c1", "-s"],
    "getLiteGroupInfo": ["-p", "Chats", "-g", "G"],
    "triggerLiteDispatch": ["-p", "Chats", "-g", "G", "-c", "c1"],
}


@pytest.mark.parametrize("command", list(LITE_COMMANDS))
def test_lite_commands_ask_every_broker_and_match_their_documented_json(lite_cli, command: str) -> None:
    cli, seen = lite_cli
    table = cli(command, *LITE_COMMANDS[command])
    assert table.code == 0, table.err
    assert "broker-a" in table.out and "broker-b" in table.out
    r = cli("--format", "json", command, *LITE_COMMANDS[command])
    assert r.code == 0, r.err
    _matches_docs(command, r.json())
    assert [x["name"] for x in r.json()["results"]] == ["broker-a", "broker-b"]


def test_lite_requests_carry_javas_header_fields(lite_cli) -> None:
    cli, seen = lite_cli
    cli("getLiteGroupInfo", "-p", "Chats", "-g", "G", "-k", "5", "-l", "room")
    cli("getLiteClientInfo", "-p", "Chats", "-g", "G", "-c", "c1")
    cli("triggerLiteDispatch", "-p", "Chats", "-g", "G", "-b", "broker-b")
    group, client, trigger = seen[0], seen[2], seen[4]
    assert group.ext == {"group": "G", "liteTopic": "room", "topK": "5"}
    assert client.ext == {"parentTopic": "Chats", "group": "G", "clientId": "c1", "maxCount": "1000"}
    assert trigger.ext == {"group": "G"} and len(seen) == 5  # -b: only broker-b was asked


def test_lite_group_totals_merge_the_brokers(lite_cli) -> None:
    cli, _ = lite_cli
    doc = cli("--format", "json", "getLiteGroupInfo", "-p", "Chats", "-g", "G").json()
    assert doc["totalLagCount"] == 8 and doc["earliestUnconsumedTimestamp"] == NOW
    assert [x["liteTopic"] for x in doc["lagTimestampTopK"]] == ["room", "room", "room2", "room2"]  # never last
    assert doc["lagTimestampTopK"][-1]["earliestUnconsumedTimestamp"] is None


def test_lite_on_a_5_3_broker_fails_with_the_brokers_code_and_a_hint(monkeypatch, capsys) -> None:
    cli = scripted(monkeypatch, capsys, {namesrv.GET_ROUTEINFO_BY_TOPIC: ok(topic_route(("broker-a", A)))})
    r = cli("getParentTopicInfo", "-p", "Chats")
    assert r.code == 1
    assert "REQUEST_CODE_NOT_SUPPORTED (3)" in r.out and "lite topics need RocketMQ 5.5" in r.out
    assert_one_line_error(r, "failed on every target")
    assert codes(cli, A) == [lite_rpc.GET_PARENT_TOPIC_INFO_CODE]


def test_trigger_lite_dispatch_on_a_broker_not_in_the_route(lite_cli) -> None:
    cli, seen = lite_cli
    r = cli("triggerLiteDispatch", "-p", "Chats", "-g", "G", "-b", "broker-z")
    assert r.code == 2
    assert_one_line_error(r, "'broker-z' is not in the route", "broker-a, broker-b")
    assert seen == []
