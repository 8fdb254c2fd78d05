"""exportMetadata against the in-memory fake cluster: what is collected, how failures are recorded."""

from __future__ import annotations

import gzip
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from mqadmin.fleet.manifest import iter_rows, load_manifest
from mqadmin.model.topic import TopicConfig
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand
from tests.unit.cli_helpers import Cli, assert_one_line_error
from tests.unit.fake_remoting import FakeBroker, FakeNamesrv

GROUPS = {"G1": {"groupName": "G1", "consumeEnable": True, "retryQueueNums": 1}, "G2": {"consumeMessageOrderly": True}}


class KvNamesrv(FakeNamesrv):
    """Adds GET_KVLIST_BY_NAMESPACE (219): code 22 when the namespace is empty, as Java answers."""

    async def handle(self, cmd: RemotingCommand) -> RemotingCommand:
        if cmd.code == RC.GET_KVLIST_BY_NAMESPACE:
            table = {k: v for (ns, k), v in self.kv.items() if ns == cmd.ext["namespace"]}
            if not table:
                return cmd.response(ResponseCode.QUERY_NOT_FOUND, "No config item")
            return cmd.response(body=fastjson.dumps_bytes({"table": table}))
        return await super().handle(cmd)


def admin_hook(
    broker: FakeBroker, perm: int = 6, lag: dict[str, int] | None = None, stats_fail: set[str] = frozenset()
):  # type: ignore[assignment]
    """Broker config (26), subscription groups (201) and consume stats (208) for a FakeBroker."""

    async def before(cmd: RemotingCommand) -> RemotingCommand | None:
        if cmd.code == RC.GET_BROKER_CONFIG:
            return cmd.response(body=f"brokerName={broker.name}\nbrokerPermission={perm}\n".encode())
        if cmd.code == RC.GET_ALL_SUBSCRIPTIONGROUP_CONFIG:
            body = {"dataVersion": {"counter": 1}, "subscriptionGroupTable": GROUPS}
            return cmd.response(body=fastjson.dumps_bytes(body))
        if cmd.code == RC.GET_CONSUME_STATS:
            group = cmd.ext["consumerGroup"]
            if group in stats_fail:
                return cmd.response(ResponseCode.SYSTEM_ERROR, "consume stats exploded")
            # Legacy fastjson form: whole MessageQueue objects as map keys.
            entries = [
                f'{{"brokerName":"{broker.name}","queueId":{q},"topic":"{topic}"}}:'
                f'{{"brokerOffset":{100 + n},"consumerOffset":100,"lastTimestamp":0}}'
                for topic, n in (lag or {}).items()
                for q in range(2)
            ]
            return cmd.response(body=('{"consumeTps":0.0,"offsetTable":{' + ",".join(entries) + "}}").encode())
        return None

    broker.before = before
    return broker


def fleet() -> tuple[KvNamesrv, FakeBroker, FakeBroker, FakeBroker]:
    a = admin_hook(FakeBroker("broker-a", "127.0.0.1:10911"), lag={"T1": 7})
    b = admin_hook(FakeBroker("broker-b", "127.0.0.1:10921"), perm=4)
    slave = FakeBroker("broker-a", "127.0.0.1:10912", broker_id=1)
    a.topics = {
        "T1": TopicConfig("T1", 8, 8, order=True, attributes={"message.type": "FIFO"}),
        "Auto": TopicConfig("Auto", 4, 4),
    }
    b.topics = {"T1": TopicConfig("T1", 8, 8)}
    ns = KvNamesrv("127.0.0.1:9876", [a, b, slave])
    ns.kv[("ORDER_TOPIC_CONFIG", "T1")] = "broker-a:8;broker-b:8"
    return ns, a, b, slave


def rows(root: Path, table: str) -> list[dict[str, Any]]:
    return list(iter_rows(root, load_manifest(root), table))


def test_export_writes_every_table_and_the_manifest(monkeypatch, capsys, tmp_path):
    ns, a, b, slave = fleet()
    cli = Cli(monkeypatch, capsys, ns, a, b, slave)
    out = tmp_path / "export"
    result = cli("exportMetadata", "-n", ns.addr, "--out", str(out))
    assert result.code == 0, result.err
    assert "127.0.0.1:9876" in result.out and "ok" in result.out

    manifest = load_manifest(out)
    assert manifest["status"] == "ok"
    copies = [p for t in manifest["tables"].values() for p in t.get("parquet", [])]
    assert copies == (["topics.parquet"] if importlib.util.find_spec("pyarrow") else [])
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["manifest.json"] + [f"{t}.jsonl.gz" for t in manifest["tables"]] + copies
    )
    src = "127.0.0.1:9876"
    assert rows(out, "clusters") == [{"source": src, "cluster": "DefaultCluster", "namesrv": src}]
    brokers = {(r["broker_name"], r["broker_id"]): r for r in rows(out, "brokers")}
    assert brokers[("broker-a", 0)]["role"] == "master" and brokers[("broker-a", 0)]["broker_perm"] == 6
    assert brokers[("broker-b", 0)]["broker_perm"] == 4
    assert brokers[("broker-a", 1)] == {
        "source": src, "cluster": "DefaultCluster", "broker_name": "broker-a", "broker_id": 1,
        "addr": "127.0.0.1:10912", "role": "slave", "broker_perm": None, "topics_ok": False, "groups_ok": False,
    }  # fmt: skip
    topics = {(r["broker_name"], r["topic"]): r for r in rows(out, "topics")}
    assert set(topics) == {("broker-a", "T1"), ("broker-a", "Auto"), ("broker-b", "T1")}  # never from the slave
    assert topics[("broker-a", "T1")]["order"] is True
    assert topics[("broker-a", "T1")]["attributes"] == {"message.type": "FIFO"}
    assert topics[("broker-a", "Auto")]["write_queue_nums"] == 4
    groups = rows(out, "groups")
    assert {(g["broker_name"], g["group"]) for g in groups} == {
        (x, g) for x in ("broker-a", "broker-b") for g in GROUPS
    }
    assert next(g for g in groups if g["group"] == "G2")["consume_orderly"] is True
    # lag = brokerOffset - consumerOffset summed over the broker's queues of the topic (2 queues x 7)
    lag = [r for r in rows(out, "consumer_lag") if r["lag"]]
    assert {(r["broker_name"], r["group"], r["topic"], r["lag"], r["queues"]) for r in lag} == {
        ("broker-a", "G1", "T1", 14, 2),
        ("broker-a", "G2", "T1", 14, 2),
    }
    assert rows(out, "order_conf") == [{"source": src, "topic": "T1", "order_conf": "broker-a:8;broker-b:8"}]
    per_broker = manifest["sources"][0]["clusters"][0]["brokers"]
    assert [(b["broker_name"], b["role"], b["status"]) for b in per_broker] == [
        ("broker-a", "master", "ok"),
        ("broker-a", "slave", "skipped"),
        ("broker-b", "master", "ok"),
    ]
    assert per_broker[0]["rows"] == {"topics": 2, "groups": 2, "consumer_lag": 2}


def test_a_failed_broker_and_a_dead_source_are_recorded_and_the_rest_exported(monkeypatch, capsys, tmp_path):
    ns, a, b, slave = fleet()
    b.hang = True  # registered, but never answers (a stopped process)
    dead = "127.0.0.1:19876"  # no server there: connection refused
    cli = Cli(monkeypatch, capsys, ns, a, b, slave)
    out = tmp_path / "export"
    result = cli("--timeout", "0.2", "exportMetadata", "-n", ns.addr, "-n", dead, "--out", str(out))
    assert result.code == 3, result.err
    assert "mqadmin: error: part of the fleet could not be collected" in result.err
    assert "Traceback" not in result.err
    manifest = load_manifest(out)
    assert manifest["status"] == "partial"
    by_source = {s["source"]: s for s in manifest["sources"]}
    assert by_source[dead]["status"] == "failed" and "cluster info" in by_source[dead]["reason"]
    live = by_source[ns.addr]
    assert live["status"] == "partial"
    broker_b = next(x for x in live["clusters"][0]["brokers"] if x["broker_name"] == "broker-b")
    assert broker_b["status"] == "failed" and "no answer" in broker_b["reason"]
    # broker-a is fully there; broker-b is a master that was not collected
    assert {r["broker_name"] for r in rows(out, "topics")} == {"broker-a"}
    b_row = next(r for r in rows(out, "brokers") if r["broker_name"] == "broker-b")
    assert (b_row["topics_ok"], b_row["groups_ok"]) == (False, False)
    assert "broker-b" in result.out and "failed" in result.out


def test_a_failing_group_makes_the_broker_partial_not_failed(monkeypatch, capsys, tmp_path):
    ns, a, b, slave = fleet()
    admin_hook(a, lag={"T1": 1}, stats_fail={"G2"})
    cli = Cli(monkeypatch, capsys, ns, a, b, slave)
    out = tmp_path / "export"
    result = cli("--format", "json", "exportMetadata", "-n", ns.addr, "--out", str(out))
    assert result.code == 3
    broker_a = load_manifest(out)["sources"][0]["clusters"][0]["brokers"][0]
    assert broker_a["status"] == "partial"
    assert broker_a["errors"] == ["consume stats of G2: SYSTEM_ERROR (1): consume stats exploded"]
    assert {r["group"] for r in rows(out, "consumer_lag")} == {"G1"}
    doc = result.json()
    assert doc["status"] == "partial" and doc["sources"][0]["reasons"]


def test_every_source_failing_exits_1(monkeypatch, capsys, tmp_path):
    cli = Cli(monkeypatch, capsys)
    result = cli("exportMetadata", "-n", "127.0.0.1:19876", "--out", str(tmp_path / "x"))
    assert result.code == 1
    assert "mqadmin: error: no cluster could be collected" in result.err and "Traceback" not in result.err
    assert load_manifest(tmp_path / "x")["status"] == "failed"


def test_empty_order_namespace_is_no_order_confs_not_a_failure(monkeypatch, capsys, tmp_path):
    ns, a, b, slave = fleet()
    ns.kv.clear()
    cli = Cli(monkeypatch, capsys, ns, a, b, slave)
    assert cli("exportMetadata", "-n", ns.addr, "--out", str(tmp_path / "x")).code == 0
    manifest = load_manifest(tmp_path / "x")
    assert manifest["sources"][0]["order_conf_ok"] is True
    assert manifest["tables"]["order_conf"]["rows"] == 0


def test_fleet_file_names_the_sources(monkeypatch, capsys, tmp_path):
    ns, a, b, slave = fleet()
    cli = Cli(monkeypatch, capsys, ns, a, b, slave)
    fleet_file = tmp_path / "fleet.toml"
    fleet_file.write_text(f'[clusters.prod-a]\nnamesrv = ["{ns.addr}"]\n')
    assert cli("exportMetadata", "--fleet", str(fleet_file), "--out", str(tmp_path / "x")).code == 0
    assert {r["source"] for r in rows(tmp_path / "x", "topics")} == {"prod-a"}
    assert rows(tmp_path / "x", "clusters")[0]["namesrv"] == ns.addr


def test_concurrency_bounds_requests_in_flight(monkeypatch, capsys, tmp_path):
    ns, a, b, slave = fleet()
    in_flight = peak = 0
    inner = a.before

    async def counting(cmd: RemotingCommand) -> RemotingCommand | None:
        import asyncio

        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0)  # let the others start if the semaphore allows
        try:
            return await inner(cmd)
        finally:
            in_flight -= 1

    a.before = counting
    cli = Cli(monkeypatch, capsys, ns, a, b, slave)
    assert cli("exportMetadata", "-n", ns.addr, "--out", str(tmp_path / "x"), "--concurrency", "1").code == 0
    assert peak == 1


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["-n", "nohost"], "bad name server address"),
        (["-n", "127.0.0.1:9876", "-n", "127.0.0.1:9876"], "given twice"),
        (["--fleet", "/nonexistent/fleet.toml"], "does not exist"),
    ],
)
def test_bad_input_is_a_usage_error(monkeypatch, capsys, tmp_path, args, fragment):
    cli = Cli(monkeypatch, capsys)
    result = cli("exportMetadata", *args, "--out", str(tmp_path / "x"))
    assert result.code == 2
    assert_one_line_error(result, fragment)


def test_refuses_a_non_empty_directory_that_is_not_an_export(monkeypatch, capsys, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    cli = Cli(monkeypatch, capsys, *fleet())
    result = cli("exportMetadata", "-n", "127.0.0.1:9876", "--out", str(tmp_path))
    assert result.code == 2
    assert_one_line_error(result, "not empty")
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_re_export_replaces_the_previous_one(monkeypatch, capsys, tmp_path):
    ns, a, b, slave = fleet()
    cli = Cli(monkeypatch, capsys, ns, a, b, slave)
    out = tmp_path / "x"
    assert cli("exportMetadata", "-n", ns.addr, "--out", str(out)).code == 0
    b.topics["Auto"] = TopicConfig("Auto", 4, 4)
    assert cli("exportMetadata", "-n", ns.addr, "--out", str(out)).code == 0
    assert ("broker-b", "Auto") in {(r["broker_name"], r["topic"]) for r in rows(out, "topics")}
    assert not list(out.glob("*.tmp"))
    with gzip.open(out / "topics.jsonl.gz", "rt") as f:
        assert all(json.loads(line)["source"] == ns.addr for line in f)
