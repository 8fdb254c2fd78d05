"""The consumer, producer and offset commands through the CLI entry point, over the mock transport: scripted
brokers with online clients, depths and offsets, answering as Apache 5.x (and 4.9) brokers do."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from mqadmin.model.clients import ConsumerRunningInfo
from mqadmin.model.consume import ConsumeStats, QueueProgress
from mqadmin.model.queue import MessageQueue
from mqadmin.model.rpc import clients, consumers, groups, messages, topics
from mqadmin.model.rpc.consumers import ConsumerStatus
from mqadmin.model.rpc.spec import Decoded
from mqadmin.model.stats import QueueOffsets, TopicStats
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode as R
from mqadmin.wire.frame import RemotingCommand
from tests.mock_transport import Answer, MockTransport, Result, by_method, cluster_info, ok, refuse, topic_route
from tests.unit.cli_helpers import A, B, Cli, assert_one_line_error

G, T = "OrdersConsumer", "Orders"
T0 = 1_700_000_000_000
"""Message i of every queue was stored at T0 + i minutes."""
MINUTE = 60_000


@dataclass
class Client:
    client_id: str
    language: str = "JAVA"
    version: int = 409
    info: dict[str, Any] | None = None
    """GET_CONSUMER_RUNNING_INFO answer (None: the client does not answer)."""
    holds: dict[MessageQueue, int] = field(default_factory=dict)
    """GET_CONSUMER_STATUS_FROM_CLIENT answer."""


@dataclass
class ConsumerBroker:
    """The consumer side of a scripted broker: queues with messages, committed offsets, online consumers and
    producers, and the consumer and offset requests, answered as Apache 5.x does (4.9 with ``version`` 409:
    a reset needs an online consumer and commits nothing, no request modes). One method per request."""

    name: str
    addr: str
    version: int = 479
    depth: dict[str, list[int]] = field(default_factory=dict)
    """Topic → messages in each queue."""
    offsets: dict[tuple[str, str], dict[int, int]] = field(default_factory=dict)
    """(group, topic) → committed offset per queue."""
    online: dict[str, list[Client]] = field(default_factory=dict)
    subscriptions: dict[str, list[str]] = field(default_factory=dict)
    producers: dict[str, list[Client]] = field(default_factory=dict)
    modes: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    fail: dict[int, tuple[int, str]] = field(default_factory=dict)
    """Request code → (response code, remark) to answer instead."""
    commits_before_failing: int | None = None
    """UPDATE_CONSUMER_OFFSET requests answered before the next ones fail."""
    requests: list[RemotingCommand] = field(default_factory=list)

    def add_topic(self, topic: str, depths: list[int]) -> None:
        self.depth[topic] = depths

    def add_group(self, group: str, topic: str, offsets: list[int]) -> None:
        """A group with a retry topic and these committed offsets on ``topic``."""
        self.add_topic("%RETRY%" + group, self.depth.get("%RETRY%" + group, [0]))
        self.offsets[(group, topic)] = dict(enumerate(offsets))

    @property
    def v5(self) -> bool:
        return self.version >= 413

    def codes(self) -> list[int]:
        return [c.code for c in self.requests]

    def handle(self, req: Decoded[Any, Any]) -> Result:
        self.requests.append(req.cmd)
        if req.cmd.code in self.fail:
            return refuse(*self.fail[req.cmd.code])
        return by_method(self, req)

    # --- offsets -----------------------------------------------------------------------------

    def get_consume_stats(self, req: Decoded[groups.ConsumeStatsHeader, None]) -> Answer:
        rows = []
        for (g, topic), table in sorted(self.offsets.items()):
            if g != req.header.consumer_group or (req.header.topic and topic != req.header.topic):
                continue
            for qid, depth in enumerate(self.depth.get(topic, [])):
                off = table.get(qid, 0)
                last = T0 + (off - 1) * MINUTE if off else 0
                rows.append(QueueProgress(topic, self.name, qid, depth, off, off, last))
        return ok(ConsumeStats(rows, 1.5))

    def get_all_consumer_offset(self, req: Decoded[None, None]) -> Answer:
        return ok({f"{topic}@{group}": dict(queues) for (group, topic), queues in self.offsets.items()})

    def get_topic_stats_info(self, req: Decoded[topics.TopicHeader, None]) -> Answer:
        topic = req.header.topic
        if topic not in self.depth:
            return refuse(R.TOPIC_NOT_EXIST, "topic not exist")
        return ok(TopicStats([QueueOffsets(topic, self.name, q, 0, d, T0) for q, d in enumerate(self.depth[topic])]))

    def search_offset_by_timestamp(self, req: Decoded[messages.SearchOffsetHeader, None]) -> Answer:
        h = req.header
        offset = min(max(-(-(h.timestamp - T0) // MINUTE), 0), self.depth[h.topic][h.queue_id])
        return ok(header=messages.OffsetHeader(offset=offset))

    def get_max_offset(self, req: Decoded[messages.QueueHeader, None]) -> Answer:
        return ok(header=messages.OffsetHeader(offset=self.depth[req.header.topic][req.header.queue_id]))

    def get_min_offset(self, req: Decoded[messages.QueueHeader, None]) -> Answer:
        return ok(header=messages.OffsetHeader(offset=0))

    def update_consumer_offset(self, req: Decoded[clients.UpdateOffsetHeader, None]) -> Answer:
        if self.commits_before_failing is not None:
            if self.commits_before_failing == 0:
                return refuse(R.SYSTEM_ERROR, "disk full")
            self.commits_before_failing -= 1
        h = req.header
        self.offsets.setdefault((h.consumer_group, h.topic), {})[h.queue_id] = h.commit_offset
        return ok()

    def invoke_broker_to_reset_offset(self, req: Decoded[consumers.ResetOffsetHeader, None]) -> Answer:
        h = req.header
        if not self.v5 and not self.online.get(h.group):
            return refuse(R.CONSUMER_NOT_ONLINE, f"Consumer not online, so can not reset offset, Group: {h.group}")
        table = self.offsets.setdefault((h.group, h.topic), {})
        one_queue = h.queue_id is not None and h.queue_id >= 0
        queues = [h.queue_id] if one_queue and h.queue_id is not None else range(len(self.depth[h.topic]))
        out = {}
        for qid in queues:
            depth = self.depth[h.topic][qid]
            if h.offset not in (None, -1) and one_queue:
                target = h.offset
            elif h.timestamp < 0:
                target = depth
            else:
                target = min(max(-(-(h.timestamp - T0) // MINUTE), 0), depth)
            if not h.is_force and table.get(qid, 0) < target and not self.v5:
                target = table.get(qid, 0)
            if self.v5:  # a 5.x broker commits itself; a 4.9 one leaves it to the consumers
                table[qid] = target
            out[MessageQueue(h.topic, self.name, qid)] = target
        return ok(out)

    # --- clients -----------------------------------------------------------------------------

    def get_consumer_connection_list(self, req: Decoded[clients.ConsumerGroupHeader, None]) -> Answer:
        group = req.header.consumer_group
        online = self.online.get(group)
        if not online:
            return refuse(R.CONSUMER_NOT_ONLINE, f"the consumer group[{group}] not online")
        subs = {t: {"subString": "*", "subVersion": 1, "topic": t} for t in self.subscriptions.get(group, [])}
        return ok(clients.CONSUMER_CONNECTION.from_json({
            "connectionSet": [{"clientAddr": f"10.0.0.{i}:5000", "clientId": c.client_id, "language": c.language,
                               "version": c.version} for i, c in enumerate(online)],
            "consumeFromWhere": "CONSUME_FROM_LAST_OFFSET", "consumeType": "CONSUME_PASSIVELY",
            "messageModel": "CLUSTERING", "subscriptionTable": subs,
        }))  # fmt: skip

    def get_producer_connection_list(self, req: Decoded[clients.ProducerGroupHeader, None]) -> Answer:
        group = req.header.producer_group
        if group not in self.producers:
            return refuse(R.SYSTEM_ERROR, f"the producer group[{group}] not exist")
        conns = [{"clientAddr": "10.0.0.9:6000", "clientId": p.client_id, "language": p.language,
                  "version": p.version} for p in self.producers[group]]  # fmt: skip
        return ok(clients.PRODUCER_CONNECTION.from_json({"connectionSet": conns}))

    def get_all_producer_info(self, req: Decoded[None, None]) -> Answer:
        data = {g: [{"clientId": p.client_id, "language": p.language, "lastUpdateTimestamp": T0,
                     "remoteIP": "10.0.0.9:6000", "version": p.version} for p in ps]
                for g, ps in self.producers.items()}  # fmt: skip
        return ok(consumers.PRODUCER_TABLE.from_json({"data": data}))

    def get_consumer_running_info(self, req: Decoded[clients.RunningInfoHeader, None]) -> Answer:
        h = req.header
        client = next((c for c in self.online.get(h.consumer_group, []) if c.client_id == h.client_id), None)
        if client is None or client.info is None:
            return refuse(R.SYSTEM_ERROR, f"The Consumer <{h.consumer_group}> <{h.client_id}> not online")
        info = dict(client.info)
        if h.jstack_enable and client.language == "JAVA":
            info["jstack"] = '"main" #1 prio=5\n\tat Foo.bar(Foo.java:1)'
        return ok(ConsumerRunningInfo.from_json(info))

    def invoke_broker_to_get_consumer_status(self, req: Decoded[consumers.ConsumerStatusHeader, None]) -> Answer:
        h = req.header
        held = {c.client_id: c.holds for c in self.online.get(h.group, []) if h.client_addr in (None, c.client_id)}
        return ok(ConsumerStatus({}, held))

    # --- request modes (5.x) -----------------------------------------------------------------

    def get_all_message_request_mode(self, req: Decoded[None, None]) -> Result:
        if not self.v5:
            return by_method(None, req)
        table: dict[str, dict[str, Any]] = {}
        for (topic, group), mode in self.modes.items():
            table.setdefault(topic, {})[group] = mode
        return ok({"messageRequestModeMap": table})

    def set_message_request_mode(self, req: Decoded[None, consumers.RequestMode]) -> Result:
        if not self.v5:
            return by_method(None, req)
        self.modes[(req.body.topic, req.body.consumer_group)] = req.body.to_json()
        return ok()


def running_info(topic: str, broker: str, *, cached: int = 0, last_consume: int = 0) -> dict[str, Any]:
    """A ConsumerRunningInfo as the Java client writes it (queue keys as objects)."""
    mq = fastjson.dumps(MessageQueue(topic, broker, 0).to_json())
    return {
        "properties": {"PROP_CONSUME_TYPE": "CONSUME_PASSIVELY", "PROP_CONSUMEORDERLY": "false",
                       "PROP_CONSUMER_START_TIMESTAMP": str(T0), "PROP_CLIENT_VERSION": "V4_9_8"},
        "subscriptionSet": [{"topic": topic, "subString": "*", "subVersion": 1}],
        "mqTable": {mq: {"commitOffset": 3, "cachedMsgCount": cached, "cachedMsgMinOffset": 3,
                         "cachedMsgMaxOffset": 3 + cached, "locked": False, "droped": False,
                         "lastPullTimestamp": T0, "lastConsumeTimestamp": last_consume}},
        "statusTable": {topic: {"pullRT": 1.5, "pullTPS": 2.0, "consumeRT": 3.0, "consumeOKTPS": 4.0,
                                "consumeFailedTPS": 0.0, "consumeFailedMsgs": 0}},
    }  # fmt: skip


def serving(*brokers: ConsumerBroker) -> MockTransport:
    """A name server routing each topic to the brokers that hold it, and the brokers behind it."""
    by_addr = {b.addr: b for b in brokers}

    def handler(req: Decoded[Any, Any], addr: str) -> Result:
        if addr in by_addr:
            return by_addr[addr].handle(req)
        if req.cmd.code == RC.GET_BROKER_CLUSTER_INFO:
            return ok(cluster_info(*((b.name, 0, b.addr) for b in brokers)))
        if req.cmd.code == RC.GET_ALL_TOPIC_LIST_FROM_NAMESERVER:
            return ok(sorted({t for b in brokers for t in b.depth}))
        if req.cmd.code == RC.GET_ROUTEINFO_BY_TOPIC:
            topic = req.header.topic
            held = [(b.name, b.addr) for b in brokers if topic in b.depth]
            return ok(topic_route(*held)) if held else refuse(R.TOPIC_NOT_EXIST, f"No topic route info for {topic}")
        return by_method(None, req)

    return MockTransport(handler, version=brokers[0].version)


def _world(version: int = 479) -> tuple[None, ConsumerBroker, ConsumerBroker]:
    sa, sb = ConsumerBroker("broker-a", A, version), ConsumerBroker("broker-b", B, version)
    sa.add_topic(T, [10, 4])
    sb.add_topic(T, [6, 0])
    sa.add_group(G, T, [7, 4])  # lag 3 + 0
    sb.add_group(G, T, [1, 0])  # lag 5 + 0
    return None, sa, sb


def cli_of(monkeypatch, capsys, world: tuple[None, ConsumerBroker, ConsumerBroker]) -> Cli:
    _, sa, sb = world
    return Cli(monkeypatch, capsys, namesrvs=["127.0.0.1:9876"], transport=serving(sa, sb))


@pytest.fixture
def world() -> tuple[None, ConsumerBroker, ConsumerBroker]:
    return _world()


@pytest.fixture
def cli(monkeypatch, capsys, world) -> Cli:
    return cli_of(monkeypatch, capsys, world)


def rows(out: str) -> list[list[str]]:
    return [line.split() for line in out.strip().splitlines()]


# --- consumerProgress -----------------------------------------------------------------------------


def test_progress_of_one_group_per_queue_with_totals(cli: Cli, world) -> None:
    _, sa, _ = world
    sa.online[G] = [Client("10.0.0.1@1")]
    r = cli("consumerProgress", "-g", G)
    assert r.code == 0, r.err
    table = rows(r.out)
    assert table[0] == ["TOPIC", "BROKER", "QID", "BROKER", "OFFSET", "CONSUMER", "OFFSET", "LAG", "INFLIGHT", "LAST",
                        "CONSUMED"]  # fmt: skip
    assert [row[:6] for row in table[1:5]] == [
        [T, "broker-a", "0", "10", "7", "3"],
        [T, "broker-a", "1", "4", "4", "0"],
        [T, "broker-b", "0", "6", "1", "5"],
        [T, "broker-b", "1", "0", "0", "0"],
    ]
    assert "Lag total: 8" in r.out and "Consume TPS: 3.00" in r.out
    assert "Consumers: 1 online (PUSH, CLUSTERING)" in r.out
    assert "Dead letters (%DLQ%OrdersConsumer): 0" in r.out


def test_progress_of_a_group_that_only_has_offsets_and_in_the_group_list(cli: Cli, world) -> None:
    """Offsets set before any consumer ran: no %RETRY% route; the masters' offset tables know the group."""
    _, sa, sb = world
    sa.offsets[("Fresh", T)] = {0: 2, 1: 4}
    sa.offsets[("Fresh", "%RETRY%Fresh")] = {0: 0}
    sb.offsets[("SystemOnly", "RMQ_SYS_TRANS_HALF_TOPIC")] = {0: 0}  # not a consumer group of a user topic
    r = cli("--format", "json", "consumerProgress", "-g", "Fresh")
    assert r.code == 0, r.err
    doc = r.json()
    assert [(q["brokerName"], q["queueId"], q["lag"]) for q in doc["queues"]] == [
        ("broker-a", 0, 8),
        ("broker-a", 1, 0),
    ]
    assert doc["online"] is False and doc["lagTotal"] == 8
    assert sb.codes().count(208) == 0  # only the master holding the group is asked for its progress

    listed = cli("--format", "json", "consumerProgress").json()
    assert [(g["group"], g["lag"]) for g in listed["groups"]] == [("Fresh", 8), ("OrdersConsumer", 8)]
    table = cli("consumerProgress")
    assert ["Fresh", "0", "OFFLINE", "1", "8", "-", "0"] in rows(table.out)

    assert cli("consumerProgress", "-g", "NoSuchGroup").code != 0  # no route and no offsets: still not found


def test_group_list_names_a_master_whose_offset_table_cannot_be_read(cli: Cli, world) -> None:
    _, sa, sb = world
    sb.fail[43] = (R.SYSTEM_ERROR, "No consumer offset in this broker")
    r = cli("consumerProgress")
    assert r.code == 3
    assert "offset table of broker-b" in r.err and "No consumer offset in this broker" in r.err
    assert rows(r.out)[1][0] == G


def test_progress_json_sorted_by_lag_with_retry_and_dead_letters(cli: Cli, world) -> None:
    _, sa, sb = world
    sa.add_topic("%RETRY%" + G, [2])
    sa.offsets[(G, "%RETRY%" + G)] = {0: 1}
    sb.add_topic("%DLQ%" + G, [4])
    r = cli("--format", "json", "consumerProgress", "-g", G, "--sort", "lag")
    assert r.code == 0, r.err
    doc = r.json()
    assert [(q["brokerName"], q["topic"], q["lag"]) for q in doc["queues"][:2]] == [("broker-b", T, 5),
                                                                                  ("broker-a", T, 3)]  # fmt: skip
    assert doc["lagTotal"] == 9 and doc["online"] is False and doc["clients"] == 0
    assert doc["retry"] == {"topic": "%RETRY%" + G, "depth": 1}
    assert doc["dlq"] == {"topic": "%DLQ%" + G, "depth": 4}
    assert doc["queues"][0]["lastTimestamp"] == T0 and doc["outcome"] == "ok"


def test_progress_reports_a_failed_broker_and_exits_3(cli: Cli, world) -> None:
    _, _, sb = world
    sb.fail[RC.GET_CONSUME_STATS] = (R.SYSTEM_ERROR, "store is busy")
    r = cli("consumerProgress", "-g", G)
    assert r.code == 3
    assert "broker-b" in r.out and "store is busy" in r.out and "Lag total: 3" in r.out
    assert "failed on 1 of 2 targets" in r.err


def test_progress_usage_errors_and_unknown_group(cli: Cli) -> None:
    assert_one_line_error(cli("consumerProgress", "-t", T), "-t and -s need -g")
    assert cli("consumerProgress", "-t", T).code == 2
    assert cli("consumerProgress", "-g", "bad/name").code == 2
    assert cli("consumerProgress", "-g", G, "--sort", "size").code == 2
    r = cli("consumerProgress", "-g", "NoSuchGroup")
    assert r.code == 1 and r.out == ""
    assert_one_line_error(r, "consumer group 'NoSuchGroup' not found", "%RETRY%NoSuchGroup")


def test_progress_of_every_group_largest_lag_first(cli: Cli, world) -> None:
    _, sa, sb = world
    sa.add_group("SmallLag", T, [10, 3])  # the group's retry topic is on broker-a only: broker-b is not asked
    sb.offsets[("SmallLag", T)] = {0: 5}
    sa.online["SmallLag"] = [Client("10.0.0.1@1", version=479)]
    r = cli("consumerProgress")
    assert r.code == 0, r.err
    table = rows(r.out)
    assert table[0] == ["GROUP", "CLIENTS", "VERSION", "TYPE", "MODEL", "TPS", "LAG", "RETRY", "DLQ"]
    assert table[1][:3] == [G, "0", "OFFLINE"] and table[1][-3] == "8"
    assert table[2] == ["SmallLag", "1", "V5_3_3", "PUSH", "CLUSTERING", "1", "1", "-", "0"]  # never read its retry
    doc = cli("--format", "json", "consumerProgress").json()
    assert doc["lagTotal"] == 9 and doc["groups"][1]["version"] == "V5_3_3" and doc["groups"][1]["consumeTps"] == 1.5


# --- connections ----------------------------------------------------------------------------------


def test_consumer_connection_merges_what_each_broker_sees(cli: Cli, world) -> None:
    _, sa, sb = world
    sa.online[G] = [Client("10.0.0.1@1")]
    sb.online[G] = [Client("10.0.0.1@1"), Client("10.0.0.2@2", "CPP", 479)]
    sa.subscriptions[G] = [T]
    r = cli("consumerConnection", "-g", G)
    assert r.code == 0, r.err
    table = rows(r.out)
    assert table[1] == ["10.0.0.1@1", "10.0.0.0:5000", "JAVA", "V4_9_8"]
    assert table[2] == ["10.0.0.2@2", "10.0.0.1:5000", "CPP", "V5_3_3"]
    assert ["Orders", "*"] in table and ["ConsumeType:", "CONSUME_PASSIVELY"] in table
    doc = cli("--format", "json", "consumerConnection", "-g", G, "-b", sa.addr).json()
    assert [c["clientId"] for c in doc["connections"]] == ["10.0.0.1@1"]
    assert doc["subscriptions"] == [{"topic": T, "subExpression": "*", "expressionType": "TAG", "subVersion": 1}]


def test_consumer_connection_of_an_offline_group_is_an_error(cli: Cli) -> None:
    r = cli("consumerConnection", "-g", G)
    assert r.code == 1 and r.out == ""
    assert_one_line_error(r, f"consumer group '{G}' is not online")


def test_producer_connection_and_producer(cli: Cli, world) -> None:
    _, sa, sb = world
    sa.producers["PG"] = [Client("10.0.0.9@7")]
    sb.producers["PG"] = [Client("10.0.0.9@7"), Client("10.0.0.8@3", "NODE", 479)]
    r = cli("producerConnection", "-g", "PG", "-t", T)
    assert r.code == 0, r.err
    assert [row[0] for row in rows(r.out)[1:]] == ["10.0.0.8@3", "10.0.0.9@7"]
    assert_one_line_error(cli("producerConnection", "-g", "Nobody", "-t", T), "no producer of group 'Nobody'")
    r = cli("producer", "-b", sb.addr)
    assert r.code == 0, r.err
    assert [row[:3] for row in rows(r.out)[1:]] == [["PG", "10.0.0.9@7", "10.0.0.9:6000"],
                                                    ["PG", "10.0.0.8@3", "10.0.0.9:6000"]]  # fmt: skip
    doc = cli("--format", "json", "producer", "-b", sb.addr).json()
    assert doc["groups"]["PG"][1]["versionDesc"] == "V5_3_3" and doc["groups"]["PG"][1]["lastUpdateTimestamp"] == T0


# --- consumerStatus, getConsumerStatus ------------------------------------------------------------


def test_consumer_status_lists_clients_and_flags_blocked_queues(cli: Cli, world) -> None:
    _, sa, _ = world
    sa.online[G] = [
        Client("10.0.0.1@1", info=running_info(T, "broker-a", cached=5, last_consume=T0)),
        Client("10.0.0.2@2", info=None),
    ]
    r = cli("consumerStatus", "-g", G)
    assert r.code == 3
    assert rows(r.out)[1][:6] == ["10.0.0.1@1", "V4_9_8", "PUSH", "no", "1", "5"]
    assert "10.0.0.2@2" in r.out and "not online" in r.out  # the client that did not answer
    assert "can't consume for a while, maybe blocked" in r.out
    doc = cli("--format", "json", "consumerStatus", "-g", G).json()
    assert doc["sameSubscription"] is True and doc["outcome"] == "partial"
    assert doc["clients"][0]["info"]["queues"][0]["processQueue"]["cachedMsgCount"] == 5


def test_consumer_status_names_a_queue_two_clients_hold(cli: Cli, world) -> None:
    _, sa, _ = world
    sa.online[G] = [Client("10.0.0.1@1", info=running_info(T, "broker-a")),
                    Client("10.0.0.2@2", info=running_info(T, "broker-a"))]  # fmt: skip
    r = cli("consumerStatus", "-g", G)
    assert r.code == 0, r.err  # an analysis, as Java's: not a failed request
    assert "Rebalance FAILED" in r.out
    assert f"{T} broker-a queue 0 is held by 2 clients: 10.0.0.1@1, 10.0.0.2@2" in r.out
    doc = cli("--format", "json", "consumerStatus", "-g", G).json()
    assert doc["rebalanceOk"] is False
    assert doc["duplicateQueues"] == [
        {"topic": T, "brokerName": "broker-a", "queueId": 0, "clients": ["10.0.0.1@1", "10.0.0.2@2"]}
    ]

    dropping = running_info(T, "broker-a")
    next(iter(dropping["mqTable"].values()))["droped"] = True  # being released by its old holder
    broadcast = [running_info(T, "broker-a"), running_info(T, "broker-a")]
    for info in broadcast:
        info["properties"]["messageModel"] = "BROADCASTING"  # every client reads every queue, by design
    for infos in ([running_info(T, "broker-a"), dropping], broadcast):
        sa.online[G] = [Client(f"10.0.0.{i}@{i}", info=info) for i, info in enumerate(infos, 1)]
        doc = cli("--format", "json", "consumerStatus", "-g", G).json()
        assert (doc["rebalanceOk"], doc["duplicateQueues"]) == (True, [])
        assert "Rebalance OK" in cli("consumerStatus", "-g", G).out


def test_consumer_status_of_one_client_with_thread_dump(cli: Cli, world) -> None:
    _, sa, _ = world
    sa.online[G] = [Client("10.0.0.1@1", info=running_info(T, "broker-a")),
                    Client("10.0.0.3@3", "CPP", info=running_info(T, "broker-a"))]  # fmt: skip
    r = cli("consumerStatus", "-g", G, "-i", "10.0.0.1@1", "-s")
    assert r.code == 0, r.err
    assert "PROP_CONSUME_TYPE" in r.out and "Thread dump" in r.out and "    at Foo.bar(Foo.java:1)" in r.out
    r = cli("consumerStatus", "-g", G, "-i", "10.0.0.3@3", "-s")
    assert r.code == 0 and "sent no thread dump" in r.err


def test_get_consumer_status(cli: Cli, world) -> None:
    _, sa, _ = world
    sa.online[G] = [Client("10.0.0.1@1", holds={MessageQueue(T, "broker-a", 0): 9})]
    r = cli("getConsumerStatus", "-g", G, "-t", T)
    assert r.code == 0, r.err
    assert rows(r.out)[1] == ["10.0.0.1@1", "broker-a", "0", "9"]
    doc = cli("--format", "json", "getConsumerStatus", "-g", G, "-t", T, "-i", "10.0.0.1@1").json()
    assert doc["clients"] == {"10.0.0.1@1": [{"topic": T, "brokerName": "broker-a", "queueId": 0, "offset": 9}]}


# --- setConsumeMode -------------------------------------------------------------------------------


def test_set_consume_mode_updates_then_reports_unchanged(cli: Cli, world) -> None:
    _, sa, sb = world
    r = cli("setConsumeMode", "-c", "DefaultCluster", "-t", T, "-g", G, "-m", "pop", "-q", "2")
    assert r.code == 0, r.err
    assert [row[2] for row in rows(r.out)[1:]] == ["updated", "updated"] and "mode PULL→POP" in r.out
    assert sa.modes[(T, G)] == {"consumerGroup": G, "mode": "POP", "popShareQueueNum": 2, "topic": T}
    r = cli("setConsumeMode", "-b", sb.addr, "-t", T, "-g", G, "-m", "POP", "-q", "2")
    assert rows(r.out)[1][2] == "unchanged" and sb.codes().count(RC.SET_MESSAGE_REQUEST_MODE) == 1
    assert_one_line_error(cli("setConsumeMode", "-c", "DefaultCluster", "-t", T, "-g", G, "-m", "PUSH"), "PUSH")


def test_set_consume_mode_on_4_9_brokers_fails_per_broker(monkeypatch, capsys) -> None:
    world = _world(409)
    r = cli_of(monkeypatch, capsys, world)("setConsumeMode", "-c", "DefaultCluster", "-t", T,
                                                           "-g", G, "-m", "POP")  # fmt: skip
    assert r.code == 1 and r.out.count("REQUEST_CODE_NOT_SUPPORTED") == 2


# --- resetOffsetByTime, skipAccumulatedMessage, cloneGroupOffset ----------------------------------


def test_reset_by_time_through_a_5x_broker_prints_old_and_new(cli: Cli, world) -> None:
    _, sa, sb = world
    r = cli("resetOffsetByTime", "-g", G, "-t", T, "-s", str(T0 + 2 * MINUTE))
    assert r.code == 0, r.err
    assert rows(r.out)[1:] == [
        ["broker-a", "0", "7", "2", "-5", "updated"],
        ["broker-a", "1", "4", "2", "-2", "updated"],
        ["broker-b", "0", "1", "2", "+1", "updated"],
        ["broker-b", "1", "0", "0", "+0", "unchanged"],
    ]
    assert sa.offsets[(G, T)] == {0: 2, 1: 2} and RC.UPDATE_CONSUMER_OFFSET not in sa.codes()


def test_reset_dry_run_changes_nothing(cli: Cli, world) -> None:
    _, sa, sb = world
    r = cli("--format", "json", "resetOffsetByTime", "-g", G, "-t", T, "-s", "0", "--dry-run")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["dryRun"] is True and doc["timestamp"] == 0
    assert doc["results"][0]["status"] == "would update" and doc["results"][0]["how"] == "planned"
    assert doc["results"][0]["queues"][0] == {"topic": T, "brokerName": "broker-a", "queueId": 0, "oldOffset": 7,
                                              "newOffset": 0, "moved": True, "done": False}  # fmt: skip
    assert "dry run: nothing was changed" in r.err
    sent = sa.codes() + sb.codes()
    assert RC.INVOKE_BROKER_TO_RESET_OFFSET not in sent and RC.UPDATE_CONSUMER_OFFSET not in sent
    assert sa.offsets[(G, T)] == {0: 7, 1: 4}


def test_reset_of_an_offline_group_on_4_9_commits_each_queue(monkeypatch, capsys) -> None:
    world = _world(409)
    _, sa, sb = world
    cli = cli_of(monkeypatch, capsys, world)
    r = cli("resetOffsetByTime", "-g", G, "-t", T, "-s", "0")
    assert r.code == 0, r.err
    assert sa.offsets[(G, T)] == {0: 0, 1: 0} and sb.offsets[(G, T)] == {0: 0, 1: 0}
    assert "no consumer of OrdersConsumer online: offsets committed directly" in r.err
    assert sb.codes().count(RC.UPDATE_CONSUMER_OFFSET) == 1  # queue 1 was already at 0


def test_reset_that_stops_part_way_says_which_queues_moved(monkeypatch, capsys) -> None:
    world = _world(409)
    _, sa, _ = world
    sa.add_topic(T, [10, 4, 6])
    sa.offsets[(G, T)] = {0: 7, 1: 4, 2: 6}
    sa.commits_before_failing = 1
    r = cli_of(monkeypatch, capsys, world)("resetOffsetByTime", "-g", G, "-t", T, "-s", "0")
    assert r.code == 3
    table = rows(r.out)
    assert ["broker-a", "0", "7", "0", "-7", "updated"] in table
    assert ["broker-a", "1", "4", "0", "-4", "not", "moved"] in table
    assert ["broker-a", "2", "6", "0", "-6", "not", "moved"] in table
    assert "stopped at queue 1: SYSTEM_ERROR (1): disk full (queues moved before: 0)" in r.out
    assert sa.offsets[(G, T)] == {0: 0, 1: 4, 2: 6}


def test_reset_of_one_queue_checks_the_offset(cli: Cli, world) -> None:
    _, sa, _ = world
    r = cli("resetOffsetByTime", "-g", G, "-t", T, "-s", "now", "-b", sa.addr, "-q", "0", "-o", "3")
    assert r.code == 0, r.err
    assert rows(r.out)[1] == ["broker-a", "0", "7", "3", "-4", "updated"]
    assert sa.offsets[(G, T)] == {0: 3, 1: 4}
    r = cli("resetOffsetByTime", "-g", G, "-t", T, "-s", "now", "-b", sa.addr, "-q", "0", "-o", "99")
    assert_one_line_error(r, "offset 99 is outside queue 0's range [0, 10]")
    assert r.code == 2


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["-s", "yesterday"], "'yesterday' is not a time"),
        (["-s", "1700000000"], "looks like seconds"),
        (["-s", "now", "-q", "1"], "-q needs -b"),
        (["-s", "now", "-o", "1"], "-o needs -b and -q"),
        (["-s", "now", "-f", "maybe"], "-f takes true or false"),
    ],
)
def test_reset_usage_errors(cli: Cli, args: list[str], fragment: str) -> None:
    r = cli("resetOffsetByTime", "-g", G, "-t", T, *args)
    assert r.code == 2 and r.out == ""
    assert_one_line_error(r, fragment)


def test_skip_moves_every_queue_to_its_end(cli: Cli, world) -> None:
    _, sa, sb = world
    r = cli("skipAccumulatedMessage", "-g", G, "-t", T)
    assert r.code == 0, r.err
    assert ["broker-b", "0", "1", "6", "+5", "updated"] in rows(r.out)
    assert sa.offsets[(G, T)] == {0: 10, 1: 4} and sb.offsets[(G, T)] == {0: 6, 1: 0}
    reset = next(c for c in sa.requests if c.code == RC.INVOKE_BROKER_TO_RESET_OFFSET)
    assert reset.ext["timestamp"] == "-1" and reset.ext["isForce"] == "true"


def test_clone_copies_one_topic(cli: Cli, world) -> None:
    _, sa, sb = world
    sa.offsets[(G, "Other")] = {0: 1}
    r = cli("cloneGroupOffset", "-s", G, "-d", "NewGroup", "-t", T)
    assert r.code == 0, r.err
    assert sa.offsets[("NewGroup", T)] == {0: 7, 1: 4} and sb.offsets[("NewGroup", T)] == {0: 1, 1: 0}
    assert ("NewGroup", "Other") not in sa.offsets
    r = cli("cloneGroupOffset", "-s", G, "-d", "Dry", "-t", T, "--dry-run")
    assert r.code == 0 and ("Dry", T) not in sa.offsets and "would update" in r.out
