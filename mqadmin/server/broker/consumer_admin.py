"""Consumer administration: INVOKE_BROKER_TO_RESET_OFFSET (222), INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223),
GET_ALL_PRODUCER_INFO (328), SET_MESSAGE_REQUEST_MODE (401) and GET_ALL_MESSAGE_REQUEST_MODE (402).

A reset works as on an Apache 5.1+ broker (``useServerSideResetOffset``): the new offsets are committed at
once and wait for the group's consumers (a stale commit is ignored, and a pull from elsewhere is answered
PULL_OFFSET_MOVED with the new offset; see ConsumerOffsetManager), so offline groups are reset too. In
addition every online consumer of the group is told at once with RESET_CONSUMER_CLIENT_OFFSET (220), as a
4.9 broker does (the C++ client gets the list form it reads), so Java push consumers move without waiting
for their next pull. ``isForce=false`` keeps a queue whose offset is already before the time.

Message request modes (PULL or POP per topic and group) are kept in ``config/messageRequestMode.json``
(``{"messageRequestModeMap": {topic: {group: {...}}}}``, Apache's file); ``mqadmin.server.broker.pop`` serves
the consumers that follow them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqadmin.model.clients import ProducerInfo
from mqadmin.model.queue import MessageQueue
from mqadmin.model.rpc import Decoded
from mqadmin.model.rpc import consumers as rpc
from mqadmin.model.rpc.consumers import ConsumerStatus, OffsetTable, RequestMode, ResetOffsetBody
from mqadmin.model.version import V3_0_7_SNAPSHOT
from mqadmin.server.broker.brokerstore import BrokerParts, Processor
from mqadmin.server.persist import read_metadata, write_json
from mqadmin.server.remoting import ClientChannel
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import ONEWAY_FLAG, RemotingCommand

if TYPE_CHECKING:
    from mqadmin.server.broker.clients import ClientConn

log = logging.getLogger(__name__)

CLIENT_STATUS_TIMEOUT = 5.0
"""Seconds a consumer has to answer GET_CONSUMER_STATUS_FROM_CLIENT (Java's)."""
RESET_FOR_C = ResetOffsetBody(for_c=True)
MODES = ("PULL", "POP")


def parse_modes_file(obj: Any) -> dict[str, dict[str, RequestMode]]:
    """messageRequestMode.json; ValueError naming what cannot be used."""
    if not isinstance(obj, dict) or not isinstance(obj.get("messageRequestModeMap") or {}, dict):
        raise ValueError("messageRequestModeMap is not an object")
    out: dict[str, dict[str, RequestMode]] = {}
    for topic, groups in (obj.get("messageRequestModeMap") or {}).items():
        if not isinstance(groups, dict) or not all(isinstance(m, dict) for m in groups.values()):
            raise ValueError(f"messageRequestModeMap[{topic!r}] is not an object of objects")
        out[topic] = {g: RequestMode.from_json(m) for g, m in groups.items()}
    return out


class ConsumerAdminProcessor(Processor):
    def __init__(self, parts: BrokerParts, modes_path: Path) -> None:
        super().__init__(parts)
        self.modes_path = modes_path
        self.modes: dict[str, dict[str, RequestMode]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.on_reset: Callable[[str, str, int, int], None] | None = None
        """Told of each reset (group, topic, queue id, offset), so pops of that queue start again there."""

    def load(self) -> None:
        """Read messageRequestMode.json (an unreadable file stops the start, unless reset_unreadable_metadata)."""
        reset = self.config.reset_unreadable_metadata
        self.modes = read_metadata(self.modes_path, parse_modes_file, reset=reset) or {}

    # --- resetting offsets ---------------------------------------------------------------------

    async def reset_offset(self, req: Decoded[rpc.ResetOffsetHeader, None], ch: ClientChannel) -> RemotingCommand:
        h, cmd = req.header, req.cmd
        if self.config.broker_id != 0:
            return cmd.response(ResponseCode.SYSTEM_ERROR, "Can not reset offset in slave broker")
        tc = self.topics.get(h.topic)
        if tc is None:
            return cmd.response(ResponseCode.TOPIC_NOT_EXIST, f"Topic {h.topic} does not exist")
        if self.groups.get(h.group) is None and h.group not in self.offsets.groups_of(h.topic):
            return cmd.response(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, f"Group {h.group} does not exist")
        if h.queue_id is not None and h.queue_id >= 0:
            target = self._one_queue(h)
            if isinstance(target, str):
                return cmd.response(ResponseCode.SYSTEM_ERROR, target)
            offsets = {h.queue_id: target}
        else:
            offsets = {q: self._offset_at(h.topic, q, h.timestamp) for q in range(tc.read_queue_nums)}
        name = self.config.broker_name
        table: OffsetTable = {}
        for qid, offset in offsets.items():
            current = self.offsets.query(h.group, h.topic, qid)
            if not h.is_force and 0 <= current <= offset:
                offset = current
            self.offsets.assign_reset(h.group, h.topic, qid, offset)
            if self.on_reset is not None:
                self.on_reset(h.group, h.topic, qid, offset)
            table[MessageQueue(h.topic, name, qid)] = offset
        self._tell_consumers(h, table)
        return rpc.INVOKE_BROKER_TO_RESET_OFFSET.answer(cmd, body=table)

    def _offset_at(self, topic: str, queue_id: int, timestamp: int) -> int:
        if timestamp < 0:
            return self.messages.max_offset(topic, queue_id)
        return self.messages.search_offset(topic, queue_id, timestamp)

    def _one_queue(self, h: rpc.ResetOffsetHeader) -> int | str:
        """The offset for one queue: ``offset`` when given (within the queue's range), else by time."""
        qid = h.queue_id or 0
        if h.offset is None or h.offset == -1:
            return self._offset_at(h.topic, qid, h.timestamp)
        low, high = self.messages.min_offset(h.topic, qid), self.messages.max_offset(h.topic, qid)
        if not low <= h.offset <= high:
            return f"Target offset {h.offset} not in consume queue range [{low}-{high}]"
        return h.offset

    def _tell_consumers(self, h: rpc.ResetOffsetHeader, table: OffsetTable) -> None:
        """RESET_CONSUMER_CLIENT_OFFSET (oneway) to every online consumer of the group that knows it."""
        info = self.clients.consumers.get(h.group)
        if info is None:
            return
        header = rpc.ResetOffsetHeader(topic=h.topic, group=h.group, timestamp=h.timestamp, is_force=False, queue_id=-1)
        for conn in list(info.conns.values()):
            if conn.version < V3_0_7_SNAPSHOT:
                continue
            cmd = rpc.RESET_CONSUMER_CLIENT_OFFSET.request(header, table)
            if conn.language == "CPP":
                cmd.body = RESET_FOR_C.encode(table)
            cmd.flag, cmd.language = ONEWAY_FLAG, "JAVA"
            self._spawn(conn.channel.send(cmd))
            log.info("reset %s on %s: told %s", h.group, h.topic, conn.client_id)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- what consumers hold -------------------------------------------------------------------

    async def consumer_status(self, req: Decoded[rpc.ConsumerStatusHeader, None], ch: ClientChannel) -> RemotingCommand:
        """Ask each online consumer of the group (or the one named by ``clientAddr``) for its offsets."""
        h, cmd = req.header, req.cmd
        info = self.clients.consumers.get(h.group)
        conns = [c for c in info.conns.values() if not h.client_addr or c.client_id == h.client_addr] if info else []
        if not info or not info.conns:
            return cmd.response(ResponseCode.SYSTEM_ERROR, f"No Any Consumer online in the consumer group: [{h.group}]")
        old = next((c for c in conns if c.version < V3_0_7_SNAPSHOT), None)
        if old is not None:
            return cmd.response(
                ResponseCode.SYSTEM_ERROR, f"the client does not support this feature. version={old.version}"
            )
        answers = await asyncio.gather(*(self._client_status(c, h) for c in conns))
        clients = {c.client_id: t for c, t in zip(conns, answers, strict=True) if t is not None}
        return rpc.INVOKE_BROKER_TO_GET_CONSUMER_STATUS.answer(cmd, body=ConsumerStatus({}, clients))

    async def _client_status(self, conn: ClientConn, h: rpc.ConsumerStatusHeader) -> OffsetTable | None:
        header = rpc.ConsumerStatusHeader(topic=h.topic, group=h.group)
        request = rpc.GET_CONSUMER_STATUS_FROM_CLIENT.request(header)
        request.language = "JAVA"
        try:
            resp = await conn.channel.request(request, CLIENT_STATUS_TIMEOUT)
            if resp.code != ResponseCode.SUCCESS or not resp.body:
                return None
            status: ConsumerStatus | None = rpc.GET_CONSUMER_STATUS_FROM_CLIENT.reply(resp).body
        except (TimeoutError, ConnectionError, ValueError) as e:
            log.info("consumer status of %s (%s): %s", conn.client_id, h.group, e)
            return None
        return status.queues if status is not None else None

    # --- producers -----------------------------------------------------------------------------

    async def producer_table(self, req: Decoded[None, None], ch: ClientChannel) -> RemotingCommand:
        now_ms, now = int(time.time() * 1000), time.monotonic()
        table = {
            group: [
                ProducerInfo(
                    c.client_id,
                    c.channel.remote_addr,
                    c.language,
                    c.version,
                    now_ms - int((now - c.last_update) * 1000),
                )
                for c in members.values()
            ]
            for group, members in sorted(self.clients.producers.items())
        }
        return rpc.GET_ALL_PRODUCER_INFO.answer(req.cmd, body=table)

    # --- message request modes -----------------------------------------------------------------

    async def set_request_mode(self, req: Decoded[None, RequestMode], ch: ClientChannel) -> RemotingCommand:
        mode, cmd = req.body, req.cmd
        if mode is None or not mode.topic or not mode.consumer_group:
            return cmd.response(ResponseCode.SYSTEM_ERROR, "topic and consumerGroup are required")
        if mode.mode not in MODES:
            return cmd.response(ResponseCode.SYSTEM_ERROR, f"mode {mode.mode!r} is not one of {', '.join(MODES)}")
        if mode.topic.startswith("%RETRY%"):
            return cmd.response(ResponseCode.NO_PERMISSION, "retry topic is not allowed to set mode")
        self.modes.setdefault(mode.topic, {})[mode.consumer_group] = mode
        await asyncio.to_thread(write_json, self.modes_path, self._modes_json())
        return cmd.response(ResponseCode.SUCCESS)

    def mode_of(self, topic: str, group: str) -> RequestMode | None:
        """The request mode set for a group on a topic, if any."""
        return self.modes.get(topic, {}).get(group)

    async def request_modes(self, req: Decoded[None, None], ch: ClientChannel) -> RemotingCommand:
        return rpc.GET_ALL_MESSAGE_REQUEST_MODE.answer(req.cmd, body=self._modes_json())

    def _modes_json(self) -> dict[str, Any]:
        return {
            "messageRequestModeMap": {
                t: {g: m.to_json() for g, m in sorted(groups.items())} for t, groups in sorted(self.modes.items())
            }
        }
