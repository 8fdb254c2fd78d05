"""statsAll, clusterRT and the export commands through the CLI entry point, over scripted brokers that answer
the statistics, config and group requests as Java brokers do (the mock transport)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqadmin.model.broker_stats import BrokerStatsData, StatsWindow
from mqadmin.model.clients import Connection, ConsumerConnection
from mqadmin.model.consume import ConsumeStats, QueueProgress
from mqadmin.model.data_version import DataVersion
from mqadmin.model.group import SubscriptionGroupConfig
from mqadmin.model.route import BrokerData, QueueData, TopicRouteData
from mqadmin.model.rpc import brokers, clients, groups, messages, namesrv, namesrv_admin, stats, topics
from mqadmin.model.rpc.spec import Decoded
from mqadmin.model.topic import TopicConfig
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode
from tests.mock_transport import Answer, MockTransport, cluster_info, ok, refuse, routes, runtime, unsupported
from tests.unit.cli_helpers import A, B, Cli, assert_one_line_error

SYSTEM = ["TBW102", "SELF_TEST_TOPIC"]
NS, SLAVE = "127.0.0.1:9876", "127.0.0.1:10915"


@dataclass
class Broker:
    """A broker with statistics items, consumers and offsets, config, groups and a send path."""

    name: str
    version: int = 479
    stats: dict[tuple[str, str], BrokerStatsData] = field(default_factory=dict)
    consumers: dict[str, list[str]] = field(default_factory=dict)  # topic -> groups
    lag: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)  # (group, topic) -> offsets
    connections: dict[str, list[Connection]] = field(default_factory=dict)
    sends: int = 0
    refuse_sends: bool = False
    topics: dict[str, TopicConfig] = field(default_factory=dict)
    groups: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.topics = {n: TopicConfig(n, perm=7 if n != "SELF_TEST_TOPIC" else 6) for n in [*SYSTEM, self.name]}
        self.topics["Orders"] = TopicConfig("Orders")
        self.topics["%RETRY%OrdersConsumer"] = TopicConfig("%RETRY%OrdersConsumer", 1, 1)
        self.groups = {
            "OrdersConsumer": {"groupName": "OrdersConsumer", "retryQueueNums": 1, "consumeEnable": True},
            "TOOLS_CONSUMER": {"groupName": "TOOLS_CONSUMER", "retryQueueNums": 1},
            "CID_RMQ_SYS_TRANS": {"groupName": "CID_RMQ_SYS_TRANS", "retryQueueNums": 1},
        }

    def answers(self) -> dict[Any, Any]:
        config = {"brokerName": self.name, "brokerClusterName": "DefaultCluster", "brokerId": "0",
                  "flushDiskType": "ASYNC_FLUSH", "listenPort": "10911",
                  "clientCallbackExecutorThreads": "8"}  # fmt: skip
        put_tps = "12.5 11.0 10.0" if self.name == "broker-a" else "0.0 0.0 0.0"
        return {
            stats.VIEW_BROKER_STATS_DATA: self._stats,
            topics.QUERY_TOPIC_CONSUME_BY_WHO: lambda req, _a: ok(self.consumers.get(req.header.topic, [])),
            groups.GET_CONSUME_STATS: self._consume_stats,
            brokers.GET_BROKER_CONFIG: ok(config),
            brokers.GET_BROKER_RUNTIME_INFO: ok(runtime(self.version, put_tps)),
            groups.GET_ALL_SUBSCRIPTIONGROUP_CONFIG: lambda _req, _a: ok(self._group_table()),
            topics.GET_ALL_TOPIC_CONFIG: lambda _req, _a: ok(self._topic_table()),
            stats.GET_SYSTEM_TOPIC_LIST_FROM_BROKER: ok([*SYSTEM, self.name]),
            clients.GET_CONSUMER_CONNECTION_LIST: self._connections,
            messages.SEND_MESSAGE_V2: self._send,
        }

    def _group_table(self) -> groups.GroupTable:
        table = groups.GroupTable((n, SubscriptionGroupConfig.from_json(g, n)) for n, g in self.groups.items())
        table.data_version = GROUPS_VERSION
        return table

    def _topic_table(self) -> topics.TopicTable:
        table = topics.TopicTable(self.topics)
        table.data_version = TOPICS_VERSION
        return table

    def _stats(self, req: Decoded[stats.StatsItemHeader, None], _addr: str) -> Answer:
        name, key = req.header.stats_name, req.header.stats_key
        data = self.stats.get((name, key))
        return ok(data) if data else refuse(ResponseCode.SYSTEM_ERROR, f"The stats <{name}> <{key}> not exist")

    def _consume_stats(self, req: Decoded[groups.ConsumeStatsHeader, None], _addr: str) -> Answer:
        group, topic = req.header.consumer_group, req.header.topic or ""
        broker_offset, consumer_offset = self.lag.get((group, topic), (0, 0))
        return ok(ConsumeStats([QueueProgress(topic, self.name, 0, broker_offset, consumer_offset)]))

    def _connections(self, req: Decoded[clients.ConsumerGroupHeader, None], _addr: str) -> Answer:
        conns = self.connections.get(req.header.consumer_group)
        if not conns:
            return refuse(ResponseCode.CONSUMER_NOT_ONLINE, "the consumer group not online")
        return ok(ConsumerConnection(conns))

    def _send(self, req: Decoded[Any, bytes], _addr: str) -> Answer:
        if self.refuse_sends:
            return refuse(ResponseCode.NO_PERMISSION, "the broker's write permission is off")
        self.sends += 1
        return ok(
            header=messages.SendResultHeader(msg_id="00", queue_id=req.header.queue_id, queue_offset=self.sends - 1)
        )


TOPICS_VERSION, GROUPS_VERSION = DataVersion(12, 0, 1_700_000_000_000), DataVersion(3, 1, 1_700_000_000_001)
"""The dataVersion of the brokers' topic and group tables."""


def held(broker: Broker, group: str) -> dict[str, Any]:
    """A group's document as the broker answers it."""
    return SubscriptionGroupConfig.from_json(broker.groups[group], group).to_json()


def window(total: int, tps: float) -> BrokerStatsData:
    return BrokerStatsData(StatsWindow(total, tps), StatsWindow(total, 0.0), StatsWindow(0, 0.0))


@dataclass
class World:
    """The name server (cluster info, topic list, routes of what the brokers hold) and broker-a, broker-b."""

    a: Broker
    b: Broker
    slave: bool = False
    hang: set[str] = field(default_factory=set)
    down: set[str] = field(default_factory=set)

    def cli(self, monkeypatch, capsys) -> Cli:
        on_addr = {A: self.a, B: self.b}
        replicas = [("broker-a", 0, A), ("broker-b", 0, B)] + ([("broker-a", 1, SLAVE)] if self.slave else [])

        def route(req: Decoded[namesrv.RouteHeader, None], _addr: str) -> Answer:
            on = [(addr, b) for addr, b in on_addr.items() if req.header.topic in b.topics]
            if not on:
                return refuse(
                    ResponseCode.TOPIC_NOT_EXIST,
                    f"No topic route info in name server for the topic: {req.header.topic}",
                )
            return ok(TopicRouteData([BrokerData("DefaultCluster", b.name, {0: addr}) for addr, b in on],
                                     [QueueData(b.name, 8, 8, 6) for _, b in on]))  # fmt: skip

        by_addr = {
            NS: routes(
                {
                    namesrv.GET_BROKER_CLUSTER_INFO: ok(cluster_info(*replicas)),
                    namesrv.GET_ALL_TOPIC_LIST_FROM_NAMESERVER: lambda _r, _a: ok(
                        sorted({t for b in on_addr.values() for t in b.topics})
                    ),
                    namesrv.GET_ROUTEINFO_BY_TOPIC: route,
                    namesrv_admin.GET_KVLIST_BY_NAMESPACE: refuse(ResponseCode.QUERY_NOT_FOUND, "No config item"),
                }
            ),  # fmt: skip
            A: routes(self.a.answers()),
            B: routes(self.b.answers()),
        }

        async def handler(req: Decoded[Any, Any], addr: str) -> Any:  # a routed answer: Answer or its awaitable
            if addr in self.hang:
                await asyncio.Event().wait()
            return by_addr[addr](req, addr) if addr in by_addr else unsupported(req)

        transport = MockTransport(handler, down=frozenset(self.down))
        self.transport = transport
        return Cli(monkeypatch, capsys, namesrvs=[NS], transport=transport)


def world(version: int = 479, **kw: Any) -> World:
    return World(Broker("broker-a", version), Broker("broker-b", version), **kw)


# --- statsAll ----------------------------------------------------------------------------------------


def test_stats_all_sums_the_masters_and_reports_each_group(monkeypatch, capsys) -> None:
    w = world()
    a, b = w.a, w.b
    a.stats[("TOPIC_PUT_NUMS", "Orders")] = window(120, 2.0)
    b.stats[("TOPIC_PUT_NUMS", "Orders")] = window(60, 1.0)
    a.stats[("GROUP_GET_NUMS", "Orders@OrdersConsumer")] = window(100, 1.5)
    a.consumers["Orders"] = ["OrdersConsumer"]  # only broker-a knows the group: every master is asked
    a.lag[("OrdersConsumer", "Orders")] = (120, 100)
    b.lag[("OrdersConsumer", "Orders")] = (60, 55)
    cli = w.cli(monkeypatch, capsys)

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
    w = world(hang={B})
    w.a.stats[("TOPIC_PUT_NUMS", "Orders")] = window(10, 0.5)
    r = w.cli(monkeypatch, capsys)("--timeout", "0.3", "--format", "json", "statsAll", "-t", "Orders")
    assert r.code == 3
    doc = r.json()
    assert doc["stats"][0]["inMsg24Hour"] == 10
    assert [(e["name"], e["status"]) for e in doc["results"]] == [("broker-a", "ok"), ("broker-b", "failed")]
    assert doc["outcome"] == "partial"


def test_stats_all_unknown_topic_exits_1(monkeypatch, capsys) -> None:
    r = world().cli(monkeypatch, capsys)("statsAll", "-t", "Nope")
    assert (r.code, r.out) == (1, "")
    assert_one_line_error(r, "TOPIC_NOT_EXIST (17)")


# --- clusterRT ---------------------------------------------------------------------------------------


def test_cluster_rt_sends_to_each_broker_topic(monkeypatch, capsys) -> None:
    w = world()
    a = w.a
    w.b.refuse_sends = True
    cli = w.cli(monkeypatch, capsys)
    r = cli("--format", "json", "clusterRT", "-a", "3", "-s", "16", "--count", "2", "-i", "0")
    lines = r.out.splitlines()
    assert len(lines) == 2
    rows = json.loads(lines[1])["brokers"]
    assert [(x["broker"], x["successCount"], x["failCount"]) for x in rows] == [("broker-a", 3, 0), ("broker-b", 0, 3)]
    assert rows[0]["rt"] > 0 and rows[1]["rt"] is None and "NO_PERMISSION (16)" in rows[1]["reason"]
    assert a.sends == 6 and r.code == 3
    sends = [c for addr, c in w.transport.sent if addr == A and c.code == RC.SEND_MESSAGE_V2]
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
    r = world(slave=True).cli(monkeypatch, capsys)("exportConfigs", "-c", "DefaultCluster", "-f", str(tmp_path))
    assert r.code == 0, r.err
    doc = json.loads((tmp_path / "configs.json").read_text())
    assert doc["clusterScale"] == {"namesrvSize": 1, "masterBrokerSize": 2, "slaveBrokerSize": 1}
    assert doc["brokerConfigs"]["broker-a"] == {
        "brokerClusterName": "DefaultCluster", "brokerId": "0", "brokerName": "broker-a", "flushDiskType": "ASYNC_FLUSH"
    }  # fmt: skip
    assert f"exported to {tmp_path / 'configs.json'}" in r.err


def test_export_metrics(monkeypatch, capsys, tmp_path: Path) -> None:
    w = world(409)  # 4.9 spells getTransferedTps
    w.a.stats[("TOPIC_PUT_NUMS", "RMQ_SYS_TRANS_HALF_TOPIC")] = window(30, 0.5)
    w.a.connections["OrdersConsumer"] = [Connection("c1", "", "JAVA", 409), Connection("c2", "", "GO", 479)]
    r = w.cli(monkeypatch, capsys)("exportMetrics", "-c", "DefaultCluster", "-f", str(tmp_path))
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
    w = world()
    w.b.groups["OrdersConsumer"]["retryQueueNums"] = 2
    cli = w.cli(monkeypatch, capsys)
    r = cli("--format", "json", "exportMetadata", "-c", "DefaultCluster", "-f", str(tmp_path))
    assert r.code == 0, r.err
    assert r.json()["file"] == str(tmp_path / "metadata.json")
    doc = json.loads((tmp_path / "metadata.json").read_text())
    assert set(doc) == {"topicConfigTable", "subscriptionGroupTable", "exportTime"}
    assert list(doc["topicConfigTable"]) == ["Orders"]  # system, broker-name and %RETRY% topics left out
    orders = doc["topicConfigTable"]["Orders"]
    assert (orders["readQueueNums"], orders["writeQueueNums"], orders["topicName"]) == (16, 16, "Orders")
    merged = held(w.a, "OrdersConsumer") | {"retryQueueNums": 3}  # the masters' retry queues added up
    assert doc["subscriptionGroupTable"] == {"OrdersConsumer": merged}

    special = cli("exportMetadata", "-c", "DefaultCluster", "-t", "-s", "-f", str(tmp_path))
    assert special.code == 0
    topics = json.loads((tmp_path / "topic.json").read_text())
    assert set(topics) == {"topicConfigTable", "exportTime"}
    assert sorted(topics["topicConfigTable"]) == ["%RETRY%OrdersConsumer", "Orders"]


def test_export_metadata_javas_broker_form_writes_the_wrappers(monkeypatch, capsys, tmp_path: Path) -> None:
    w = world()
    a = w.a
    cli = w.cli(monkeypatch, capsys)
    assert cli("exportMetadata", "-b", A, "-g", "-f", str(tmp_path)).code == 0
    groups = json.loads((tmp_path / "subscriptionGroup.json").read_text())
    assert groups["dataVersion"] == {"counter": 3, "stateVersion": 1, "timestamp": 1_700_000_000_001}  # the broker's
    assert groups["forbiddenTable"] == {}
    assert groups["subscriptionGroupTable"] == {"OrdersConsumer": held(a, "OrdersConsumer")}
    assert cli("exportMetadata", "-b", A, "-t", "-f", str(tmp_path)).code == 0
    topic_doc = json.loads((tmp_path / "topic.json").read_text())
    assert list(topic_doc["topicConfigTable"]) == ["Orders"]
    assert topic_doc["dataVersion"] == {"counter": 12, "stateVersion": 0, "timestamp": 1_700_000_000_000}


def test_export_metadata_without_javas_options_is_the_fleet_export(monkeypatch, capsys, tmp_path: Path) -> None:
    cli = world().cli(monkeypatch, capsys)
    no_out = cli("exportMetadata")
    assert no_out.code == 2
    assert_one_line_error(no_out, "--out DIR is required")
    fleet = cli("--format", "json", "exportMetadata", "--out", str(tmp_path / "fleet"))
    assert (tmp_path / "fleet" / "manifest.json").exists() and "sources" in fleet.json()  # the fleet export ran
    assert not (tmp_path / "fleet" / "metadata.json").exists()
    for args, fragment in (
        (["-c", "DefaultCluster", "--out", str(tmp_path / "x")], "--fleet and --out belong to the fleet export"),
        (["-c", "DefaultCluster", "-b", A], "not both"),
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
    w = world(down={B})
    cli = w.cli(monkeypatch, capsys)
    partial = cli("--format", "json", "exportConfigs", "-c", "DefaultCluster", "-f", str(tmp_path))
    assert partial.code == 3
    assert list(json.loads((tmp_path / "configs.json").read_text())["brokerConfigs"]) == ["broker-a"]
    w.transport.down.add(A)
    failed = cli("--format", "json", "exportMetrics", "-c", "DefaultCluster", "-f", str(tmp_path))
    assert failed.code == 1 and failed.out == "" and failed.error_json()["document"]["file"] is None
    assert not (tmp_path / "metrics.json").exists()
