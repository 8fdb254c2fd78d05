"""PULL_MESSAGE (11) with long polling, and the queue-offset queries (29, 30, 31, 32).

Pull answers follow RocketMQ's PullMessageProcessor: the store's status becomes the code
(FOUND → 0; NO_MESSAGE_IN_QUEUE / NO_MATCHED_LOGIC_QUEUE → 19 at offset 0, else 21;
OFFSET_OVERFLOW_ONE / OFFSET_FOUND_NULL → 19; OFFSET_OVERFLOW_BADLY / OFFSET_TOO_SMALL → 21;
NO_MATCHED_MESSAGE / MESSAGE_WAS_REMOVING → 20) and the remark is the status name. A pull that
finds nothing and carries the suspend flag waits until a message arrives for its queue or its
``suspendTimeoutMillis`` ends (bounded by the broker's ``long_polling_max_wait``), then looks again.
A pull of a static topic's logic queue reads the item holding its offset, here or forwarded to the item's broker
(``mqadmin.server.broker.logic_reads``), and is answered in logic offsets (``logic_queues.logic_pull_answer``).
"""

from __future__ import annotations

from dataclasses import replace

from mqadmin.model.rpc import messages as rpc
from mqadmin.model.rpc.messages import PullHeader, PullResultHeader, QueueHeader, SearchOffsetHeader
from mqadmin.model.rpc.spec import Decoded
from mqadmin.model.static_topic import LogicQueueMappingItem
from mqadmin.model.tags import SubscriptionData, build_subscription
from mqadmin.model.topic import PERM_READ
from mqadmin.server.broker.brokerstore import BrokerParts, Processor
from mqadmin.server.broker.logic_queues import LogicQueue, PhysicalPull, logic_pull_answer, resolve
from mqadmin.server.broker.logic_reads import LogicReads
from mqadmin.server.remoting import ClientChannel
from mqadmin.server.store import GetResult, GetStatus
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

FLAG_COMMIT_OFFSET = 0x1
FLAG_SUSPEND = 0x2
FLAG_SUBSCRIPTION = 0x4

StaticRead = tuple[LogicQueue, LogicQueueMappingItem]
"""A pull of a static topic's logic queue: the queue and the item the pull reads."""

_CODES = {
    GetStatus.FOUND: ResponseCode.SUCCESS,
    GetStatus.MESSAGE_WAS_REMOVING: ResponseCode.PULL_RETRY_IMMEDIATELY,
    GetStatus.NO_MATCHED_MESSAGE: ResponseCode.PULL_RETRY_IMMEDIATELY,
    GetStatus.OFFSET_FOUND_NULL: ResponseCode.PULL_NOT_FOUND,
    GetStatus.OFFSET_OVERFLOW_ONE: ResponseCode.PULL_NOT_FOUND,
    GetStatus.OFFSET_OVERFLOW_BADLY: ResponseCode.PULL_OFFSET_MOVED,
    GetStatus.OFFSET_TOO_SMALL: ResponseCode.PULL_OFFSET_MOVED,
}


def pull_code(status: GetStatus, request_offset: int) -> int:
    if status in (GetStatus.NO_MESSAGE_IN_QUEUE, GetStatus.NO_MATCHED_LOGIC_QUEUE):
        return ResponseCode.PULL_OFFSET_MOVED if request_offset != 0 else ResponseCode.PULL_NOT_FOUND
    return _CODES[status]


class PullProcessor(Processor):
    def __init__(self, parts: BrokerParts) -> None:
        super().__init__(parts)
        self.logic_reads = LogicReads(parts)

    async def pull(self, req: Decoded[PullHeader, None], ch: ClientChannel) -> RemotingCommand | None:
        cmd, h = req.cmd, req.header
        logic = resolve(self.topics, cmd, h.topic, h.queue_id)
        if isinstance(logic, RemotingCommand):
            return logic
        if logic is None:
            return await self._pull(cmd, h, ch)
        item = logic.item_at(h.queue_offset)
        physical = replace(h, queue_id=item.queue_id, queue_offset=item.physical_offset(h.queue_offset))
        if item.end_offset_decided:
            physical = replace(physical, max_msg_nums=min(item.end_offset - item.start_offset, h.max_msg_nums))
        if logic.is_local(item):
            return await self._pull(cmd, physical, ch, (logic, item))
        return await self.logic_reads.forward_pull(cmd, physical, logic, item, FLAG_SUSPEND | FLAG_COMMIT_OFFSET)

    async def _pull(
        self, cmd: RemotingCommand, h: PullHeader, ch: ClientChannel, static: StaticRead | None = None
    ) -> RemotingCommand | None:
        """A pull of one of this broker's queues; ``static``: the logic queue and the item it belongs to (the
        answer is in logic offsets)."""
        checked = await self._check(cmd, h)
        if isinstance(checked, RemotingCommand):
            return checked
        sub = checked
        reset = self.offsets.take_reset(h.consumer_group, h.topic, h.queue_id)
        if reset is not None and reset != h.queue_offset:  # an admin reset the consumer has not followed yet
            return self._moved_by_reset(cmd, h, reset, static)
        if h.sys_flag & FLAG_COMMIT_OFFSET and reset is None:
            self._commit(h, static)
        result = self.messages.get_messages(h.topic, h.queue_id, h.queue_offset, h.max_msg_nums, sub)
        answer = self._answer(h, result, static)
        if answer[0] == ResponseCode.PULL_NOT_FOUND and h.sys_flag & FLAG_SUSPEND:
            if await self.polling.wait(h.topic, h.queue_id, self._hold_seconds(h)):
                result = self.messages.get_messages(h.topic, h.queue_id, h.queue_offset, h.max_msg_nums, sub)
                answer = self._answer(h, result, static)
            if ch.closed:
                return None
        return self._response(cmd, h, result, *answer)

    def _commit(self, h: PullHeader, static: StaticRead | None) -> None:
        """The consumer's offset the pull carries; a logic queue's is stored at the physical offset of the item
        holding it when that item is on this broker (Apache's forwarded pulls carry none)."""
        if static is None:
            self.offsets.commit(h.consumer_group, h.topic, h.queue_id, h.commit_offset)
            return
        logic, _ = static
        item = logic.item_at(h.commit_offset)
        if logic.is_local(item):
            self.offsets.commit(h.consumer_group, h.topic, item.queue_id, item.physical_offset(h.commit_offset))

    def _answer(self, h: PullHeader, result: GetResult, static: StaticRead | None) -> tuple[int, PullResultHeader]:
        header = PullResultHeader(
            next_begin_offset=result.next_begin_offset, min_offset=result.min_offset, max_offset=result.max_offset
        )
        code = pull_code(result.status, h.queue_offset)
        if static is None:
            return code, header
        got = PhysicalPull(code, h.queue_offset, result.next_begin_offset, result.min_offset, result.max_offset)
        return logic_pull_answer(*static, got)

    def _hold_seconds(self, h: PullHeader) -> float:
        cfg = self.config
        if not cfg.long_polling_enable:
            return cfg.short_polling_time
        return max(0.0, min(h.suspend_timeout_millis / 1000, cfg.long_polling_max_wait))

    def _response(
        self, cmd: RemotingCommand, h: PullHeader, result: GetResult, code: int, header: PullResultHeader
    ) -> RemotingCommand:
        body = None
        if code == ResponseCode.SUCCESS:
            body = b"".join(result.messages)
            self.stats.record_get(len(result.messages))
            self.rates.got(h.consumer_group, h.topic, len(result.messages))
        remark = result.status.name if code == pull_code(result.status, h.queue_offset) else None
        return rpc.PULL_MESSAGE.answer(cmd, header, body, code=code, remark=remark)

    def _moved_by_reset(
        self, cmd: RemotingCommand, h: PullHeader, offset: int, static: StaticRead | None
    ) -> RemotingCommand:
        """Apache 5.x's OFFSET_RESET answer: the consumer continues from ``offset`` (a logic queue's item's
        physical offset, answered as a logic one)."""
        low, high = self.messages.min_offset(h.topic, h.queue_id), self.messages.max_offset(h.topic, h.queue_id)
        header = PullResultHeader(next_begin_offset=offset, min_offset=low, max_offset=high)
        if static is not None:
            logic, item = static
            header = PullResultHeader(
                next_begin_offset=item.static_offset_strictly(offset),
                min_offset=item.static_offset_strictly(low),
                max_offset=max(item.static_offset_strictly(high), logic.leader.max_static_offset()),
                offset_delta=item.offset_delta,
            )
        return rpc.PULL_MESSAGE.answer(cmd, header, code=ResponseCode.PULL_OFFSET_MOVED, remark="OFFSET_RESET")

    async def _check(self, cmd: RemotingCommand, h: PullHeader) -> SubscriptionData | RemotingCommand:
        cfg = self.config
        if not cfg.broker_permission & PERM_READ:
            remark = f"the broker[{cfg.listen_host}] pulling message is forbidden"
            return cmd.response(ResponseCode.NO_PERMISSION, remark)
        group = await self.groups.find_or_create(h.consumer_group)
        if group is None:
            remark = f"subscription group [{h.consumer_group}] does not exist"
            return cmd.response(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, remark)
        if not group.get("consumeEnable", True):
            return cmd.response(ResponseCode.NO_PERMISSION, f"subscription group no permission, {h.consumer_group}")
        tc = self.topics.get(h.topic)
        if tc is None:
            return cmd.response(ResponseCode.TOPIC_NOT_EXIST, f"topic[{h.topic}] not exist, apply first please!")
        if not tc.perm & PERM_READ:
            return cmd.response(ResponseCode.NO_PERMISSION, f"the topic[{h.topic}] pulling message is forbidden")
        if not 0 <= h.queue_id < tc.read_queue_nums:
            return cmd.response(
                ResponseCode.SYSTEM_ERROR,
                f"queueId[{h.queue_id}] is illegal, topic:[{h.topic}] topicConfig.readQueueNums:"
                f"[{tc.read_queue_nums}] consumer:[{h.consumer_group}]",
            )
        if h.sys_flag & FLAG_SUBSCRIPTION:
            sub = build_subscription(h.topic, h.subscription, h.sub_version)
            if h.expression_type:
                sub.expression_type = h.expression_type
        else:
            found = self._registered_subscription(cmd, h)
            if isinstance(found, RemotingCommand):
                return found
            sub = found
        if sub.expression_type.upper() != "TAG":
            remark = f"The broker does not support consumer to filter message by {sub.expression_type}"
            return cmd.response(ResponseCode.SYSTEM_ERROR, remark)
        return sub

    def _registered_subscription(self, cmd: RemotingCommand, h: PullHeader) -> SubscriptionData | RemotingCommand:
        """The subscription from the consumer's heartbeat (clients that do not send it in the pull)."""
        info = self.clients.consumers.get(h.consumer_group)
        if info is None:
            return cmd.response(ResponseCode.SUBSCRIPTION_NOT_EXIST, "the consumer's group info not exist")
        sub = info.subscriptions.get(h.topic)
        if sub is None:
            return cmd.response(ResponseCode.SUBSCRIPTION_NOT_EXIST, "the consumer's subscription not exist")
        if sub.sub_version < h.sub_version:
            return cmd.response(ResponseCode.SUBSCRIPTION_NOT_LATEST, "the consumer's subscription not latest")
        return sub

    # --- offsets of a queue ----------------------------------------------------------------

    async def get_max_offset(self, req: Decoded[QueueHeader, None], ch: ClientChannel) -> RemotingCommand:
        if (static := await self.logic_reads.serve(req, self.logic_reads.max_offset)) is not None:
            return static
        offset = self.messages.max_offset(req.header.topic, req.header.queue_id)
        return rpc.GET_MAX_OFFSET.answer(req.cmd, rpc.OffsetHeader(offset=offset))

    async def get_min_offset(self, req: Decoded[QueueHeader, None], ch: ClientChannel) -> RemotingCommand:
        if (static := await self.logic_reads.serve(req, self.logic_reads.min_offset)) is not None:
            return static
        offset = self.messages.min_offset(req.header.topic, req.header.queue_id)
        return rpc.GET_MIN_OFFSET.answer(req.cmd, rpc.OffsetHeader(offset=offset))

    async def search_offset(self, req: Decoded[SearchOffsetHeader, None], ch: ClientChannel) -> RemotingCommand:
        if (static := await self.logic_reads.serve(req, self.logic_reads.search_offset)) is not None:
            return static
        h = req.header
        offset = self.messages.search_offset(h.topic, h.queue_id, h.timestamp)
        return rpc.SEARCH_OFFSET_BY_TIMESTAMP.answer(req.cmd, rpc.OffsetHeader(offset=offset))

    async def earliest_store_time(self, req: Decoded[QueueHeader, None], ch: ClientChannel) -> RemotingCommand:
        if (static := await self.logic_reads.serve(req, self.logic_reads.earliest_store_time)) is not None:
            return static
        topic, qid = req.header.topic, req.header.queue_id
        ts = self.messages.store_time(topic, qid, self.messages.min_offset(topic, qid))
        return rpc.GET_EARLIEST_MSG_STORETIME.answer(req.cmd, rpc.TimestampHeader(timestamp=ts))
