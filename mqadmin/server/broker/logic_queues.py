"""Requests addressed to a static topic's logic queue, and how its logic offsets map to the physical queues of
its items (Apache's TopicQueueMappingManager.buildTopicQueueMappingContext, TopicQueueMappingUtils and the
processors' rewriteRequestForStaticTopic / rewriteResponseForStaticTopic).

A request for a topic this broker holds a mapping of (and not marked ``lo=false``, Apache's mark of a request
one broker forwards to another) names a logic queue id. This broker must lead it (the newest item of the queue
is the mapping's own broker), else NOT_LEADER_FOR_QUEUE as Apache answers. A send goes to the leader item's
physical queue and its answer names the logic queue and the logic offset. A read names a logic offset: the item
covering it (``item_at``) says which broker's physical queue holds it and at which physical offset; an item on
another broker is read through a forwarded request (``mqadmin.server.broker.peers``). A queue of one item from
logic offset 0 (every queue until it is remapped) has logic offsets equal to its physical ones.
"""

from __future__ import annotations

from dataclasses import dataclass

from mqadmin.model.rpc.messages import PullResultHeader
from mqadmin.model.static_topic import LogicQueueMappingItem
from mqadmin.server.broker.topics import TopicConfigManager
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

NOT_LEADER_FOR_QUEUE = 501
"""Apache's ResponseCode.NOT_LEADER_FOR_QUEUE."""


@dataclass(frozen=True, slots=True)
class LogicQueue:
    global_id: int
    items: list[LogicQueueMappingItem]
    """Oldest first; the last is the leader (it takes the sends)."""
    here: str
    """This broker's name in the mapping: items naming it are read from this broker's store."""

    @property
    def leader(self) -> LogicQueueMappingItem:
        return self.items[-1]

    @property
    def physical_id(self) -> int:
        return self.leader.queue_id

    @property
    def as_physical(self) -> bool:
        """One item from logic offset 0: its logic offsets are its physical ones (Apache's shortcut)."""
        return len(self.items) == 1 and self.leader.logic_offset == 0 and self.leader.start_offset == 0

    def logic_offset(self, physical_offset: int) -> int:
        """The logic offset of a message put at ``physical_offset`` of the leader's queue."""
        return self.leader.static_offset_strictly(physical_offset)

    def is_local(self, item: LogicQueueMappingItem) -> bool:
        return item.bname == self.here

    def decided(self) -> list[LogicQueueMappingItem]:
        """The items whose logic offset is decided (a remapping decides the new item's after writing it)."""
        return [i for i in self.items if i.logic_offset_decided]

    def item_at(self, logic_offset: int) -> LogicQueueMappingItem:
        """The item holding ``logic_offset``: the newest decided one starting at or before it, else (an offset
        before every item) the oldest decided one (Java findLogicQueueMappingItem)."""
        decided = self.decided() or self.items
        return next((i for i in reversed(decided) if logic_offset >= i.logic_offset), decided[0])

    def next_after(self, item: LogicQueueMappingItem) -> LogicQueueMappingItem | None:
        """The item after ``item``, None when it is the last or the next one's logic offset is undecided
        (Java findNext)."""
        for i, it in enumerate(self.items[:-1]):
            if it.gen == item.gen:
                nxt = self.items[i + 1]
                return nxt if nxt.logic_offset_decided else None
        return None


@dataclass(frozen=True, slots=True)
class PhysicalPull:
    """A pull's answer in the terms of the physical queue it read (before ``logic_pull_answer``)."""

    code: int
    request_offset: int
    next_begin: int
    min_offset: int
    max_offset: int


def logic_pull_answer(
    queue: LogicQueue, item: LogicQueueMappingItem, got: PhysicalPull
) -> tuple[int, PullResultHeader]:
    """The code and header answering a pull of ``queue`` that read ``item``'s physical queue (Apache's
    rewriteResponseForStaticTopic): a read at or past the end of an item that is not the leader moves the
    consumer on to the next item's first logic offset (PULL_RETRY_IMMEDIATELY); a read before the first item's
    start moves it to its start; offsets are answered as logic offsets, with the ``offset_delta`` the client adds
    to the messages' physical queue offsets."""
    code, next_begin, min_offset, max_offset = got.code, got.next_begin, got.min_offset, got.max_offset
    current, requested = item, got.request_offset
    if got.code != ResponseCode.SUCCESS:
        earliest = queue.item_at(0)
        is_leader, is_earliest = current.gen == queue.leader.gen, current.gen == earliest.gen
        if is_leader:
            if requested > max_offset:
                next_begin = max_offset if got.code == ResponseCode.PULL_OFFSET_MOVED else next_begin
            elif requested < min_offset:
                next_begin, code = min_offset, ResponseCode.PULL_RETRY_IMMEDIATELY
        if is_earliest and requested < min_offset:
            next_begin, code = min_offset, ResponseCode.PULL_OFFSET_MOVED
        elif is_earliest and requested < max_offset:
            code = got.code
        elif (is_earliest or not is_leader) and requested >= max_offset:
            nxt = queue.next_after(current)
            if nxt is None:
                code = ResponseCode.PULL_NOT_FOUND
            else:
                current, code = nxt, ResponseCode.PULL_RETRY_IMMEDIATELY
                next_begin = min_offset = max_offset = nxt.start_offset
        elif not is_leader and requested < min_offset:  # a middle item
            next_begin, code = min_offset, ResponseCode.PULL_RETRY_IMMEDIATELY
    if current.end_offset_decided and next_begin >= current.end_offset:
        next_begin = current.end_offset
    header = PullResultHeader(
        next_begin_offset=current.static_offset_strictly(next_begin),
        min_offset=current.static_offset_strictly(max(current.start_offset, min_offset)),
        max_offset=max(current.static_offset_strictly(max_offset), queue.leader.max_static_offset()),
        offset_delta=current.offset_delta,
    )
    return code, header


def resolve(
    topics: TopicConfigManager, cmd: RemotingCommand, topic: str, queue_id: int
) -> LogicQueue | RemotingCommand | None:
    """The logic queue a request names; None for a normal topic (or a forwarded request, ``lo=false``); or
    Apache's NOT_LEADER_FOR_QUEUE when this broker does not lead the queue."""
    if cmd.ext.get("lo") == "false":
        return None
    detail = topics.mapping(topic)
    if detail is None:
        return None
    items = detail.hosted_queues.get(queue_id)
    if not items or items[-1].bname != detail.bname:
        remark = f"{topic}-{queue_id} does not exit in request process of current broker {detail.bname}"
        return cmd.response(NOT_LEADER_FOR_QUEUE, remark)
    return LogicQueue(queue_id, items, detail.bname)


def led_by_physical(
    topics: TopicConfigManager, cmd: RemotingCommand, topic: str, physical_id: int
) -> LogicQueue | None:
    """The logic queue whose leader item is this broker's ``physical_id`` (for a request that ``resolve``
    rewrote: the answer names the logic queue)."""
    if cmd.ext.get("lo") == "false":
        return None
    detail = topics.mapping(topic)
    if detail is None:
        return None
    for gid, items in detail.hosted_queues.items():
        if items and items[-1].bname == detail.bname and items[-1].queue_id == physical_id:
            return LogicQueue(gid, items, detail.bname)
    return None
