"""exportMetadata over scripted name servers and brokers (the mock transport): what is collected, how failures
are recorded."""

from __future__ import annotations

import asyncio
import gzip
import importlib.util
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from mqadmin.fleet.manifest import iter_rows, load_manifest
from mqadmin.model.consume import ConsumeStats, QueueProgress
from mqadmin.model.group import SubscriptionGroupConfig
from mqadmin.model.rpc import brokers, groups, namesrv, namesrv_admin, topics
from mqadmin.model.rpc.spec import Decoded
from mqadmin.model.topic import TopicConfig
from mqadmin.wire.codes import ResponseCode
from tests.mock_transport import Answer, MockTransport, cluster_info, ok, refuse, routes, unsupported
from tests.unit.cli_helpers import Cli, assert_one_line_error

GROUPS = {"G1": {"groupName": "G1", "consumeEnable": True, "retryQueueNums": 1}, "G2": {"consumeMessageOrderly": True}}
NS, A, B, SLAVE = "127.0.0.1:9876", "127.0.0.1:10911", "127.0.0.1:10921", "127.0.0.1:10912"


@dataclass
class Broker:
    """A master's answers: broker config (with its permission), topics, the subscription groups and consume stats
    (``lag``: topic -> how far each of its 2 queues is behind; ``stats_fail``: groups whose stats fail)."""

    name: str
    perm: int = 6
    topics: dict[str, TopicConfig] = field(default_factory=dict)
    lag: dict[str, int] = field(default_factory=dict)
    stats_fail: set[str] = field(default_factory=set)

    def answers(self) -> dict[Any, Any]:
        table = {n: SubscriptionGroupConfig.from_json(cfg, n) for n, cfg in GROUPS.items()}
        return {
            brokers.GET_BROKER_CONFIG: ok({"brokerName": self.name, "brokerPermission": str(self.perm)}),
            topics.GET_ALL_TOPIC_CONFIG: lambda _req, _addr: ok(dict(self.topics)),
            groups.GET_ALL_SUBSCRIPTIONGROUP_CONFIG: ok(table),
            groups.GET_CONSUME_STATS: self._consume_stats,
        }

    def _consume_stats(self, req: Decoded[groups.ConsumeStatsHeader, None], _addr: str) -> Answer:
        if req.header.consumer_group in self.stats_fail:
            return refuse(ResponseCode.SYSTEM_ERROR, "consume stats exploded")
        queues = [
            QueueProgress(topic, self.name, q, 100 + behind, 100)
            for topic, behind in self.lag.items()
            for q in range(2)
        ]
        return ok(ConsumeStats(queues))


@dataclass
class Fleet:
    """A name server (KV: the order conf of T1) with broker-a (and a slave that is never asked) and broker-b."""

    a: Broker = field(default_factory=lambda: Broker("broker-a", lag={"T1": 7}, topics={
        "T1": TopicConfig("T1", 8, 8, order=True, attributes={"message.type": "FIFO"}),
        "Auto": TopicConfig("Auto", 4, 4),
    }))  # fmt: skip
    b: Broker = field(default_factory=lambda: Broker("broker-b", perm=4, topics={"T1": TopicConfig("T1", 8, 8)}))
    kv: dict[str, str] = field(default_factory=lambda: {"T1": "broker-a:8;broker-b:8"})
    hang: set[str] = field(default_factory=set)
    in_flight: int = 0
    peak: int = 0

    def transport(self) -> MockTransport:
        info = cluster_info(("broker-a", 0, A), ("broker-a", 1, SLAVE), ("broker-b", 0, B))

        def kv_list(_req: Decoded[namesrv_admin.NamespaceHeader, None], _addr: str) -> Answer:
            return ok(dict(self.kv)) if self.kv else refuse(ResponseCode.QUERY_NOT_FOUND, "No config item")

        by_addr = {
            NS: routes({namesrv.GET_BROKER_CLUSTER_INFO: ok(info), namesrv_admin.GET_KVLIST_BY_NAMESPACE: kv_list}),
            A: routes(self.a.answers()),
            B: routes(self.b.answers()),
        }

        async def handler(req: Decoded[Any, Any], addr: str) -> Any:  # a routed answer: Answer or its awaitable
            if addr in self.hang:
                await asyncio.Event().wait()
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            try:
                await asyncio.sleep(0)  # let the others start if the bound allows
                return by_addr[addr](req, addr) if addr in by_addr else unsupported(req)
            finally:
                self.in_flight -= 1

        return MockTransport(handler)

    def cli(self, monkeypatch, capsys) -> Cli:
        return Cli(monkeypatch, capsys, namesrvs=[NS], transport=self.transport())


def rows(root: Path, table: str) -> list[dict[str, Any]]:
    return list(iter_rows(root, load_manifest(root), table))


def test_export_writes_every_table_and_the_manifest(monkeypatch, capsys, tmp_path):
    cli = Fleet().cli(monkeypatch, capsys)
    out = tmp_path / "export"
    result = cli("exportMetadata", "-n", NS, "--out", str(out))
    assert result.code == 0, result.err
    assert "127.0.0.1:9876" in result.out and "ok" in result.out

    manifest = load_manifest(out)
    assert manifest["status"] == "ok"
    copies = [p for t in manifest["tables"].values() for p in t.get("parquet", [])]
    assert copies == (["topics.parquet"] if importlib.util.find_spec("pyarrow") else [])
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["manifest.json"] + [f"{t}.jsonl.gz" for t in manifest["tables"]] + copies
    )
    for table in manifest["tables"]:  # the files' columns are camelCase (schema version 3), read as written
        with gzip.open(out / f"{table}.jsonl.gz", "rt") as f:
            assert not [c for line in f for c in json.loads(line) if "_" in c], table
    src = "127.0.0.1:9876"
    assert rows(out, "clusters") == [{"source": src, "cluster": "DefaultCluster", "namesrv": src}]
    brokers = {(r["brokerName"], r["brokerId"]): r for r in rows(out, "brokers")}
    assert brokers[("broker-a", 0)]["role"] == "master" and brokers[("broker-a", 0)]["brokerPermission"] == 6
    assert brokers[("broker-b", 0)]["brokerPermission"] == 4
    assert brokers[("broker-a", 1)] == {
        "source": src, "cluster": "DefaultCluster", "brokerName": "broker-a", "brokerId": 1,
        "addr": "127.0.0.1:10912", "role": "slave", "brokerPermission": None, "topicsOk": False, "groupsOk": False,
    }  # fmt: skip
    topics = {(r["brokerName"], r["topic"]): r for r in rows(out, "topics")}
    assert set(topics) == {("broker-a", "T1"), ("broker-a", "Auto"), ("broker-b", "T1")}  # never from the slave
    assert topics[("broker-a", "T1")]["order"] is True
    assert topics[("broker-a", "T1")]["attributes"] == {"message.type": "FIFO"}
    assert topics[("broker-a", "Auto")]["writeQueueNums"] == 4
    groups = rows(out, "groups")
    assert {(g["brokerName"], g["group"]) for g in groups} == {(x, g) for x in ("broker-a", "broker-b") for g in GROUPS}
    assert next(g for g in groups if g["group"] == "G2")["consumeMessageOrderly"] is True
    # lag = brokerOffset - consumerOffset summed over the broker's queues of the topic (2 queues x 7)
    lag = [r for r in rows(out, "consumer_lag") if r["lag"]]
    assert {(r["brokerName"], r["group"], r["topic"], r["lag"], r["queues"]) for r in lag} == {
        ("broker-a", "G1", "T1", 14, 2),
        ("broker-a", "G2", "T1", 14, 2),
    }
    assert rows(out, "order_conf") == [{"source": src, "topic": "T1", "orderConf": "broker-a:8;broker-b:8"}]
    per_broker = manifest["sources"][0]["clusters"][0]["brokers"]
    assert [(b["broker_name"], b["role"], b["status"]) for b in per_broker] == [
        ("broker-a", "master", "ok"),
        ("broker-a", "slave", "skipped"),
        ("broker-b", "master", "ok"),
    ]
    assert per_broker[0]["rows"] == {"topics": 2, "groups": 2, "consumer_lag": 2}


def test_a_failed_broker_and_a_dead_source_are_recorded_and_the_rest_exported(monkeypatch, capsys, tmp_path):
    dead = "127.0.0.1:19876"  # no server there: connection refused
    fleet = Fleet(hang={B})  # broker-b is registered, but never answers (a stopped process)
    cli = Cli(monkeypatch, capsys, namesrvs=[NS], transport=fleet.transport())
    assert isinstance(cli.transport, MockTransport)
    cli.transport.down.add(dead)
    out = tmp_path / "export"
    result = cli("--timeout", "0.2", "exportMetadata", "-n", NS, "-n", dead, "--out", str(out))
    assert result.code == 3, result.err
    assert "mqadmin: error: part of the fleet could not be collected" in result.err
    assert "Traceback" not in result.err
    manifest = load_manifest(out)
    assert manifest["status"] == "partial"
    by_source = {s["source"]: s for s in manifest["sources"]}
    assert by_source[dead]["status"] == "failed" and "cluster info" in by_source[dead]["reason"]
    live = by_source[NS]
    assert live["status"] == "partial"
    broker_b = next(x for x in live["clusters"][0]["brokers"] if x["broker_name"] == "broker-b")
    assert broker_b["status"] == "failed" and "no answer" in broker_b["reason"]
    # broker-a is fully there; broker-b is a master that was not collected
    assert {r["brokerName"] for r in rows(out, "topics")} == {"broker-a"}
    b_row = next(r for r in rows(out, "brokers") if r["brokerName"] == "broker-b")
    assert (b_row["topicsOk"], b_row["groupsOk"]) == (False, False)
    assert "broker-b" in result.out and "failed" in result.out


def test_a_failing_group_makes_the_broker_partial_not_failed(monkeypatch, capsys, tmp_path):
    fleet = Fleet()
    fleet.a.lag, fleet.a.stats_fail = {"T1": 1}, {"G2"}
    cli = fleet.cli(monkeypatch, capsys)
    out = tmp_path / "export"
    result = cli("--format", "json", "exportMetadata", "-n", NS, "--out", str(out))
    assert result.code == 3
    broker_a = load_manifest(out)["sources"][0]["clusters"][0]["brokers"][0]
    assert broker_a["status"] == "partial"
    assert broker_a["errors"] == ["consume stats of G2: SYSTEM_ERROR (1): consume stats exploded"]
    assert {r["group"] for r in rows(out, "consumer_lag")} == {"G1"}
    doc = result.json()
    assert doc["status"] == "partial" and doc["sources"][0]["reasons"]
    assert doc["schemaVersion"] == 3 == load_manifest(out)["schema_version"]


def test_every_source_failing_exits_1(monkeypatch, capsys, tmp_path):
    cli = Cli(monkeypatch, capsys, namesrvs=[NS], transport=MockTransport(routes({}), down={"127.0.0.1:19876"}))
    result = cli("exportMetadata", "-n", "127.0.0.1:19876", "--out", str(tmp_path / "x"))
    assert result.code == 1
    assert "mqadmin: error: no cluster could be collected" in result.err and "Traceback" not in result.err
    assert load_manifest(tmp_path / "x")["status"] == "failed"


def test_empty_order_namespace_is_no_order_confs_not_a_failure(monkeypatch, capsys, tmp_path):
    cli = Fleet(kv={}).cli(monkeypatch, capsys)
    assert cli("exportMetadata", "-n", NS, "--out", str(tmp_path / "x")).code == 0
    manifest = load_manifest(tmp_path / "x")
    assert manifest["sources"][0]["order_conf_ok"] is True
    assert manifest["tables"]["order_conf"]["rows"] == 0


def test_fleet_file_names_the_sources(monkeypatch, capsys, tmp_path):
    cli = Fleet().cli(monkeypatch, capsys)
    fleet_file = tmp_path / "fleet.toml"
    fleet_file.write_text(f'[clusters.prod-a]\nnamesrv = ["{NS}"]\n')
    assert cli("exportMetadata", "--fleet", str(fleet_file), "--out", str(tmp_path / "x")).code == 0
    assert {r["source"] for r in rows(tmp_path / "x", "topics")} == {"prod-a"}
    assert rows(tmp_path / "x", "clusters")[0]["namesrv"] == NS


def test_concurrency_bounds_requests_in_flight(monkeypatch, capsys, tmp_path):
    fleet = Fleet()
    cli = fleet.cli(monkeypatch, capsys)
    assert cli("exportMetadata", "-n", NS, "--out", str(tmp_path / "x"), "--concurrency", "1").code == 0
    assert fleet.peak == 1


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["-n", "nohost"], "bad name server address"),
        (["-n", "127.0.0.1:9876", "-n", "127.0.0.1:9876"], "given twice"),
        (["--fleet", "/nonexistent/fleet.toml"], "does not exist"),
    ],
)
def test_bad_input_is_a_usage_error(monkeypatch, capsys, tmp_path, args, fragment):
    transport = MockTransport(routes({}))
    cli = Cli(monkeypatch, capsys, namesrvs=[NS], transport=transport)
    result = cli("exportMetadata", *args, "--out", str(tmp_path / "x"))
    assert result.code == 2
    assert_one_line_error(result, fragment)
    assert transport.sent == []


def test_refuses_a_non_empty_directory_that_is_not_an_export(monkeypatch, capsys, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    cli = Fleet().cli(monkeypatch, capsys)
    result = cli("exportMetadata", "-n", NS, "--out", str(tmp_path))
    assert result.code == 2
    assert_one_line_error(result, "not empty")
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_re_export_replaces_the_previous_one(monkeypatch, capsys, tmp_path):
    fleet = Fleet()
    cli = fleet.cli(monkeypatch, capsys)
    out = tmp_path / "x"
    assert cli("exportMetadata", "-n", NS, "--out", str(out)).code == 0
    fleet.b.topics["Auto"] = TopicConfig("Auto", 4, 4)
    assert cli("exportMetadata", "-n", NS, "--out", str(out)).code == 0
    assert ("broker-b", "Auto") in {(r["brokerName"], r["topic"]) for r in rows(out, "topics")}
    assert not list(out.glob("*.tmp"))
    with gzip.open(out / "topics.jsonl.gz", "rt") as f:
        assert all(json.loads(line)["source"] == NS for line in f)
