"""Moving a consumer group's offsets: to a time or to the end of every queue of a topic
(resetOffsetByTime, skipAccumulatedMessage), one queue to an offset, and copying another group's
offsets (cloneGroupOffset).

Each broker of the topic's route is handled on its own and reports every queue with its offset before
and after and whether it was moved, so a reset that stops part-way says exactly which queues moved.

How the brokers are asked, as Java's mqadmin does:

* INVOKE_BROKER_TO_RESET_OFFSET (222). Apache 5.1+ brokers (and mqadmin's) move the offsets themselves
  (``useServerSideResetOffset``); consumers pick them up on their next pull. 4.9 brokers tell each
  online consumer to move (RESET_CONSUMER_CLIENT_OFFSET); a Java consumer commits the new offsets about
  ten seconds later.
* A 4.9 broker with no consumer of the group online answers CONSUMER_NOT_ONLINE (and SYSTEM_ERROR "not
  exist" when the group has no offset on some queue of the topic); the offsets are then committed queue
  by queue with UPDATE_CONSUMER_OFFSET (15), as Java's ``resetOffsetByTimestampOld``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from mqadmin.admin.consumers import ConsumerOps, route_targets
from mqadmin.admin.errors import AdminError, ResponseError, reason_of
from mqadmin.admin.fanout import Target, fan_out
from mqadmin.admin.results import Status, TargetResult
from mqadmin.model.queue import MessageQueue, queue_json
from mqadmin.model.rpc import clients as client_rpc
from mqadmin.model.rpc import consumers as rpc
from mqadmin.model.rpc import groups as group_rpc
from mqadmin.model.rpc import messages as off
from mqadmin.model.version import V5_1_0
from mqadmin.transport.errors import TransportError
from mqadmin.wire.codes import ResponseCode

TO_END = -1
"""The timestamp meaning "the end of every queue" (skipAccumulatedMessage)."""
PREVIOUSLY_RESET = "previously reset"
"""In the remark of a 5.x broker that ignored a commit because a reset is waiting for the consumer."""


class OffsetOutOfRange(AdminError):
    pass


class NotInRoute(AdminError):
    """The brokers asked for (-b, -c) hold no queue of the topic."""


@dataclass(frozen=True, slots=True)
class QueueMove:
    mq: MessageQueue
    old: int | None
    """The group's committed offset before (None: unknown, the broker reported none)."""
    new: int
    done: bool = False
    """The broker has the new offset (False in a dry run, or when the reset stopped before this queue)."""

    @property
    def moved(self) -> bool:
        return self.old != self.new

    def to_json(self) -> dict[str, Any]:
        return queue_json(self.mq, oldOffset=self.old, newOffset=self.new, moved=self.moved, done=self.done)


@dataclass(slots=True)
class OffsetChange:
    """What one broker did (``TargetResult.data``)."""

    how: str
    """``broker`` (the broker moved them), ``committed`` (UPDATE_CONSUMER_OFFSET per queue), ``planned`` (dry run)."""
    queues: list[QueueMove]
    note: str | None = None


def _status(change: OffsetChange, dry_run: bool) -> Status:
    if not any(q.moved for q in change.queues):
        return Status.UNCHANGED
    return Status.WOULD_UPDATE if dry_run else Status.UPDATED


def _result(t: Target, change: OffsetChange, dry_run: bool = False) -> TargetResult:
    return TargetResult(t.name, t.addr, _status(change, dry_run), data=change)


def _group_offline(e: ResponseError) -> bool:
    """A 4.9 broker's answer when the reset cannot go through online consumers."""
    if e.code == ResponseCode.CONSUMER_NOT_ONLINE:
        return True
    return e.code == ResponseCode.SYSTEM_ERROR and "not exist" in e.remark


class OffsetOps(ConsumerOps):
    # --- reading -----------------------------------------------------------------------------------

    async def committed(self, addr: str, group: str, topic: str) -> tuple[dict[int, int], int]:
        """The group's offset per queue of ``topic`` on one broker (GET_CONSUME_STATS) and the broker's version."""
        header = group_rpc.ConsumeStatsHeader(consumer_group=group, topic=topic)
        reply = await self.request(addr, group_rpc.GET_CONSUME_STATS, header)
        rows = reply.body.queues if reply.body is not None else []
        return {q.queue_id: q.consumer_offset for q in rows if q.topic == topic}, reply.version

    async def queue_offset(self, addr: str, topic: str, queue_id: int, timestamp: int) -> int:
        """Where a queue stands at ``timestamp`` (SEARCH_OFFSET_BY_TIMESTAMP), or its end for TO_END."""
        if timestamp == TO_END:
            header: Any = off.QueueHeader(topic=topic, queue_id=queue_id)
            reply = await self.request(addr, off.GET_MAX_OFFSET, header)
        else:
            header = off.SearchOffsetHeader(topic=topic, queue_id=queue_id, timestamp=timestamp)
            reply = await self.request(addr, off.SEARCH_OFFSET_BY_TIMESTAMP, header)
        return reply.header.offset if reply.header is not None else 0

    async def _plan(
        self, t: Target, topic: str, timestamp: int, force: bool, old: dict[int, int], queues: int
    ) -> list[QueueMove]:
        qids = sorted(old) or list(range(queues))
        targets = await asyncio.gather(*(self.queue_offset(t.addr, topic, q, timestamp) for q in qids))
        moves = []
        for qid, target in zip(qids, targets, strict=True):
            current = old.get(qid)
            new = target if force or current is None or target < current else current
            moves.append(QueueMove(MessageQueue(topic, t.name, qid), current, new))
        return moves

    # --- resetting a topic -------------------------------------------------------------------------

    async def reset_offsets(
        self,
        group: str,
        topic: str,
        timestamp: int,
        *,
        force: bool = True,
        dry_run: bool = False,
        cluster: str | None = None,
        broker_addr: str | None = None,
    ) -> list[TargetResult]:
        """Move ``group`` on every queue of ``topic`` to ``timestamp`` (ms; TO_END for the end), on each
        broker of the topic's route (only those of ``cluster``, or the one at ``broker_addr``, when given).
        Without ``force`` a queue only moves back. With ``dry_run`` nothing changes and each broker reports
        the plan."""
        route = await self.topic_route(topic)
        queues = {qd.broker_name: qd.read_queue_nums for qd in route.queue_datas}
        targets = [
            t
            for t in route_targets(route)
            if (cluster is None or t.cluster == cluster) and (broker_addr is None or t.addr == broker_addr)
        ]
        if not targets:
            where = f"cluster {cluster!r}" if cluster else f"broker {broker_addr}"
            raise NotInRoute(f"topic {topic!r} has no queue on {where} (see: mqadmin topicRoute -t {topic})")

        async def one(t: Target) -> TargetResult:
            old, _ = await self.committed(t.addr, group, topic)
            plan = await self._plan(t, topic, timestamp, force, old, queues.get(t.name, 0))
            if dry_run:
                return _result(t, OffsetChange("planned", plan), dry_run=True)
            return await self._reset_on(t, group, topic, timestamp, force, old, plan)

        return await fan_out(targets, one)

    async def _reset_on(
        self, t: Target, group: str, topic: str, timestamp: int, force: bool, old: dict[int, int], plan: list[QueueMove]
    ) -> TargetResult:
        header = rpc.ResetOffsetHeader(
            topic=topic, group=group, timestamp=timestamp, is_force=force, queue_id=-1, offset=-1
        )
        try:
            reply = await self.request(t.addr, rpc.INVOKE_BROKER_TO_RESET_OFFSET, header)
        except ResponseError as e:
            if not _group_offline(e):
                raise
            return await self._commit(t, group, plan, f"no consumer of {group} online: offsets committed directly")
        table = reply.body or {}
        moves = [QueueMove(mq, old.get(mq.queue_id), offset, True) for mq, offset in table.items() if mq.topic == topic]
        note = None
        if reply.version < V5_1_0 and any(m.moved for m in moves):
            note = "the online consumers were told to move; Java consumers commit the new offsets about 10 s later"
        return _result(t, OffsetChange("broker", moves, note))

    async def _commit(self, t: Target, group: str, moves: Sequence[QueueMove], note: str | None) -> TargetResult:
        """UPDATE_CONSUMER_OFFSET for every queue that moves, one after the other; a failure stops there and
        the result says which queues were committed before it."""
        done: list[QueueMove] = []
        for i, m in enumerate(moves):
            if not m.moved:
                done.append(replace(m, done=True))
                continue
            header = client_rpc.UpdateOffsetHeader(
                consumer_group=group, topic=m.mq.topic, queue_id=m.mq.queue_id, commit_offset=m.new
            )
            try:
                reply = await self.request(t.addr, client_rpc.UPDATE_CONSUMER_OFFSET, header)
            except (AdminError, TransportError) as e:
                rest = list(moves[i:])
                moved = ", ".join(str(q.mq.queue_id) for q in done if q.moved) or "none"
                change = OffsetChange("committed", done + rest, note)
                reason = f"stopped at queue {m.mq.queue_id}: {reason_of(e)} (queues moved before: {moved})"
                return TargetResult.failure(t.name, t.addr, e, reason, data=change)
            if PREVIOUSLY_RESET in (reply.remark or ""):
                note = f"queue {m.mq.queue_id} kept its offset: a reset is waiting for the group's consumer"
                done.append(replace(m, new=m.old if m.old is not None else m.new))
                continue
            done.append(replace(m, done=True))
        return _result(t, OffsetChange("committed", done, note))

    # --- one queue ---------------------------------------------------------------------------------

    async def reset_queue(
        self,
        t: Target,
        group: str,
        topic: str,
        queue_id: int,
        timestamp: int,
        *,
        offset: int | None = None,
        dry_run: bool = False,
    ) -> TargetResult:
        """Move ``group`` on one queue to ``offset`` (checked against the queue's range), else to ``timestamp``.

        The offset is committed (UPDATE_CONSUMER_OFFSET); a 5.1+ broker is then asked to reset that queue
        (222 with queueId and offset) so its online consumers follow, as Java's ``resetOffsetByQueueId``."""
        old, version = await self.committed(t.addr, group, topic)
        mq = MessageQueue(topic, t.name, queue_id)
        if offset is None:
            new = await self.queue_offset(t.addr, topic, queue_id, timestamp)
        else:
            await self._check_range(t.addr, mq, offset)
            new = offset
        move = QueueMove(mq, old.get(queue_id), new)
        if dry_run:
            return _result(t, OffsetChange("planned", [move]), dry_run=True)
        result = await self._commit(t, group, [move], None)
        if not result.ok or version < V5_1_0:
            if result.ok and await self._online(t.addr, group):
                result.data.note = (
                    "consumers of the group are online and keep their own position on a 4.9 broker: they will "
                    "overwrite this offset (reset the whole topic instead, or stop them first)"
                )
            return result
        header = rpc.ResetOffsetHeader(
            topic=topic, group=group, timestamp=timestamp, is_force=True, queue_id=queue_id, offset=new
        )
        await self.request(t.addr, rpc.INVOKE_BROKER_TO_RESET_OFFSET, header)
        return result

    async def _check_range(self, addr: str, mq: MessageQueue, offset: int) -> None:
        header = off.QueueHeader(topic=mq.topic, queue_id=mq.queue_id)
        lo, hi = await asyncio.gather(
            self.request(addr, off.GET_MIN_OFFSET, header), self.request(addr, off.GET_MAX_OFFSET, header)
        )
        low, high = lo.header.offset, hi.header.offset
        if not low <= offset <= high:
            raise OffsetOutOfRange(f"offset {offset} is outside queue {mq.queue_id}'s range [{low}, {high}]")

    async def _online(self, addr: str, group: str) -> bool:
        try:
            await self.consumer_connection_on(addr, group)
        except (AdminError, TransportError):
            return False
        return True

    # --- copying another group's offsets -----------------------------------------------------------

    async def clone_offsets(self, src: str, dest: str, topic: str, *, dry_run: bool = False) -> list[TargetResult]:
        """Commit ``src``'s offsets on ``topic`` as ``dest``'s, on every broker of the topic's route."""
        targets = route_targets(await self.topic_route(topic))

        async def one(t: Target) -> TargetResult:
            (source, _), (current, _) = await asyncio.gather(
                self.committed(t.addr, src, topic), self.committed(t.addr, dest, topic)
            )
            moves = [QueueMove(MessageQueue(topic, t.name, q), current.get(q), o) for q, o in sorted(source.items())]
            note = None if source else f"{src} has no offset for {topic} on this broker"
            if dry_run or not moves:
                return _result(t, OffsetChange("planned" if dry_run else "committed", moves, note), dry_run)
            if await self._online(t.addr, dest):
                note = f"consumers of {dest} are online: they keep their own position and may overwrite these offsets"
            return await self._commit(t, dest, moves, note)

        return await fan_out(targets, one)
