"""statsAll, clusterRT and the export commands through the CLI entry point, against fake brokers that answer
the statistics, config and group requests as Java brokers do."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqadmin.model.broker_stats import BrokerStatsData, StatsWindow
from mqadmin.model.consume import ConsumeStats, ConsumeStatsBody, QueueProgress
from mqadmin.model.rpc.stats import GET_SYSTEM_TOPIC_LIST_FROM_BROKER_CODE, VIEW_BROKER_STATS_DATA_CODE
from mqadmin.model.topic import TopicConfig
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand
from mqadmin.wire.properties import format_properties
from tests.unit.cli_helpers import Cli, assert_one_line_error
from tests.unit.fake_remoting import FakeBroker, FakeNamesrv, two_broker_cluster

SYSTEM = ["TBW102", "SELF_TEST_TOPIC"]


@dataclass
class Broker(FakeBroker):
    """A fake broker with statistics items, consumers and offsets, config, groups and a send path."""

    stats: dict[tuple[str, str], BrokerStatsData] = field(default_factory=dict)
    consumers: dict[str, list[str]] = field(default_factory=dict)  # topic -> groups
    lag: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)  # (group, topic) -> offsets
    config: dict[str, str] = field(default_factory=dict)
    groups: dict[str, dict[str, Any]] = field(default_factory=dict)
    connections: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    sends: int = 0
    refuse_sends: bool = False

    def _answer(self, cmd: RemotingCommand) -> RemotingCommand:
        if cmd.code == VIEW_BROKER_STATS_DATA_CODE:
            name, key = cmd.ext["statsName"], cmd.ext["statsKey"]
            data = self.stats.get((name, key))
            if data is None:
                return cmd.response(ResponseCode.SYSTEM_ERROR, f"The stats <{name}> <{key}> not exist")
            return cmd.response(body=fastjson.dumps_bytes(data.to_json()))
        if cmd.code == RC.QUERY_TOPIC_CONSUME_BY_WHO:
            return cmd.response(body=fastjson.dumps_bytes({"groupList": self.consumers.get(cmd.ext["topic"], [])}))
        if cmd.code == RC.GET_CONSUME_STATS:
            group, topic = cmd.ext["consumerGroup"], cmd.ext["topic"]
            broker_offset, consumer_offset = self.lag.get((group, topic), (0, 0))
            queues = [QueueProgress(topic, self.name, 0, broker_offset, consumer_offset)]
            return cmd.response(body=ConsumeStatsBody().encode(ConsumeStats(queues)))
        if cmd.code == RC.GET_BROKER_CONFIG:
            return cmd.response(body=format_properties(self.config).encode())
        if cmd.code == RC.GET_ALL_SUBSCRIPTIONGROUP_CONFIG:
            body = {"dataVersion": {"counter": 3}, "subscriptionGroupTable": self.groups}
            return cmd.response(body=fastjson.dumps_bytes(body))
        if cmd.code == GET_SYSTEM_TOPIC_LIST_FROM_BROKER_CODE:
            return cmd.response(body=fastjson.dumps_bytes({"topicList": SYSTEM + [self.name]}))
        if cmd.code == RC.GET_CONSUMER_CONNECTION_LIST:
            conns = self.connections.get(cmd.ext["consumerGroup"])
            if not conns:
                return cmd.response(ResponseCode.CONSUMER_NOT_ONLINE, "the consumer group not online")
            return cmd.response(body=fastjson.dumps_bytes({"connectionSet": conns}))
        if cmd.code == RC.SEND_MESSAGE_V2:
            if self.refuse_sends:
                return cmd.response(ResponseCode.NO_PERMISSION, "the broker's write permission is off")
            self.sends += 1
            return cmd.response(ext={"msgId": "00", "queueId": cmd.ext["e"], "queueOffset": str(self.sends - 1)})
        return super()._answer(cmd)


def window(total: int, tps: float) -> BrokerStatsData:
    return BrokerStatsData(StatsWindow(total, tps), StatsWindow(total, 0.0), StatsWindow(0, 0.0))


def cluster(version: int = 479) -> tuple[FakeNamesrv, Broker, Broker]:
    _, fa, fb = two_broker_cluster(version)
    a = Broker(fa.name, fa.addr, version=version, runtime=fa.runtime)
    b = Broker(fb.name, fb.addr, version=version, runtime=fb.runtime)
    for br in (a, b):
        br.topics = {n: TopicConfig(n, perm=7 if n != "SELF_TEST_TOPIC" else 6) for n in [*SYSTEM, br.name]}
        br.topics["Orders"] = TopicConfig("Orders")
        br.topics["%RETRY%OrdersConsumer"] = TopicConfig("%RETRY%OrdersConsumer", 1, 1)
        br.groups = {
            "OrdersConsumer": {"groupName": "OrdersConsumer", "retryQueueNums": 1, "consumeEnable": True},
            "TOOLS_CONSUMER": {"groupName": "TOOLS_CONSUMER", "retryQueueNums": 1},
            "CID_RMQ_SYS_TRANS": {"groupName": "CID_RMQ_SYS_TRANS", "retryQueueNums": 1},
        }
        br.config = {"brokerName": br.name, "brokerClusterName": "DefaultCluster", "brokerId": "0",
                     "flushDiskType": "ASYNC_FLUSH", "listenPort": "10911",
                     "clientCallbackExecutorThreads": "8"}  # fmt: skip
    return FakeNamesrv("127.0.0.1:9876", [a, b]), a, b


# --- statsAll ----------------------------------------------------------------------------------------


def test_stats_all_sums_the_masters_and_reports_each_group(monkeypatch, capsys) -> None:
    ns, a, b = cluster()
    a.stats[("TOPIC_PUT_NUMS", "Orders")] = window(120, 2.0)
    b.stats[("TOPIC_PUT_NUMS", "Orders")] = window(60, 1.0)
    a.stats[("GROUP_GET_NUMS", "Orders@OrdersConsumer")] = window(100, 1.5)
    a.consumers["Orders"] = ["OrdersConsumer"]  # only broker-a knows the group: every master is asked
    a.lag[("OrdersConsumer", "Orders")] = (120, 100)
    b.lag[("OrdersConsumer", "Orders")] = (60, 55)
    cli = Cli(monkeypatch, capsys, ns, a, b)

    r = cli("--format", "json", "statsAll", "-t", "Orders")
    assert r.code == 0, r.err
    assert r.json()["stats"] == [
        {"topic": "Orders", "group": "OrdersConsumer", "accumulation": 25, "inTps": 3.0, "outTps": 1.5,
         "inMsg24Hour": 180, "outMsg24Hour": 100}
    ]  # fmt: skip

    every = cli("statsAll")
    topics = [line.split()[0] for line in every.out.splitlines()[1:]]
    assert topics == ["Orders", "SELF_TEST_TOPIC", "TBW102", "broker-a", "broker-b"]  # no %RETRY% topic
    assert every.out.splitlines()[2].split() == ["SELF_TEST_TOPIC", "-", "0", "0.00", "-", "0", "NO_CONSUMER"]
    active = cli("statsAll", "-a")
    assert [line.split()[:2] for line in active.out.splitlines()[1:]] == [["Orders", "OrdersConsumer"]]


def test_stats_all_names_a_broker_that_did_not_answer(monkeypatch, capsys) -> None:
    ns, a, b = cluster()
    a.stats[("TOPIC_PUT_NUMS", "Orders")] = window(10, 0.5)
    b.hang = True
    r = Cli(monkeypatch, capsys, ns, a, b)("--timeout", "0.3", "--format", "json", "statsAll", "-t", "Orders")
    assert r.code == 3
    doc = r.json()
    assert doc["stats"][0]["inMsg24Hour"] == 10
    assert [(e["name"], e["status"]) for e in doc["results"]] == [("broker-a", "ok"), ("broker-b", "failed")]
    assert doc["outcome"] == "partial"


def test_stats_all_unknown_topic_exits_1(monkeypatch, capsys) -> None:
    ns, a, b = cluster()
    r = Cli(monkeypatch, capsys, ns, a, b)("statsAll", "-t", "Nope")
    assert (r.code, r.out) == (1, "")
    assert_one_line_error(r, "TOPIC_NOT_EXIST (17)")


# --- clusterRT ---------------------------------------------------------------------------------------


def test_cluster_rt_sends_to_each_broker_topic(monkeypatch, capsys) -> None:
    ns, a, b = cluster()
    b.refuse_sends = True
    cli = Cli(monkeypatch, capsys, ns, a, b)
    r = cli("--format", "json", "clusterRT", "-a", "3", "-s", "16", "--count", "2", "-i", "0")
    lines = r.out.splitlines()
    assert len(lines) == 2
    rows = json.loads(lines[1])["brokers"]
    assert [(x["broker"], x["successCount"], x["failCount"]) for x in rows] == [("broker-a", 3, 0), ("broker-b", 0, 3)]
    assert rows[0]["rt"] > 0 and rows[1]["rt"] is None and "NO_PERMISSION (16)" in rows[1]["reason"]
    assert a.sends == 6 and r.code == 3
    sends = [c for addr, c in cli.transport.sent if addr == a.addr and c.code == RC.SEND_MESSAGE_V2]
    assert {(c.ext["b"], len(c.body)) for c in sends} == {("broker-a", 16)}

    log = cli("clusterRT", "-c", "DefaultCluster", "-a", "2", "--count", "1", "-p", "true", "-m", "room1")
    fields = [line.split("|") for line in log.out.splitlines()]
    assert [f[1:4] for f in fields] == [["room1", "DefaultCluster", name] for name in ("broker-a", "broker-b")]
    assert fields[1][4] == "-"
    unknown = cli("clusterRT", "-c", "Nope", "--count", "1")
    assert unknown.code == 2
    assert_one_line_error(unknown, "cluster 'Nope' is not known")


# --- exports -----------------------------------------------------------------------------------------


def test_export_configs_writes_javas_keys_and_the_cluster_scale(monkeypatch, capsys, tmp_path: Path) -> None:
    ns, a, b = cluster()
    slave = Broker("broker-a", "127.0.0.1:10915", broker_id=1)
    ns.brokers.append(slave)
    r = Cli(monkeypatch, capsys, ns, a, b, slave)("exportConfigs", "-c", "DefaultCluster", "-f", str(tmp_path))
    assert r.code == 0, r.err
    doc = json.loads((tmp_path / "configs.json").read_text())
    assert doc["clusterScale"] == {"namesrvSize": 1, "masterBrokerSize": 2, "slaveBrokerSize": 1}
    assert doc["brokerConfigs"]["broker-a"] == {
        "brokerClusterName": "DefaultCluster", "brokerId": "0", "brokerName": "broker-a", "flushDiskType": "ASYNC_FLUSH"
    }  # fmt: skip
    assert f"exported to {tmp_path / 'configs.json'}" in r.err


def test_export_metrics(monkeypatch, capsys, tmp_path: Path) -> None:
    ns, a, b = cluster(409)  # 4.9 spells getTransferedTps
    a.stats[("TOPIC_PUT_NUMS", "RMQ_SYS_TRANS_HALF_TOPIC")] = window(30, 0.5)
    a.connections["OrdersConsumer"] = [{"language": "JAVA", "version": 409}, {"language": "GO", "version": 479}]
    r = Cli(monkeypatch, capsys, ns, a, b)("exportMetrics", "-c", "DefaultCluster", "-f", str(tmp_path))
    assert r.code == 0, r.err
    doc = json.loads((tmp_path / "metrics.json").read_text())
    report = doc["evaluateReport"]["broker-a"]
    assert report["runtimeEnv"] == {"cpuNum": "8"}  # no totalMemKBytes: null values are left out, as in Java
    quota = report["runtimeQuota"]
    assert quota["tps"] == {"normalInTps": 12.5, "normalOutTps": 3.25, "transInTps": 0.5, "scheduleInTps": 0.0}
    assert quota["oneDayNum"] == {"normalOneDayInNum": 60, "normalOneDayOutNum": 50, "transOneDayInNum": 30,
                                  "scheduleOneDayInNum": 0}  # fmt: skip
    assert (quota["topicSize"], quota["groupSize"]) == (1, 1)  # Orders; OrdersConsumer
    assert report["runtimeVersion"] == {"rocketmqVersion": "V4_9_8", "clientInfo": ["GO%V5_3_3", "JAVA%V4_9_8"]}
    assert doc["totalData"]["totalTps"]["totalNormalInTps"] == 12.5  # broker-b puts 0.0
    assert doc["totalData"]["totalOneDayNum"]["normalOneDayInNum"] == 120


def test_export_metadata_javas_cluster_form_merges_the_masters(monkeypatch, capsys, tmp_path: Path) -> None:
    ns, a, b = cluster()
    b.groups["OrdersConsumer"]["retryQueueNums"] = 2
    cli = Cli(monkeypatch, capsys, ns, a, b)
    r = cli("--format", "json", "exportMetadata", "-c", "DefaultCluster", "-f", str(tmp_path))
    assert r.code == 0, r.err
    assert r.json()["file"] == str(tmp_path / "metadata.json")
    doc = json.loads((tmp_path / "metadata.json").read_text())
    assert set(doc) == {"topicConfigTable", "subscriptionGroupTable", "exportTime"}
    assert list(doc["topicConfigTable"]) == ["Orders"]  # system, broker-name and %RETRY% topics left out
    orders = doc["topicConfigTable"]["Orders"]
    assert (orders["readQueueNums"], orders["writeQueueNums"], orders["topicName"]) == (16, 16, "Orders")
    assert doc["subscriptionGroupTable"] == {
        "OrdersConsumer": {"groupName": "OrdersConsumer", "retryQueueNums": 3, "consumeEnable": True}
    }

    special = cli("exportMetadata", "-c", "DefaultCluster", "-t", "-s", "-f", str(tmp_path))
    assert special.code == 0
    topics = json.loads((tmp_path / "topic.json").read_text())
    assert set(topics) == {"topicConfigTable", "exportTime"}
    assert sorted(topics["topicConfigTable"]) == ["%RETRY%OrdersConsumer", "Orders"]


def test_export_metadata_javas_broker_form_writes_the_wrappers(monkeypatch, capsys, tmp_path: Path) -> None:
    ns, a, b = cluster()
    cli = Cli(monkeypatch, capsys, ns, a, b)
    assert cli("exportMetadata", "-b", a.addr, "-g", "-f", str(tmp_path)).code == 0
    groups = json.loads((tmp_path / "subscriptionGroup.json").read_text())
    assert groups == {
        "dataVersion": {"counter": 3},
        "forbiddenTable": {},
        "subscriptionGroupTable": {"OrdersConsumer": a.groups["OrdersConsumer"]},
    }
    assert cli("exportMetadata", "-b", a.addr, "-t", "-f", str(tmp_path)).code == 0
    assert list(json.loads((tmp_path / "topic.json").read_text())["topicConfigTable"]) == ["Orders"]


def test_export_metadata_without_javas_options_is_the_fleet_export(monkeypatch, capsys, tmp_path: Path) -> None:
    ns, a, b = cluster()
    cli = Cli(monkeypatch, capsys, ns, a, b)
    no_out = cli("exportMetadata")
    assert no_out.code == 2
    assert_one_line_error(no_out, "--out DIR is required")
    fleet = cli("--format", "json", "exportMetadata", "--out", str(tmp_path / "fleet"))
    assert (tmp_path / "fleet" / "manifest.json").exists() and "sources" in fleet.json()  # the fleet export ran
    assert not (tmp_path / "fleet" / "metadata.json").exists()
    for args, fragment in (
        (["-c", "DefaultCluster", "--out", str(tmp_path / "x")], "--fleet and --out belong to the fleet export"),
        (["-c", "DefaultCluster", "-b", a.addr], "not both"),
        (["-c", "DefaultCluster", "-t", "-g"], "-t and -g exclude each other"),
        (["-t"], "give -b HOST:PORT"),
        (["-c", "DefaultCluster", "-f", str(tmp_path / "fleet" / "manifest.json")], "is a file"),
    ):
        r = cli("exportMetadata", *args)
        assert r.code == 2, (args, r.err)
        assert_one_line_error(r, fragment)


def test_a_master_that_fails_is_left_out_and_nothing_is_written_when_all_fail(
    monkeypatch, capsys, tmp_path: Path
) -> None:
    ns, a, b = cluster()
    b.down = True
    cli = Cli(monkeypatch, capsys, ns, a, b)
    partial = cli("--format", "json", "exportConfigs", "-c", "DefaultCluster", "-f", str(tmp_path))
    assert partial.code == 3
    assert list(json.loads((tmp_path / "configs.json").read_text())["brokerConfigs"]) == ["broker-a"]
    a.down = True
    failed = cli("--format", "json", "exportMetrics", "-c", "DefaultCluster", "-f", str(tmp_path))
    assert failed.code == 1 and failed.json()["file"] is None
    assert not (tmp_path / "metrics.json").exists()
