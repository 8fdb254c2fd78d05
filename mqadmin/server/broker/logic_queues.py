"""Requests addressed to a static topic's logic queue, rewritten to this broker's physical queue (Apache's
TopicQueueMappingManager.buildTopicQueueMappingContext and the processors' rewriteRequestForStaticTopic).

A request for a topic this broker holds a mapping of (and not marked ``lo=false``, Apache's mark of a request
one broker forwards to another) names a logic queue id. This broker must lead it (the newest item of the queue
is here), else NOT_LEADER_FOR_QUEUE as Apache answers. A send goes to the leader item's physical queue and its
answer names the logic queue and the logic offset. Reads (pulls, consumer offsets, min/max offsets, search by
time) are served for a logic queue of one item starting at logic offset 0 (every queue until it is remapped),
whose physical offsets are its logic offsets, as Apache serves them. A queue that was remapped (items on
several brokers) is read by Apache through the older items' brokers (forwarded requests): the embedded broker
does not forward, and refuses such reads naming the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, TypeVar

from mqadmin.model.static_topic import LogicQueueMappingItem
from mqadmin.server.broker.topics import TopicConfigManager
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

H = TypeVar("H")

NOT_LEADER_FOR_QUEUE = 501
"""Apache's ResponseCode.NOT_LEADER_FOR_QUEUE."""


@dataclass(frozen=True, slots=True)
class LogicQueue:
    global_id: int
    items: list[LogicQueueMappingItem]

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


def resolve(
    topics: TopicConfigManager, cmd: RemotingCommand, topic: str, queue_id: int, *, read: bool
) -> LogicQueue | RemotingCommand | None:
    """The logic queue a request names; None for a normal topic (or a forwarded request, ``lo=false``); or the
    answer refusing it: Apache's NOT_LEADER_FOR_QUEUE when this broker does not lead the queue, and for a read
    of a remapped queue the reason the embedded broker does not serve it."""
    if cmd.ext.get("lo") == "false":
        return None
    detail = topics.mapping(topic)
    if detail is None:
        return None
    items = detail.hosted_queues.get(queue_id)
    if not items or items[-1].bname != detail.bname:
        remark = f"{topic}-{queue_id} does not exit in request process of current broker {detail.bname}"
        return cmd.response(NOT_LEADER_FOR_QUEUE, remark)
    queue = LogicQueue(queue_id, items)
    if read and not queue.as_physical:
        brokers = sorted({i.bname for i in items[:-1]} - {detail.bname}) or [detail.bname]
        remark = (
            f"{topic}-{queue_id} was remapped (earlier items on {', '.join(brokers)}): reading it needs requests "
            "forwarded between brokers and offsets across items, which mqadmin's embedded broker does not do"
        )
        return cmd.response(ResponseCode.SYSTEM_ERROR, remark)
    return queue


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
            return LogicQueue(gid, items)
    return None


def read_header(topics: TopicConfigManager, cmd: RemotingCommand, header: H) -> H | RemotingCommand:
    """A read's header (a dataclass with ``topic`` and ``queue_id``) with a logic queue id replaced by the
    physical one, or the refusal (see ``resolve``); a normal topic's header as it came."""
    h: Any = header
    logic = resolve(topics, cmd, h.topic, h.queue_id, read=True)
    if logic is None or isinstance(logic, RemotingCommand):
        return logic or header
    rewritten: H = replace(h, queue_id=logic.physical_id)
    return rewritten
