"""startMonitoring through the CLI entry point, against fake brokers that keep queues, committed offsets and
online consumers as Apache 5.x brokers do."""

from __future__ import annotations

from dataclasses import dataclass

from mqadmin.model.stats import QueueOffsets, TopicStats, TopicStatsBody
from mqadmin.wire.frame import RemotingCommand
from tests.unit.cli_helpers import Cli
from tests.unit.fake_consumers import MINUTE, T0, Client, ConsumerSide
from tests.unit.fake_remoting import two_broker_cluster

G, T = "OrdersConsumer", "Orders"


@dataclass
class StoredSide(ConsumerSide):
    """Message i of every queue was stored at T0 + i minutes, so a queue's newest is T0 + (depth - 1) minutes."""

    def _on_202(self, cmd: RemotingCommand) -> RemotingCommand:  # GET_TOPIC_STATS_INFO
        topic = cmd.ext["topic"]
        rows = [
            QueueOffsets(topic, self.broker.name, q, 0, d, T0 + (d - 1) * MINUTE if d else 0)
            for q, d in enumerate(self.depth[topic])
        ]
        return cmd.response(body=TopicStatsBody().encode(TopicStats(rows)))


def test_each_round_reports_every_online_group_per_topic(monkeypatch, capsys) -> None:
    ns, a, b = two_broker_cluster()
    sa, sb = StoredSide(a), StoredSide(b)
    sa.add_topic(T, [10, 4])
    sb.add_topic(T, [6, 0])
    sa.add_group(G, T, [7, 4])  # 3 behind; consumed up to the message stored at T0 + 6 min, newest T0 + 9 min
    sb.add_group(G, T, [1, 0])  # 5 behind; consumed up to T0, newest T0 + 5 min
    sa.online[G] = [Client("10.0.0.1@1")]
    sa.add_group("IdleConsumer", T, [0, 0])
    cli = Cli(monkeypatch, capsys, ns, a, b)
    out = cli("startMonitoring", "--count", "2", "--interval", "1", "--format", "json")
    assert out.code == 0, out.err
    first, second = (__import__("json").loads(line) for line in out.out.splitlines())
    assert first["round"] == 1 and second["round"] == 2
    ours = [u for u in first["undoneMsgs"] if u["topic"] == T]
    assert ours == [
        {"consumerGroup": G, "topic": T, "undoneMsgsTotal": 8, "undoneMsgsSingleMQ": 5,
         "undoneMsgsDelayTimeMills": 5 * MINUTE}
    ]  # fmt: skip
    assert first["offlineGroups"] == ["IdleConsumer"] and first["errors"] == []
    table = cli("startMonitoring", "--count", "1")
    assert "round 1" in table.out and G in table.out and "300000" in table.out
