"""startMonitoring through the CLI entry point, over scripted brokers that answer queues, committed offsets and
online consumers as Apache 5.x brokers do."""

from __future__ import annotations

import json

from mqadmin.model.clients import Connection, ConsumerConnection
from mqadmin.model.consume import ConsumeStats, QueueProgress
from mqadmin.model.route import BrokerData, QueueData, TopicRouteData
from mqadmin.model.rpc import clients, groups, namesrv, topics
from mqadmin.model.rpc.spec import Decoded
from mqadmin.model.stats import QueueOffsets, TopicStats
from mqadmin.wire.codes import ResponseCode
from tests.mock_transport import Answer, ok, refuse
from tests.unit.cli_helpers import A, B, scripted

G, T = "OrdersConsumer", "Orders"
T0, MINUTE = 1_700_000_000_000, 60_000
"""Message i of every queue was stored at T0 + i minutes."""
NAMES = {A: "broker-a", B: "broker-b"}
DEPTH = {A: [10, 4], B: [6, 0]}
"""Messages in each queue of Orders."""
COMMITTED = {(A, G): [7, 4], (B, G): [1, 0], (A, "IdleConsumer"): [0, 0]}
"""(broker, group) -> committed offset per queue of Orders: 3 behind on broker-a, 5 on broker-b."""


def route(req: Decoded[namesrv.RouteHeader, None], _addr: str) -> Answer:
    """Orders and OrdersConsumer's retry topic on both brokers; IdleConsumer's on broker-a only."""
    on = [A] if req.header.topic == "%RETRY%IdleConsumer" else [A, B]
    return ok(
        TopicRouteData(
            [BrokerData("DefaultCluster", NAMES[a], {0: a}) for a in on], [QueueData(NAMES[a], 2, 2, 6) for a in on]
        )
    )


def consume_stats(req: Decoded[groups.ConsumeStatsHeader, None], addr: str) -> Answer:
    offsets = COMMITTED.get((addr, req.header.consumer_group), [])
    rows = [
        QueueProgress(T, NAMES[addr], q, DEPTH[addr][q], off, off, T0 + (off - 1) * MINUTE if off else 0)
        for q, off in enumerate(offsets)
    ]
    return ok(ConsumeStats(rows, 1.5))


def topic_stats(req: Decoded[topics.TopicHeader, None], addr: str) -> Answer:
    """A queue's newest message was stored at T0 + (depth - 1) minutes."""
    depths = DEPTH[addr] if req.header.topic == T else [0]
    return ok(TopicStats([QueueOffsets(req.header.topic, NAMES[addr], q, 0, d, T0 + (d - 1) * MINUTE if d else 0)
                          for q, d in enumerate(depths)]))  # fmt: skip


def connections(req: Decoded[clients.ConsumerGroupHeader, None], _addr: str) -> Answer:
    if req.header.consumer_group != G:
        return refuse(ResponseCode.CONSUMER_NOT_ONLINE, f"the consumer group[{req.header.consumer_group}] not online")
    return ok(ConsumerConnection([Connection("10.0.0.1@1", "10.0.0.1:5000", "JAVA", 409)], {}, "CONSUME_PASSIVELY"))


def test_each_round_reports_every_online_group_per_topic(monkeypatch, capsys) -> None:
    cli = scripted(
        monkeypatch,
        capsys,
        {
            namesrv.GET_ALL_TOPIC_LIST_FROM_NAMESERVER: ok([T, "%RETRY%" + G, "%RETRY%IdleConsumer"]),
            namesrv.GET_ROUTEINFO_BY_TOPIC: route,
            groups.GET_CONSUME_STATS: consume_stats,
            topics.GET_TOPIC_STATS_INFO: topic_stats,
            clients.GET_CONSUMER_CONNECTION_LIST: connections,
        },
    )
    out = cli("startMonitoring", "--count", "2", "--interval", "1", "--format", "json")
    assert out.code == 0, out.err
    first, second = (json.loads(line) for line in out.out.splitlines())
    assert first["round"] == 1 and second["round"] == 2
    ours = [u for u in first["undoneMsgs"] if u["topic"] == T]
    assert ours == [
        {"consumerGroup": G, "topic": T, "undoneMsgsTotal": 8, "undoneMsgsSingleMQ": 5,
         "undoneMsgsDelayTimeMills": 5 * MINUTE}
    ]  # fmt: skip
    assert first["offlineGroups"] == ["IdleConsumer"] and first["errors"] == []
    table = cli("startMonitoring", "--count", "1")
    assert "round 1" in table.out and G in table.out and "300000" in table.out
