"""QUERY_CONSUME_QUEUE (321, mqadmin queryCq): the consume-queue entries of one queue, as Java's
``AdminBrokerProcessor.queryConsumeQueue`` answers it: SYSTEM_ERROR ``<queueId>@<topic> is not exist!``
for a queue the store does not have; SUCCESS without a body and the remark ``Index … is not exist!`` for a
start index outside it; else the queue's min/max offset and up to ``count`` entries from ``index``. With a
consumer group, its subscription (or that it is not online) comes along; this broker filters by tags only,
so the filter data is Java's for a tag subscription (``null``)."""

from __future__ import annotations

from mqadmin.model.rpc import Decoded
from mqadmin.model.rpc.messages import QUERY_CONSUME_QUEUE, ConsumeQueueView, CqEntry, QueryConsumeQueueHeader
from mqadmin.server.broker.brokerstore import Processor
from mqadmin.server.remoting import ClientChannel
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand


class QueueQueryProcessor(Processor):
    async def query_consume_queue(
        self, req: Decoded[QueryConsumeQueueHeader, None], ch: ClientChannel
    ) -> RemotingCommand:
        h, cmd = req.header, req.cmd
        lo, hi = self.messages.min_offset(h.topic, h.queue_id), self.messages.max_offset(h.topic, h.queue_id)
        entries = self.messages.queue_entries(h.topic, h.queue_id, h.index, h.count)
        if entries is None:
            return cmd.response(ResponseCode.SYSTEM_ERROR, f"{h.queue_id}@{h.topic} is not exist!")
        view = ConsumeQueueView(min_queue_index=lo, max_queue_index=hi)
        if h.consumer_group is not None:
            sub = self.clients.find_subscription(h.consumer_group, h.topic)
            view.subscription_data = sub.to_json() if sub is not None else None
            view.filter_data = f"{h.consumer_group}@{h.topic} is not online!" if sub is None else "null"
        if not lo <= h.index < hi:
            remark = f"Index {h.index} of {h.queue_id}@{h.topic} is not exist!"
            return cmd.response(ResponseCode.SUCCESS, remark)
        view.queue_data = [CqEntry(phys, size, code) for phys, size, code in entries]
        return QUERY_CONSUME_QUEUE.answer(cmd, body=view)
