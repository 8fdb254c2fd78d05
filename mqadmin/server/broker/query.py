"""Looking at stored messages and progress: QUERY_MESSAGE (12), VIEW_MESSAGE_BY_ID (33),
GET_TOPIC_STATS_INFO (202) and GET_CONSUME_STATS (208).

TopicStatsTable and ConsumeStats are keyed by MessageQueue objects; their declarations' codecs
(``mqadmin.model.stats``, ``mqadmin.model.consume``) write them the way a Java broker does, with
the whole MessageQueue object as the map key.
"""

from __future__ import annotations

from mqadmin.model.consume import ConsumeStats, QueueProgress
from mqadmin.model.rpc import groups, messages, topics
from mqadmin.model.rpc.spec import Decoded
from mqadmin.model.stats import QueueOffsets, TopicStats
from mqadmin.server.broker.brokerstore import Processor
from mqadmin.server.remoting import ClientChannel
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

DEFAULT_QUERY_MAX_NUM = 32
MAX_QUERY_NUM = 64


class QueryProcessor(Processor):
    async def query_message(
        self, req: Decoded[messages.QueryMessageHeader, None], ch: ClientChannel
    ) -> RemotingCommand:
        h = req.header
        max_num = DEFAULT_QUERY_MAX_NUM if h.unique_key else h.max_num
        found = self.messages.query(
            h.topic, h.key, min(max(max_num, 0), MAX_QUERY_NUM), h.begin_timestamp, h.end_timestamp,
            unique=bool(h.unique_key),
        )  # fmt: skip
        header = messages.QueryMessageResultHeader(
            index_last_update_timestamp=self.messages.last_store_timestamp,
            index_last_update_phyoffset=self.messages.max_phys_offset,
        )
        if not found:
            remark = "can not find message, maybe time range not correct"
            return messages.QUERY_MESSAGE.answer(req.cmd, header, code=ResponseCode.QUERY_NOT_FOUND, remark=remark)
        return messages.QUERY_MESSAGE.answer(req.cmd, header, b"".join(found))

    async def view_message(self, req: Decoded[messages.ViewMessageHeader, None], ch: ClientChannel) -> RemotingCommand:
        offset = req.header.offset
        data = self.messages.read_message(offset)
        if data is None:
            return req.cmd.response(ResponseCode.SYSTEM_ERROR, f"can not find message by the offset, {offset}")
        return messages.VIEW_MESSAGE_BY_ID.answer(req.cmd, body=data)

    async def topic_stats(self, req: Decoded[topics.TopicHeader, None], ch: ClientChannel) -> RemotingCommand:
        topic = req.header.topic
        tc = self.topics.get(topic)
        if tc is None:
            return req.cmd.response(ResponseCode.TOPIC_NOT_EXIST, f"topic[{topic}] not exist")
        broker_name = self.config.broker_name
        queues = []
        for qid in range(tc.write_queue_nums):
            hi = self.messages.max_offset(topic, qid)
            last = self.messages.store_time(topic, qid, hi - 1) if hi > 0 else 0
            queues.append(QueueOffsets(topic, broker_name, qid, self.messages.min_offset(topic, qid), hi, last))
        stats = TopicStats(queues, self.rates.put_tps(topic))
        return topics.GET_TOPIC_STATS_INFO.answer(req.cmd, body=stats)

    async def consume_stats(self, req: Decoded[groups.ConsumeStatsHeader, None], ch: ClientChannel) -> RemotingCommand:
        group, topic = req.header.consumer_group, req.header.topic or ""
        topic_names = [topic] if topic.strip() else sorted(self.offsets.topics_of(group))
        info = self.clients.consumers.get(group)
        broker_name = self.config.broker_name
        queues = []
        tps = 0.0
        for t in topic_names:
            tc = self.topics.get(t)
            if tc is None:
                continue
            if info is not None and info.subscriptions and t not in info.subscriptions:
                continue
            for qid in range(tc.read_queue_nums):
                consumer = max(self.offsets.query(group, t, qid), 0)
                last = self.messages.store_time(t, qid, consumer - 1) if consumer > 0 else 0
                broker_offset = self.messages.max_offset(t, qid)
                queues.append(QueueProgress(t, broker_name, qid, broker_offset, consumer, consumer, last))
            tps += self.rates.get_tps(group, t)
        return groups.GET_CONSUME_STATS.answer(req.cmd, body=ConsumeStats(queues, round(tps, 2)))

    async def all_consumer_offsets(self, req: Decoded[None, None], ch: ClientChannel) -> RemotingCommand:
        return groups.GET_ALL_CONSUMER_OFFSET.answer(req.cmd, body=self.offsets.snapshot_table())
