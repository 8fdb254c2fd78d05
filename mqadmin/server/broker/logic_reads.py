"""Reads of a static topic's logic queue that span its items (Apache's rewriteRequestForStaticTopic of
PullMessageProcessor, AdminBrokerProcessor and ConsumerManageProcessor): each item is read where it is, this
broker's store or, forwarded, the broker it names, and its physical offsets are answered as logic offsets.

* Max offset: the newest item with a decided logic offset (the leader, once a remapping has decided it).
* Min offset and the earliest store time: the oldest item.
* Search by time: from the newest item back, the first item that holds a message stored before the time
  answers where its messages reach the time; an item whose messages are all newer sends the search to the item
  before it (whose answer, at its end at the latest, leads a consumer on to the newer item).
* A group's offset: the newest item where the group committed one (forwarded with ``setZeroIfNotFound=false``);
  a commit goes to the item holding the committed logic offset.
* A pull: see ``PullProcessor``; one of an item on another broker is forwarded here, without the suspend and
  commit flags, and its answer rewritten by ``logic_pull_answer``.

A broker that cannot be found or reached, or answers unexpectedly, is answered SYSTEM_ERROR naming it, as
Apache's broker answers a failed forward.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from mqadmin.model.rpc import clients as crpc
from mqadmin.model.rpc import messages as mrpc
from mqadmin.model.rpc.messages import OffsetHeader, PullHeader, QueueHeader, SearchOffsetHeader
from mqadmin.model.rpc.spec import Decoded, Header, Rpc
from mqadmin.model.static_topic import LogicQueueMappingItem
from mqadmin.server.broker.brokerstore import Processor
from mqadmin.server.broker.logic_queues import LogicQueue, PhysicalPull, logic_pull_answer, resolve
from mqadmin.server.broker.peers import ForwardFailed
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

LogicRead = Callable[[RemotingCommand, LogicQueue, Any], Awaitable[RemotingCommand]]

LATEST = 1 << 62
"""A logic offset past every item: ``item_at(LATEST)`` is the newest decided item."""


def refusal(cmd: RemotingCommand, e: ForwardFailed) -> RemotingCommand:
    return cmd.response(ResponseCode.SYSTEM_ERROR, str(e))


class LogicReads(Processor):
    async def _forward(
        self, topic: str, item: LogicQueueMappingItem, rpc: Rpc[Any, Any, Any, Any], header: Header, ok: frozenset[int]
    ) -> RemotingCommand:
        """``rpc`` forwarded to ``item``'s broker; its answer when its code is in ``ok``, else ForwardFailed."""
        resp = await self.peers.request(topic, item.bname, rpc, header)
        if resp.code not in ok:
            where = f"{rpc.name} of {topic}-{item.queue_id} on broker {item.bname}"
            raise ForwardFailed(f"unexpected remote response code {resp.code} ({resp.remark}) to {where}")
        return resp

    async def _offset(
        self, topic: str, item: LogicQueueMappingItem, rpc: Rpc[Any, Any, Any, Any], header: Header
    ) -> int:
        resp = await self._forward(topic, item, rpc, header, frozenset({ResponseCode.SUCCESS}))
        return int(rpc.reply(resp).header.offset)

    async def forward_pull(
        self, cmd: RemotingCommand, h: PullHeader, logic: LogicQueue, item: LogicQueueMappingItem, flags: int
    ) -> RemotingCommand:
        """A pull of ``item`` (``h`` in its physical terms) from its broker; ``flags``: the pull flags not
        forwarded (suspend, commit)."""
        try:
            resp = await self._forward(
                h.topic, item, mrpc.PULL_MESSAGE, replace(h, sys_flag=h.sys_flag & ~flags), mrpc.PULL_MESSAGE.ok
            )
        except ForwardFailed as e:
            return refusal(cmd, e)
        got = mrpc.PULL_MESSAGE.reply(resp).header
        physical = PhysicalPull(resp.code, h.queue_offset, got.next_begin_offset, got.min_offset, got.max_offset)
        code, header = logic_pull_answer(logic, item, physical)
        body = resp.body if code == ResponseCode.SUCCESS else None
        remark = resp.remark if code == resp.code else None
        return mrpc.PULL_MESSAGE.answer(cmd, header, body, code=code, remark=remark)

    async def _physical_max(self, logic: LogicQueue, topic: str, item: LogicQueueMappingItem) -> int:
        if logic.is_local(item):
            return self.messages.max_offset(topic, item.queue_id)
        return await self._offset(topic, item, mrpc.GET_MAX_OFFSET, QueueHeader(topic=topic, queue_id=item.queue_id))

    async def serve(self, req: Decoded[Any, None], read: LogicRead) -> RemotingCommand | None:
        """The answer to a request naming a queue (its header has ``topic`` and ``queue_id``): for a static topic's
        logic queue ``read``'s (or Apache's refusal when this broker does not lead it); None for a normal topic."""
        logic = resolve(self.topics, req.cmd, req.header.topic, req.header.queue_id)
        if logic is None or isinstance(logic, RemotingCommand):
            return logic
        return await read(req.cmd, logic, req.header)

    async def max_offset(self, cmd: RemotingCommand, logic: LogicQueue, h: QueueHeader) -> RemotingCommand:
        topic, item = h.topic, logic.item_at(LATEST)
        try:
            physical = await self._physical_max(logic, topic, item)
        except ForwardFailed as e:
            return refusal(cmd, e)
        return mrpc.GET_MAX_OFFSET.answer(cmd, OffsetHeader(offset=item.static_offset_strictly(physical)))

    async def min_offset(self, cmd: RemotingCommand, logic: LogicQueue, h: QueueHeader) -> RemotingCommand:
        topic, item = h.topic, logic.item_at(0)
        try:
            if logic.is_local(item):
                physical = self.messages.min_offset(topic, item.queue_id)
            else:
                header = QueueHeader(topic=topic, queue_id=item.queue_id)
                physical = await self._offset(topic, item, mrpc.GET_MIN_OFFSET, header)
        except ForwardFailed as e:
            return refusal(cmd, e)
        return mrpc.GET_MIN_OFFSET.answer(cmd, OffsetHeader(offset=item.static_offset_loosely(physical)))

    async def search_offset(self, cmd: RemotingCommand, logic: LogicQueue, h: SearchOffsetHeader) -> RemotingCommand:
        try:
            offset = await self._search(logic, h)
        except ForwardFailed as e:
            return refusal(cmd, e)
        return mrpc.SEARCH_OFFSET_BY_TIMESTAMP.answer(cmd, OffsetHeader(offset=offset))

    async def _search(self, logic: LogicQueue, h: SearchOffsetHeader) -> int:
        """From the newest item back to the first holding a message older than the time (or the oldest): where
        its messages reach the time; the newer item's first offset when they never do."""
        decided = logic.decided()
        newer: LogicQueueMappingItem | None = None
        for index in range(len(decided) - 1, -1, -1):
            item = decided[index]
            if logic.is_local(item):
                physical = self.messages.search_offset(h.topic, item.queue_id, h.timestamp)
            else:
                header = replace(h, queue_id=item.queue_id)
                physical = await self._offset(h.topic, item, mrpc.SEARCH_OFFSET_BY_TIMESTAMP, header)
            if item.end_offset_decided:
                physical = min(physical, item.end_offset)
            if physical > item.start_offset or index == 0:
                if newer is not None and physical >= await self._physical_max(logic, h.topic, item):
                    return newer.logic_offset
                return item.static_offset_strictly(physical)
            newer = item
        return 0

    async def earliest_store_time(self, cmd: RemotingCommand, logic: LogicQueue, h: QueueHeader) -> RemotingCommand:
        topic, item = h.topic, logic.item_at(0)
        if logic.is_local(item):
            ts = self.messages.store_time(topic, item.queue_id, self.messages.min_offset(topic, item.queue_id))
            return mrpc.GET_EARLIEST_MSG_STORETIME.answer(cmd, mrpc.TimestampHeader(timestamp=ts))
        ok = frozenset({ResponseCode.SUCCESS})
        header = QueueHeader(topic=topic, queue_id=item.queue_id)
        try:
            resp = await self._forward(topic, item, mrpc.GET_EARLIEST_MSG_STORETIME, header, ok)
        except ForwardFailed as e:
            return refusal(cmd, e)
        ts = mrpc.GET_EARLIEST_MSG_STORETIME.reply(resp).header.timestamp
        return mrpc.GET_EARLIEST_MSG_STORETIME.answer(cmd, mrpc.TimestampHeader(timestamp=ts))

    async def query_offset(self, cmd: RemotingCommand, logic: LogicQueue, h: crpc.QueryOffsetHeader) -> RemotingCommand:
        """The group's offset in the newest item that has one (Apache's "double read")."""
        ok = frozenset({ResponseCode.SUCCESS, ResponseCode.QUERY_NOT_FOUND})
        try:
            for item in reversed(logic.items):
                if logic.is_local(item):
                    physical = self.offsets.query(h.consumer_group, h.topic, item.queue_id)
                else:
                    header = replace(h, queue_id=item.queue_id, set_zero_if_not_found=False)
                    resp = await self._forward(h.topic, item, crpc.QUERY_CONSUMER_OFFSET, header, ok)
                    found = resp.code == ResponseCode.SUCCESS
                    physical = crpc.QUERY_CONSUMER_OFFSET.reply(resp).header.offset if found else -1
                if physical >= 0:
                    offset = item.static_offset_strictly(physical)
                    return crpc.QUERY_CONSUMER_OFFSET.answer(cmd, OffsetHeader(offset=offset))
        except ForwardFailed as e:
            return refusal(cmd, e)
        return cmd.response(ResponseCode.QUERY_NOT_FOUND, "Not found, maybe this group consumer boot first")

    async def update_offset(
        self, cmd: RemotingCommand, logic: LogicQueue, h: crpc.UpdateOffsetHeader
    ) -> RemotingCommand:
        """The commit goes to the item holding the committed logic offset, as its physical offset."""
        item = logic.item_at(h.commit_offset)
        physical = item.physical_offset(h.commit_offset)
        if logic.is_local(item):
            if not self.offsets.commit(h.consumer_group, h.topic, item.queue_id, physical):
                return cmd.response(ResponseCode.SUCCESS, "Offset has been previously reset")  # Apache 5.x's answer
            return cmd.response(ResponseCode.SUCCESS)
        header = replace(h, queue_id=item.queue_id, commit_offset=physical)
        try:
            resp = await self._forward(
                h.topic, item, crpc.UPDATE_CONSUMER_OFFSET, header, frozenset({ResponseCode.SUCCESS})
            )
        except ForwardFailed as e:
            return refusal(cmd, e)
        return cmd.response(ResponseCode.SUCCESS, resp.remark)
