"""Reading messages queue by queue without committing offsets, as Java's tools do with a pull consumer
(consumeMessage, printMsg, printMsgByQueue, the dead-letter resend): which queues, which offset range
(queue offsets, or store times turned into offsets with SEARCH_OFFSET_BY_TIMESTAMP), a tags expression,
and a follow mode that long-polls every queue until stopped.

The tags expression is checked twice, as the Java client does: the broker filters by tags hash code,
and the tags of what it returns are compared here (so a hash collision never shows up)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass

from mqadmin.admin.client import AdminClient
from mqadmin.admin.messaging import NoSuchQueue
from mqadmin.admin.queries import PULL_BATCH, FoundMessage, broker_addrs
from mqadmin.model.route import TopicRouteData
from mqadmin.model.tags import SUB_ALL, build_subscription
from mqadmin.model.topic import PERM_READ
from mqadmin.wire.codes import ResponseCode

DEFAULT_CONSUMER_GROUP = "TOOLS_CONSUMER"
"""The group Java's tools read with; every broker has it, so reading creates no new group."""
FOLLOW_SUSPEND_MS = 15_000
"""How long a follow-mode pull waits at the broker for a new message (Java's brokerSuspendMaxTimeMillis)."""


@dataclass(frozen=True, slots=True)
class QueueRef:
    broker_name: str
    addr: str
    queue_id: int


@dataclass(slots=True)
class QueueRange:
    """Queue offsets ``[start, end)`` of one queue; ``end`` None reads on as messages arrive (follow)."""

    queue: QueueRef
    start: int
    end: int | None


def readable_queues(route: TopicRouteData, *, broker: str | None = None, queue_id: int | None = None) -> list[QueueRef]:
    """The route's readable queues (or the one given by ``broker``/``queue_id``), by broker name and id."""
    addrs = broker_addrs(route)
    out = [
        QueueRef(qd.broker_name, addrs[qd.broker_name], i)
        for qd in sorted(route.queue_datas, key=lambda q: q.broker_name)
        if qd.perm & PERM_READ and qd.broker_name in addrs and (broker is None or qd.broker_name == broker)
        for i in range(qd.read_queue_nums)
        if queue_id is None or i == queue_id
    ]
    if not out:
        known = ", ".join(sorted(addrs)) or "none"
        raise NoSuchQueue(
            f"the route has no readable queue matching broker {broker!r} queue {queue_id} (brokers: {known})"
            if broker is not None or queue_id is not None
            else "the route has no readable queue"
        )
    return out


async def queue_ranges(
    client: AdminClient,
    topic: str,
    queues: list[QueueRef],
    *,
    offset: int | None = None,
    begin: int | None = None,
    end: int | None = None,
    follow: bool = False,
) -> list[QueueRange]:
    """Each queue's range: from ``offset``, else the first message stored at or after ``begin``, else the
    queue's first message (its newest end when following); up to the first message stored at or after
    ``end``, else the queue's end at this moment (open when following)."""

    async def one(q: QueueRef) -> QueueRange:
        lo = await client.min_offset(q.addr, topic, q.queue_id)
        hi = await client.max_offset(q.addr, topic, q.queue_id)
        if offset is not None:
            start = max(offset, lo)
        elif begin is not None:
            start = await client.search_offset(q.addr, topic, q.queue_id, begin)
        else:
            start = hi if follow else lo
        stop = await client.search_offset(q.addr, topic, q.queue_id, end) if end is not None else hi
        return QueueRange(q, start, None if follow and end is None else stop)

    return list(await asyncio.gather(*(one(q) for q in queues)))


async def read_range(
    client: AdminClient, topic: str, r: QueueRange, *, group: str = DEFAULT_CONSUMER_GROUP, expression: str = SUB_ALL
) -> AsyncIterator[FoundMessage]:
    """The messages of a closed range matching ``expression``, in queue order."""
    assert r.end is not None
    sub = build_subscription(topic, expression)
    q, offset = r.queue, r.start
    while offset < r.end:
        batch = await client.pull(
            q.addr,
            topic,
            q.queue_id,
            offset,
            group=group,
            max_nums=min(PULL_BATCH, r.end - offset),
            expression=expression,
        )
        for m in batch.messages:
            if m.queue_offset < r.end and sub.match_tags(m.tags):
                yield FoundMessage(q.broker_name, q.addr, m)
        if batch.code not in (ResponseCode.SUCCESS, ResponseCode.PULL_RETRY_IMMEDIATELY) or batch.next_offset <= offset:
            return
        offset = batch.next_offset


async def read_ranges(
    client: AdminClient, topic: str, ranges: list[QueueRange], *, group: str = DEFAULT_CONSUMER_GROUP,
    expression: str = SUB_ALL, limit: int | None = None,
) -> list[FoundMessage]:  # fmt: skip
    """Up to ``limit`` messages of closed ranges, queue after queue."""
    out: list[FoundMessage] = []
    for r in ranges:
        async for found in read_range(client, topic, r, group=group, expression=expression):
            out.append(found)
            if limit is not None and len(out) >= limit:
                return out
    return out


async def read_messages(
    client: AdminClient,
    topic: str,
    *,
    limit: int | None = None,
    broker: str | None = None,
    queue_id: int | None = None,
    offset: int | None = None,
    begin: int | None = None,
    end: int | None = None,
    group: str = DEFAULT_CONSUMER_GROUP,
    expression: str = SUB_ALL,
) -> list[FoundMessage]:
    """Up to ``limit`` messages of the topic's readable queues (or the one given), queue after queue, from
    ``offset`` (or store time ``begin``) to store time ``end`` (or each queue's end now)."""
    queues = readable_queues(await client.topic_route(topic), broker=broker, queue_id=queue_id)
    ranges = await queue_ranges(client, topic, queues, offset=offset, begin=begin, end=end)
    return await read_ranges(client, topic, ranges, group=group, expression=expression, limit=limit)


async def follow(
    client: AdminClient, topic: str, ranges: list[QueueRange], *, group: str = DEFAULT_CONSUMER_GROUP,
    expression: str = SUB_ALL,
) -> AsyncGenerator[FoundMessage]:  # fmt: skip
    """Messages of every queue as they arrive, from each range's start, until every closed range is read or
    the caller stops iterating (each queue is long-polled: the broker answers as soon as a message arrives)."""
    arrived: asyncio.Queue[FoundMessage | BaseException | None] = asyncio.Queue(maxsize=1024)
    sub = build_subscription(topic, expression)

    async def poll(r: QueueRange) -> None:
        q, offset = r.queue, r.start
        try:
            while r.end is None or offset < r.end:
                batch = await client.pull(
                    q.addr, topic, q.queue_id, offset, group=group, expression=expression, suspend_ms=FOLLOW_SUSPEND_MS
                )
                for m in batch.messages:
                    if (r.end is None or m.queue_offset < r.end) and sub.match_tags(m.tags):
                        await arrived.put(FoundMessage(q.broker_name, q.addr, m))
                if batch.code == ResponseCode.PULL_OFFSET_MOVED:
                    offset = max(batch.min_offset, min(offset, batch.max_offset))
                elif batch.next_offset > offset:
                    offset = batch.next_offset
        except Exception as e:  # handed to the reader, which raises it
            await arrived.put(e)
        else:
            await arrived.put(None)  # this queue's range is read

    tasks = [asyncio.create_task(poll(r)) for r in ranges]
    running = len(tasks)
    try:
        while running:
            item = await arrived.get()
            if item is None:
                running -= 1
            elif isinstance(item, BaseException):
                raise item
            else:
                yield item
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
