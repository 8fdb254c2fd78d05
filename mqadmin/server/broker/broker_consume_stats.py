"""GET_BROKER_CONSUME_STATS (317): every subscription group's progress on the broker, as a Java broker
computes it: for each group, each topic it has offsets for (skipping topics the broker no longer has, topics
not ordered when only ordered ones are asked for, and topics an online group does not subscribe to)."""

from __future__ import annotations

from mqadmin.model.broker_consume import BrokerConsumeStats
from mqadmin.model.consume import ConsumeStats, QueueProgress
from mqadmin.model.rpc.consumers import GET_BROKER_CONSUME_STATS, ConsumeStatsInBrokerHeader
from mqadmin.model.rpc.spec import Decoded
from mqadmin.server.broker.brokerstore import Processor
from mqadmin.server.remoting import ClientChannel
from mqadmin.wire.frame import RemotingCommand


class BrokerConsumeStatsProcessor(Processor):
    async def consume_stats(self, req: Decoded[ConsumeStatsInBrokerHeader, None], ch: ClientChannel) -> RemotingCommand:
        only_ordered = req.header.is_order
        stats = BrokerConsumeStats(self.config.addr)
        for group in sorted(self.groups.all()):
            per_topic = [s for t in sorted(self.offsets.topics_of(group)) if (s := self._stats(group, t, only_ordered))]
            for s in per_topic:
                stats.total_diff += sum(q.broker_offset - q.consumer_offset for q in s.queues)
            stats.groups[group] = per_topic
        return GET_BROKER_CONSUME_STATS.answer(req.cmd, body=stats)

    def _stats(self, group: str, topic: str, only_ordered: bool) -> ConsumeStats | None:
        tc = self.topics.get(topic)
        if tc is None or (only_ordered and not tc.order):
            return None
        info = self.clients.consumers.get(group)
        if info is not None and info.subscriptions and topic not in info.subscriptions:
            return None
        name = self.config.broker_name
        queues = []
        for qid in range(tc.write_queue_nums):
            consumer = max(self.offsets.query(group, topic, qid), 0)
            last = self.messages.store_time(topic, qid, consumer - 1) if consumer > 0 else 0
            hi = max(self.messages.max_offset(topic, qid), 0)
            queues.append(QueueProgress(topic, name, qid, hi, consumer, consumer, max(last, 0)))
        return ConsumeStats(queues, round(self.rates.get_tps(group, topic), 2))
