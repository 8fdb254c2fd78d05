"""Broker-side assignment and POP consumption: QUERY_ASSIGNMENT (400), POP_MESSAGE (200050), ACK_MESSAGE (200051)
and CHANGE_MESSAGE_INVISIBLETIME (200053), for 5.x consumers that leave queue assignment to the broker
(``clientRebalance=false``).

QUERY_ASSIGNMENT answers with the group's message request mode (setConsumeMode; PULL when none was set, and
always for retry topics) and the queues of the topic's route (asked of the name servers): in PULL mode the
client's share (Java's AVG or AVG_BY_CIRCLE allocation over the group's clients); in POP mode every broker
once with queue id -1 (the broker picks the queue), or with ``popShareQueueNum`` the client's share plus that
of the N clients after it, as Apache's ``allocate4Pop``.

A pop hands out messages that stay invisible to other pops for ``invisibleTime``; an ACK_MESSAGE settles one,
CHANGE_MESSAGE_INVISIBLETIME moves its deadline, and one not acknowledged in time is handed out again. The
group's committed offset on a queue is its first message not yet acknowledged, so consumerProgress counts
popped-but-unacknowledged messages as lag, and after a restart of the broker (which keeps pops in memory)
delivery resumes from there: at least once. A pop that finds nothing waits up to ``pollTime`` for a message
(or a deadline) before answering PULL_NOT_FOUND. Unlike Apache, messages are redelivered from their own queue
rather than through ``%RETRY%<group>+<topic>``, and they are never moved to the dead-letter topic.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from mqadmin.model.names import RETRY_PREFIX
from mqadmin.model.queue import MessageQueue
from mqadmin.model.route import TopicRouteData
from mqadmin.model.rpc import Decoded
from mqadmin.model.rpc import namesrv as ns
from mqadmin.model.rpc import pop as rpc
from mqadmin.model.rpc.consumers import RequestMode
from mqadmin.model.tags import build_subscription
from mqadmin.model.topic import PERM_READ
from mqadmin.server.broker.brokerstore import BrokerParts, Processor
from mqadmin.server.remoting import ClientChannel
from mqadmin.server.store.types import TagFilter
from mqadmin.transport.errors import TransportError
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

log = logging.getLogger(__name__)

QUEUE_OFFSET_AT = 20
"""Byte position of QUEUEOFFSET (i64) in a stored message (after TOTALSIZE, MAGIC, BODYCRC, QUEUEID, FLAG)."""
MAX_POP = 32
ROUTE_TIMEOUT = 3.0


@dataclass(slots=True)
class PopQueue:
    """One group's pops on one queue."""

    base: int
    """The first offset not yet acknowledged (the group's committed offset)."""
    next: int
    """The first offset never handed out."""
    invisible: dict[int, float] = field(default_factory=dict)
    """Handed out, not acknowledged: offset → monotonic time it becomes visible again."""
    acked: set[int] = field(default_factory=set)
    """Acknowledged offsets at or above ``base`` (acknowledgements arrive in any order)."""

    def settle(self, offset: int) -> bool:
        """Acknowledge ``offset`` (one that was handed out); True when ``base`` moved."""
        self.invisible.pop(offset, None)
        if not self.base <= offset < self.next:
            return False
        self.acked.add(offset)
        moved = False
        while self.base in self.acked:
            self.acked.discard(self.base)
            self.base += 1
            moved = True
        return moved


def allocate(strategy: str, client: str, queues: list[MessageQueue], clients: list[str]) -> list[MessageQueue]:
    """Java's AllocateMessageQueueAveragely (``AVG``, the default) or AveragelyByCircle (``AVG_BY_CIRCLE``)."""
    if client not in clients or not queues:
        return []
    index, n, m = clients.index(client), len(queues), len(clients)
    if strategy == "AVG_BY_CIRCLE":
        return [queues[i] for i in range(index, n, m)]
    mod = n % m
    size = 1 if n <= m else (n // m + 1 if mod and index < mod else n // m)
    start = index * size if mod and index < mod else index * size + mod
    return [queues[(start + i) % n] for i in range(min(size, n - start))]


def allocate_for_pop(
    strategy: str, client: str, queues: list[MessageQueue], clients: list[str], share: int
) -> list[MessageQueue]:
    """Apache's ``allocate4Pop``: every broker once with queue id -1, or the client's share plus those of the
    ``share`` clients after it."""
    if share <= 0 or share >= len(clients) - 1:
        return sorted({MessageQueue(q.topic, q.broker_name, -1) for q in queues})
    if len(clients) > len(queues):
        return allocate(strategy, client, queues, clients)
    out = allocate(strategy, client, queues, clients)
    index = clients.index(client) if client in clients else -1
    for i in range(1, share + 1 if index >= 0 else 0):
        out += allocate(strategy, clients[(index + i) % len(clients)], queues, clients)
    return out


class PopProcessor(Processor):
    def __init__(self, parts: BrokerParts, mode_of: Callable[[str, str], RequestMode | None]) -> None:
        """``mode_of(topic, group)``: the message request mode set with SET_MESSAGE_REQUEST_MODE, if any."""
        super().__init__(parts)
        self.mode_of = mode_of
        self.queues: dict[tuple[str, str, int], PopQueue] = {}
        self._arrivals: dict[str, asyncio.Event] = {}
        self._transport: TcpTransport | None = None
        self.messages.add_arrival_listener(self._on_arrival)

    async def close(self) -> None:
        if self._transport is not None:
            await self._transport.aclose()

    # --- assignment ----------------------------------------------------------------------------

    async def query_assignment(self, req: Decoded[None, rpc.AssignmentRequest], ch: ClientChannel) -> RemotingCommand:
        body, cmd = req.body, req.cmd
        if body is None or not body.topic or not body.consumer_group:
            return cmd.response(ResponseCode.SYSTEM_ERROR, "topic and consumerGroup are required")
        route = await self._route(body.topic)
        if route is None:
            return rpc.QUERY_ASSIGNMENT.answer(cmd, body=[])
        queues = sorted(
            MessageQueue(body.topic, qd.broker_name, i)
            for qd in route.queue_datas
            if qd.perm & PERM_READ
            for i in range(qd.read_queue_nums)
        )
        mode = self.mode_of(body.topic, body.consumer_group)
        kind = "PULL" if mode is None or body.topic.startswith(RETRY_PREFIX) else mode.mode
        if body.message_model == "BROADCASTING":
            mine = queues
        else:
            info = self.clients.consumers.get(body.consumer_group)
            clients = sorted(info.client_ids()) if info else []
            if kind == "POP" and mode is not None:
                mine = allocate_for_pop(body.strategy_name, body.client_id, queues, clients, mode.pop_share_queue_num)
            else:
                mine = allocate(body.strategy_name, body.client_id, queues, clients)
        return rpc.QUERY_ASSIGNMENT.answer(cmd, body=[(mq, kind) for mq in sorted(set(mine))])

    async def _route(self, topic: str) -> TopicRouteData | None:
        """The topic's route from the first name server that answers (None: no route)."""
        if self._transport is None:
            self._transport = TcpTransport(
                timeout=ROUTE_TIMEOUT, tls=self.config.namesrv_tls(), credentials=self.config.internal_credentials()
            )
        header = ns.RouteHeader(topic=topic, accept_standard_json_only=True)
        for addr in self.config.namesrv_addrs:
            try:
                resp = await self._transport.request(addr, ns.GET_ROUTEINFO_BY_TOPIC.request(header), ROUTE_TIMEOUT)
            except TransportError as e:
                log.info("route of %s from %s: %s", topic, addr, e)
                continue
            if resp.code != ResponseCode.SUCCESS:
                return None
            return ns.GET_ROUTEINFO_BY_TOPIC.reply(resp).body
        return None

    # --- popping -------------------------------------------------------------------------------

    async def pop(self, req: Decoded[rpc.PopHeader, None], ch: ClientChannel) -> RemotingCommand | None:
        h, cmd = req.header, req.cmd
        group = await self.groups.find_or_create(h.consumer_group)
        if group is None:
            return cmd.response(
                ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, f"subscription group [{h.consumer_group}] does not exist"
            )
        tc = self.topics.get(h.topic)
        if tc is None:
            return cmd.response(ResponseCode.TOPIC_NOT_EXIST, f"topic[{h.topic}] not exist, apply first please!")
        if not tc.perm & PERM_READ or not self.config.broker_permission & PERM_READ:
            return cmd.response(ResponseCode.NO_PERMISSION, f"the topic[{h.topic}] peeking message is forbidden")
        if h.queue_id >= tc.read_queue_nums or h.queue_id < -1:
            return cmd.response(ResponseCode.SYSTEM_ERROR, f"queueId[{h.queue_id}] is illegal, topic:[{h.topic}]")
        if (h.exp_type or "TAG").upper() != "TAG":
            return cmd.response(ResponseCode.SYSTEM_ERROR, f"The broker does not support filtering by {h.exp_type}")
        sub = build_subscription(h.topic, h.exp)
        qids = [h.queue_id] if h.queue_id >= 0 else list(range(tc.read_queue_nums))
        random.shuffle(qids)
        wanted = max(1, min(h.max_msg_nums, MAX_POP))
        hold = max(0.0, min(h.poll_time / 1000, self.config.long_polling_max_wait))
        deadline = time.monotonic() + hold
        while True:
            found = [m for q in qids for m in self._take(h, q, sub, wanted)][:wanted]
            left = deadline - time.monotonic()
            if found or left <= 0 or ch.closed:
                break
            await self._wait(h.topic, min(left, self._next_visible(h, qids)))
        if ch.closed:
            return None
        rest = sum(max(self.messages.max_offset(h.topic, q) - self._state(h, q).next, 0) for q in qids)
        header = rpc.PopResultHeader(
            pop_time=int(time.time() * 1000), invisible_time=h.invisible_time, revive_qid=0, rest_num=rest
        )
        if not found:
            return rpc.POP_MESSAGE.answer(cmd, header, code=ResponseCode.PULL_NOT_FOUND, remark="no new message")
        self.stats.record_get(len(found))
        self.rates.got(h.consumer_group, h.topic, len(found))
        return rpc.POP_MESSAGE.answer(cmd, header, b"".join(found))

    def _state(self, h: rpc.PopHeader, qid: int) -> PopQueue:
        key = (h.consumer_group, h.topic, qid)
        state = self.queues.get(key)
        if state is None:
            start = self.offsets.query(h.consumer_group, h.topic, qid)
            if start < 0:
                start = (
                    self.messages.min_offset(h.topic, qid)
                    if h.init_mode == rpc.INIT_MODE_MIN
                    else self.messages.max_offset(h.topic, qid)
                )
            self.offsets.take_reset(h.consumer_group, h.topic, qid)  # a pop consumer takes an admin reset here
            self.offsets.commit(h.consumer_group, h.topic, qid, start)
            state = self.queues[key] = PopQueue(start, start)
        return state

    def _take(self, h: rpc.PopHeader, qid: int, sub: TagFilter, wanted: int) -> list[bytes]:
        """Up to ``wanted`` messages of one queue: those whose invisibility ended, then new ones."""
        state = self._state(h, qid)
        low = self.messages.min_offset(h.topic, qid)
        if state.base < low:  # messages removed from the store are no longer waited for
            state.base, state.next = low, max(state.next, low)
            state.acked = {o for o in state.acked if o >= low}
            state.invisible = {o: t for o, t in state.invisible.items() if o >= low}
            self.offsets.commit(h.consumer_group, h.topic, qid, low)
        now = time.monotonic()
        until = now + h.invisible_time / 1000
        out: list[bytes] = []
        for offset in sorted(o for o, t in state.invisible.items() if t <= now)[:wanted]:
            result = self.messages.get_messages(h.topic, qid, offset, 1, None)
            if not result.messages:  # gone from the store meanwhile: nothing to deliver
                self._settle(h.consumer_group, h.topic, qid, offset)
                continue
            state.invisible[offset] = until
            out.append(result.messages[0])
        if len(out) < wanted and state.next < self.messages.max_offset(h.topic, qid):
            start = state.next
            result = self.messages.get_messages(h.topic, qid, start, wanted - len(out), sub)
            handed = set()
            for data in result.messages:
                offset = struct.unpack_from(">q", data, QUEUE_OFFSET_AT)[0]
                state.invisible[offset] = until
                handed.add(offset)
                out.append(data)
            state.next = max(result.next_begin_offset, start)
            for skipped in range(start, state.next):  # filtered out by the tag expression: settled at once
                if skipped not in handed:
                    self._settle(h.consumer_group, h.topic, qid, skipped)
        return out

    def _next_visible(self, h: rpc.PopHeader, qids: list[int]) -> float:
        """Seconds until a handed-out message of these queues becomes visible again (a long time if none)."""
        times = [t for q in qids for t in self._state(h, q).invisible.values()]
        return max(min(times) - time.monotonic(), 0.01) if times else 3600.0

    async def _wait(self, topic: str, seconds: float) -> None:
        event = self._arrivals.setdefault(topic, asyncio.Event())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), seconds)

    def _on_arrival(self, topic: str, queue_id: int, max_offset: int) -> None:
        event = self._arrivals.pop(topic, None)
        if event is not None:
            event.set()

    # --- acknowledging -------------------------------------------------------------------------

    def _settle(self, group: str, topic: str, qid: int, offset: int) -> None:
        state = self.queues.get((group, topic, qid))
        if state is not None and state.settle(offset):
            self.offsets.commit(group, topic, qid, state.base)

    async def ack(self, req: Decoded[rpc.AckHeader, None], ch: ClientChannel) -> RemotingCommand:
        h = req.header
        self._settle(h.consumer_group, h.topic, h.queue_id, h.offset)
        return req.cmd.response(ResponseCode.SUCCESS)

    async def change_invisible_time(
        self, req: Decoded[rpc.ChangeInvisibleTimeHeader, None], ch: ClientChannel
    ) -> RemotingCommand:
        h = req.header
        state = self.queues.get((h.consumer_group, h.topic, h.queue_id))
        if state is not None and h.offset in state.invisible:
            state.invisible[h.offset] = time.monotonic() + h.invisible_time / 1000
        header = rpc.ChangeInvisibleTimeResultHeader(
            pop_time=int(time.time() * 1000), invisible_time=h.invisible_time, revive_qid=0
        )
        return rpc.CHANGE_MESSAGE_INVISIBLETIME.answer(req.cmd, header)

    def reset(self, group: str, topic: str, qid: int, offset: int) -> None:
        """An admin reset: pops of this queue start again at ``offset``, forgetting what was handed out."""
        if (group, topic, qid) in self.queues:
            self.offsets.take_reset(group, topic, qid)
            self.queues[(group, topic, qid)] = PopQueue(offset, offset)
