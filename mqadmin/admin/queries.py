"""Looking stored messages up on brokers: by offset message id (VIEW_MESSAGE_BY_ID), by key or unique key
over every broker of a topic's route (QUERY_MESSAGE, as Java's ``MQAdminImpl.queryMessage``), by queue
offset (one PULL_MESSAGE), queue offsets and times, consume-queue entries (QUERY_CONSUME_QUEUE) and the
groups that consume a topic."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from mqadmin.admin.core import AdminCore
from mqadmin.admin.errors import AdminError
from mqadmin.model.route import TopicRouteData
from mqadmin.model.rpc import groups as group_rpc
from mqadmin.model.rpc import messages as rpc
from mqadmin.model.tags import SUB_ALL
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.message import MessageExt, decode_messages

UNIQUE_KEY_MAX_NUM = 32
"""What Java asks for in a unique-key query (the broker answers at most its defaultQueryMaxNum anyway)."""
END_OF_TIME = (1 << 63) - 1
"""Java's Long.MAX_VALUE, the default end of a key query's time range."""
PULL_BATCH = 32
PULL_FLAG_SUSPEND = 0x2
PULL_FLAG_SUBSCRIPTION = 0x4
SUSPEND_MARGIN = 15.0
"""A held pull is answered up to a few seconds after its suspend time (Java brokers check held pulls every
5 s); Java's client waits 15 s beyond it (CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND)."""


class NotFound(AdminError):
    """Nothing matched a look-up (the message says what was looked for and where)."""


@dataclass(slots=True)
class FoundMessage:
    """A stored message and the broker it was read from."""

    broker_name: str
    broker_addr: str
    message: MessageExt


@dataclass(slots=True)
class PullBatch:
    """What one PULL_MESSAGE returned: the messages, where to continue, and the queue's bounds."""

    messages: list[MessageExt]
    next_offset: int
    min_offset: int
    max_offset: int
    code: int

    @property
    def found(self) -> bool:
        return self.code == ResponseCode.SUCCESS


def broker_addrs(route: TopicRouteData) -> dict[str, str]:
    """Broker name -> the address to read from (the master, else the lowest-numbered slave), as Java's
    ``BrokerData.selectBrokerAddr`` picks it for reading."""
    out = {}
    for bd in route.broker_datas:
        addr = bd.master_addr or next((a for _, a in sorted(bd.broker_addrs.items())), None)
        if addr:
            out[bd.broker_name] = addr
    return dict(sorted(out.items()))


class MessageOps(AdminCore):
    # --- by id ------------------------------------------------------------------------------

    async def view_message(self, addr: str, offset: int, topic: str | None = None) -> MessageExt:
        """VIEW_MESSAGE_BY_ID: the message at commit-log ``offset`` of the broker at ``addr``."""
        reply = await self.request(addr, rpc.VIEW_MESSAGE_BY_ID, rpc.ViewMessageHeader(offset=offset, topic=topic))
        found = decode_messages(reply.body or b"")
        if not found:
            raise NotFound(f"{addr} holds no message at commit-log offset {offset}")
        return found[0]

    # --- by key -----------------------------------------------------------------------------

    async def query_messages(
        self,
        route: TopicRouteData,
        topic: str,
        key: str,
        *,
        unique: bool = False,
        max_num: int = 64,
        begin: int = 0,
        end: int = END_OF_TIME,
        cluster: str | None = None,
    ) -> list[FoundMessage]:
        """QUERY_MESSAGE on every broker of the route (of ``cluster`` only, when given) at once. Like Java,
        the answers are checked again here (a key index can return hash collisions): a key query keeps the
        messages of ``topic`` whose KEYS hold ``key``, a unique-key query those whose UNIQ_KEY is ``key``.
        A broker that fails is skipped unless every broker fails, as Java skips it."""
        header = rpc.QueryMessageHeader(
            topic=topic, key=key, max_num=UNIQUE_KEY_MAX_NUM if unique else max_num, begin_timestamp=begin,
            end_timestamp=end, unique_key=True if unique else None,
        )  # fmt: skip
        addrs = {
            bd.broker_name: addr
            for bd in route.broker_datas
            if (cluster is None or bd.cluster == cluster) and (addr := broker_addrs(route).get(bd.broker_name))
        }
        if not addrs:
            raise NotFound(f"no broker of the route of {topic!r}" + (f" is in cluster {cluster!r}" if cluster else ""))
        answers = await asyncio.gather(
            *(self.request(addr, rpc.QUERY_MESSAGE, header) for addr in addrs.values()), return_exceptions=True
        )
        failures = [a for a in answers if isinstance(a, BaseException)]
        if len(failures) == len(answers):
            raise failures[0]
        out: list[FoundMessage] = []
        for (name, addr), answer in zip(addrs.items(), answers, strict=True):
            if isinstance(answer, BaseException) or answer.code != ResponseCode.SUCCESS:
                continue
            for m in decode_messages(answer.body or b""):
                if (m.uniq_key == key) if unique else (m.topic == topic and key in m.keys):
                    out.append(FoundMessage(name, addr, m))
        return out

    # --- by queue ---------------------------------------------------------------------------

    async def pull(
        self,
        addr: str,
        topic: str,
        queue_id: int,
        offset: int,
        *,
        group: str,
        max_nums: int = PULL_BATCH,
        expression: str = SUB_ALL,
        suspend_ms: int = 0,
    ) -> PullBatch:
        """One PULL_MESSAGE that commits no offset; with ``suspend_ms`` the broker holds it until a message
        arrives (long polling). The subscription (tags expression) travels in the request."""
        flags = PULL_FLAG_SUBSCRIPTION | (PULL_FLAG_SUSPEND if suspend_ms else 0)
        header = rpc.PullHeader(
            consumer_group=group, topic=topic, queue_id=queue_id, queue_offset=offset, max_msg_nums=max_nums,
            sys_flag=flags, commit_offset=0, suspend_timeout_millis=suspend_ms, subscription=expression,
            sub_version=0, expression_type="TAG",
        )  # fmt: skip
        wait = self.timeout + suspend_ms / 1000 + SUSPEND_MARGIN if suspend_ms else 0
        reply = await self.request(addr, rpc.PULL_MESSAGE, header, timeout=wait)
        h = reply.header
        if reply.code == ResponseCode.PULL_OFFSET_MOVED and h is not None and h.min_offset <= offset < h.max_offset:
            # A 5.x broker answers the first pull after a server-side offset reset of ``group`` (resetOffsetByTime,
            # skipAccumulatedMessage) with the reset offset, though the queue holds ``offset``: ask again.
            reply = await self.request(addr, rpc.PULL_MESSAGE, header, timeout=wait)
            h = reply.header
        found = decode_messages(reply.body or b"") if reply.code == ResponseCode.SUCCESS else []
        if h is None:
            return PullBatch(found, offset, 0, 0, reply.code)
        return PullBatch(found, h.next_begin_offset, h.min_offset, h.max_offset, reply.code)

    async def max_offset(self, addr: str, topic: str, queue_id: int) -> int:
        reply = await self.request(addr, rpc.GET_MAX_OFFSET, rpc.QueueHeader(topic=topic, queue_id=queue_id))
        return reply.header.offset

    async def min_offset(self, addr: str, topic: str, queue_id: int) -> int:
        reply = await self.request(addr, rpc.GET_MIN_OFFSET, rpc.QueueHeader(topic=topic, queue_id=queue_id))
        return reply.header.offset

    async def search_offset(self, addr: str, topic: str, queue_id: int, timestamp: int) -> int:
        """SEARCH_OFFSET_BY_TIMESTAMP: the first queue offset stored at or after ``timestamp``."""
        header = rpc.SearchOffsetHeader(topic=topic, queue_id=queue_id, timestamp=timestamp)
        return (await self.request(addr, rpc.SEARCH_OFFSET_BY_TIMESTAMP, header)).header.offset

    async def query_consume_queue(
        self, addr: str, topic: str, queue_id: int, index: int, count: int, group: str | None = None
    ) -> rpc.ConsumeQueueView:
        """QUERY_CONSUME_QUEUE (queryCq). A broker answers SUCCESS without a body when ``index`` is outside
        the queue; that becomes ``NotFound`` with the broker's remark."""
        header = rpc.QueryConsumeQueueHeader(
            topic=topic, queue_id=queue_id, index=index, count=count, consumer_group=group
        )
        reply = await self.request(addr, rpc.QUERY_CONSUME_QUEUE, header)
        if reply.body is None:
            raise NotFound(reply.remark or "the broker sent no consume-queue data")
        return reply.body

    # --- who consumed it --------------------------------------------------------------------

    async def consumer_offset(self, addr: str, group: str, topic: str, queue_id: int) -> int | None:
        """The group's committed offset of one queue on one broker (GET_CONSUME_STATS), None if it has none."""
        reply = await self.request(
            addr, group_rpc.GET_CONSUME_STATS, group_rpc.ConsumeStatsHeader(consumer_group=group, topic=topic)
        )
        stats = reply.body
        if stats is None:
            return None
        return next((p.consumer_offset for p in stats.queues if p.topic == topic and p.queue_id == queue_id), None)
