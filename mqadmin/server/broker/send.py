"""SEND_MESSAGE (10), SEND_MESSAGE_V2 (310), SEND_BATCH_MESSAGE (320), CONSUMER_SEND_MSG_BACK (36).

The checks are RocketMQ's ``msgCheck`` (seeds 001 and 003), in its order, except that the names
(topic, default topic, producer group) are checked before the handler runs
(``mqadmin.server.validation``): the broker must be writable; not one of the topics nobody may
send to; an unknown topic is created from the default topic (TBW102) when autoCreateTopicEnable allows it, a ``%RETRY%``
topic with one queue; the queue id within the topic's queues. Then the body size, then the store,
whose result maps to response codes as ``handlePutMessageResult`` does.

Differences from the Java broker, on purpose: a topic without write permission refuses sends
(NO_PERMISSION) and so does a broker without write permission for every topic (Java checks
order topics only); transactional half messages are refused (no transaction support). Delayed
messages and consumer retries wait in SCHEDULE_TOPIC_XXXX (mqadmin.server.broker.schedule).
"""

from __future__ import annotations

import logging
import random
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mqadmin.model.names import DLQ_PREFIX, NOT_ALLOWED_SEND_TOPICS, POP_RETRY_SEPARATOR, RETRY_PREFIX
from mqadmin.model.topic import PERM_READ, PERM_WRITE, TopicConfig
from mqadmin.server.broker.brokerstore import Processor, store_host
from mqadmin.server.broker.schedule import RETRY_FIRST_LEVEL, delay_levels, schedule_if_delayed
from mqadmin.server.headers import HeaderError
from mqadmin.server.remoting import ClientChannel
from mqadmin.server.store import PutResult, PutStatus
from mqadmin.server.validation import uses_short_send_keys
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand
from mqadmin.wire.message import (
    PROPERTY_WAIT,
    MessageDecodeError,
    MessageExt,
    decode_message,
    decode_properties,
)

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)

FAQ_APPLY_TOPIC = "\nSee http://rocketmq.apache.org/docs/faq/ for further details."
PROPERTY_CLUSTER = "CLUSTER"
PROPERTY_TRANSACTION_PREPARED = "TRAN_MSG"
PROPERTY_RETRY_TOPIC = "RETRY_TOPIC"
PROPERTY_ORIGIN_MESSAGE_ID = "ORIGIN_MESSAGE_ID"
PROPERTY_DELAY = "DELAY"
MULTI_TAGS_FLAG = 0x2
DLQ_QUEUE_NUMS = 1
MAX_RECONSUME_VERSION = 121
"""Clients older than V3_4_9 cannot set maxReconsumeTimes per message."""

_LONG_NAMES = (
    "producerGroup", "topic", "defaultTopic", "defaultTopicQueueNums", "queueId", "sysFlag", "bornTimestamp",
    "flag", "properties", "reconsumeTimes", "unitMode", "maxReconsumeTimes", "batch",
)  # fmt: skip
_SHORT_NAMES = tuple("abcdefghijklm")
"""SEND_MESSAGE_V2's keys for the same fields, in the same order."""
_REQUIRED = 8
"""The first eight fields are @CFNotNull in Java's header classes."""


@dataclass(slots=True)
class SendHeader:
    producer_group: str
    topic: str
    default_topic: str
    default_topic_queue_nums: int
    queue_id: int
    sys_flag: int
    born_timestamp: int
    flag: int
    properties: str
    reconsume_times: int
    unit_mode: bool
    max_reconsume_times: int | None
    batch: bool

    @classmethod
    def parse(cls, cmd: RemotingCommand) -> SendHeader:
        """Long field names (code 10) or the short a–n keys (310/320); raises HeaderError like Java."""
        ext = cmd.ext
        names = _SHORT_NAMES if uses_short_send_keys(ext) else _LONG_NAMES
        v = [ext.get(n) for n in names]
        for i in range(_REQUIRED):
            if v[i] is None:
                raise HeaderError(f"the custom field <{names[i]}> is null")
        return cls(
            producer_group=v[0],  # type: ignore[arg-type]
            topic=v[1],  # type: ignore[arg-type]
            default_topic=v[2],  # type: ignore[arg-type]
            default_topic_queue_nums=_int(names[3], v[3]),
            queue_id=_int(names[4], v[4]),
            sys_flag=_int(names[5], v[5]),
            born_timestamp=_int(names[6], v[6]),
            flag=_int(names[7], v[7]),
            properties=v[8] or "",
            reconsume_times=_int(names[9], v[9]) if v[9] else 0,
            unit_mode=_bool(v[10]),
            max_reconsume_times=_int(names[11], v[11]) if v[11] else None,
            batch=_bool(v[12]),
        )


def _int(name: str, value: str | None) -> int:
    try:
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise HeaderError(f"the custom field <{name}> is not a number: {value!r}") from None


def _bool(value: str | None) -> bool:
    return value is not None and value.strip().lower() in ("true", "1")


def host_of(addr: str) -> tuple[str, int]:
    """An IPv4 (host, port) for the stored BORNHOST; other peers are recorded as 127.0.0.1."""
    host, _, port = addr.rpartition(":")
    parts = host.split(".")
    if len(parts) != 4 or not all(p.isdigit() and int(p) < 256 for p in parts):
        host = "127.0.0.1"
    return host, int(port) if port.isdigit() else 0


def born_host(ch: ClientChannel) -> tuple[str, int]:
    """``host_of`` the channel's peer, computed once per connection."""
    host = ch.attrs.get("born_host")
    if host is None:
        host = ch.attrs["born_host"] = host_of(ch.remote_addr)
    return host


def put_response(
    cmd: RemotingCommand, result: PutResult, queue_id: int, ext: dict[str, str], max_size: int
) -> RemotingCommand:
    """``handlePutMessageResult``: the response code of a store result, and the send's ext."""
    status = result.status
    if result.stored:
        ext["msgId"] = result.msg_id
        ext["queueId"] = str(queue_id)
        ext["queueOffset"] = str(result.queue_offset)
        code = ResponseCode.SUCCESS if status == PutStatus.PUT_OK else ResponseCode.FLUSH_DISK_TIMEOUT
        return cmd.response(code, None, ext)
    if status in (PutStatus.MESSAGE_ILLEGAL, PutStatus.PROPERTIES_SIZE_EXCEEDED):
        remark = (
            f"the message is illegal, maybe msg body or properties length not matched. msg body length limit "
            f"{max_size}B, msg properties length limit 32KB. ({result.detail})"
        )
        return cmd.response(ResponseCode.MESSAGE_ILLEGAL, remark, ext)
    remark = (
        "service not available now. It may be caused by one of the following reasons: the broker's disk is full, "
        f"messages are put to the slave, message store has been shut down, etc. ({result.detail or status.name})"
    )
    return cmd.response(ResponseCode.SERVICE_NOT_AVAILABLE, remark, ext)


class SendProcessor(Processor):
    # --- the checks ------------------------------------------------------------------------

    async def _check(self, cmd: RemotingCommand, h: SendHeader, ch: ClientChannel) -> TopicConfig | RemotingCommand:
        """``msgCheck``: the topic's config, or the error response."""
        cfg = self.broker.config
        if not cfg.broker_permission & PERM_WRITE:
            remark = f"the broker[{cfg.listen_host}] sending message is forbidden"
            return cmd.response(ResponseCode.NO_PERMISSION, remark)
        topic = h.topic  # a legal name: the server checked it before this handler ran
        if topic in NOT_ALLOWED_SEND_TOPICS:
            return cmd.response(ResponseCode.NO_PERMISSION, f"Sending message to topic[{topic}] is forbidden.")
        tc = self.broker.topics.get(topic)
        if tc is None:
            sys_flag = (2 if topic.startswith(RETRY_PREFIX) else 1) if h.unit_mode else 0
            tc = await self.broker.topics.create_in_send(topic, h.default_topic, h.default_topic_queue_nums, sys_flag)
            if tc is not None:
                log.info("created topic %s from %s for producer %s", topic, h.default_topic, ch.remote_addr)
            elif topic.startswith(RETRY_PREFIX):
                tc = await self.broker.topics.create_retry_topic(topic, 1, PERM_READ | PERM_WRITE)
            if tc is None:
                return cmd.response(
                    ResponseCode.TOPIC_NOT_EXIST, f"topic[{topic}] not exist, apply first please!{FAQ_APPLY_TOPIC}"
                )
        if not tc.perm & PERM_WRITE:
            return cmd.response(ResponseCode.NO_PERMISSION, f"the topic[{topic}] sending message is forbidden")
        if h.queue_id >= max(tc.write_queue_nums, tc.read_queue_nums):
            return cmd.response(
                ResponseCode.SYSTEM_ERROR,
                f"request queueId[{h.queue_id}] is illegal, {tc.describe()} Producer: {ch.remote_addr}",
            )
        return tc

    def _pick_queue(self, h: SendHeader, tc: TopicConfig) -> int:
        if h.queue_id >= 0:
            return h.queue_id
        return random.randrange(tc.write_queue_nums) if tc.write_queue_nums > 0 else 0

    def _too_big(self, cmd: RemotingCommand, n: int, ext: dict[str, str]) -> RemotingCommand | None:
        limit = self.broker.config.max_message_size
        if n <= limit:
            return None
        remark = f"the message body is {n} bytes, larger than this broker's maxMessageSize of {limit} bytes"
        return cmd.response(ResponseCode.MESSAGE_ILLEGAL, remark, ext)

    def _sync_store_host(self) -> None:
        """The broker's port is known only once it listens; stored messages must carry it."""
        host = store_host(self.broker)
        if self.messages.store_host != host:
            self.messages.store_host = host

    def _count(self, topic: str, n: int) -> None:
        self.broker.stats.record_put(n)
        self.rates.put(topic, n)

    def _base_ext(self) -> dict[str, str]:
        cfg = self.broker.config
        return {"MSG_REGION": cfg.region_id, "TRACE_ON": "true" if cfg.trace_on else "false"}

    # --- SEND_MESSAGE / SEND_MESSAGE_V2 ----------------------------------------------------

    async def send_message(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        h = SendHeader.parse(cmd)
        if h.batch or cmd.code == 320:
            return await self._send_batch(cmd, ch, h)
        ext = self._base_ext()
        tc = await self._check(cmd, h, ch)
        if isinstance(tc, RemotingCommand):
            tc.ext.update(ext)
            return tc
        props = decode_properties(h.properties)
        if props.get(PROPERTY_TRANSACTION_PREPARED, "").lower() == "true":
            remark = f"the broker[{self.broker.config.listen_host}] sending transaction message is forbidden"
            return cmd.response(ResponseCode.NO_PERMISSION, remark, ext)
        too_big = self._too_big(cmd, len(cmd.body), ext)
        if too_big is not None:
            return too_big
        topic, queue_id = h.topic, self._pick_queue(h, tc)
        if topic.startswith(RETRY_PREFIX):
            routed = await self._retry_or_dlq(cmd, h)
            if isinstance(routed, RemotingCommand):
                routed.ext.update(ext)
                return routed
            if routed is not None:
                topic, queue_id = routed, 0
        props.pop(PROPERTY_WAIT, None)
        props[PROPERTY_CLUSTER] = self.broker.config.cluster_name
        msg = MessageExt(
            topic=topic,
            body=cmd.body,
            queue_id=queue_id,
            flag=h.flag,
            sys_flag=h.sys_flag | (MULTI_TAGS_FLAG if tc.topic_filter_type == "MULTI_TAG" else 0),
            born_timestamp=h.born_timestamp,
            born_host=born_host(ch),
            reconsume_times=h.reconsume_times,
            properties=props,
        )
        if not topic.startswith(DLQ_PREFIX):
            schedule_if_delayed(msg, delay_levels(self.broker.config.message_delay_level))
        self._sync_store_host()
        result = await self.messages.put(msg)
        if result.stored:
            self._count(topic, 1)
        return put_response(cmd, result, queue_id, ext, self.broker.config.max_message_size)

    async def _retry_or_dlq(self, cmd: RemotingCommand, h: SendHeader) -> str | None | RemotingCommand:
        """``handleRetryAndDLQ``: the DLQ topic when a retried message has used up its retries. The
        group of a 5.x POP retry topic ``%RETRY%<group>+<topic>`` is the part before ``+``
        (KeyBuilder.parseGroup)."""
        group = h.topic[len(RETRY_PREFIX) :].partition(POP_RETRY_SEPARATOR)[0]
        gcfg = await self.broker.groups.find_or_create(group)
        if gcfg is None:
            return cmd.response(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, f"subscription group not exist, {group}")
        max_times = int(gcfg.get("retryMaxTimes", 16))
        if cmd.version >= MAX_RECONSUME_VERSION and h.max_reconsume_times is not None:
            max_times = h.max_reconsume_times
        if h.reconsume_times <= max_times:  # 5.x: the DLQ once reconsumeTimes > maxReconsumeTimes
            return None
        dlq = DLQ_PREFIX + group
        await self.broker.topics.create_retry_topic(dlq, DLQ_QUEUE_NUMS, PERM_READ | PERM_WRITE)
        return dlq

    # --- SEND_BATCH_MESSAGE ----------------------------------------------------------------

    async def _send_batch(self, cmd: RemotingCommand, ch: ClientChannel, h: SendHeader) -> RemotingCommand:
        ext = self._base_ext()
        tc = await self._check(cmd, h, ch)
        if isinstance(tc, RemotingCommand):
            tc.ext.update(ext)
            return tc
        if h.topic.startswith(RETRY_PREFIX):
            return cmd.response(ResponseCode.MESSAGE_ILLEGAL, "batch request does not support retry group", ext)
        try:
            items = decode_batch(cmd.body)
        except ValueError as e:
            return cmd.response(ResponseCode.MESSAGE_ILLEGAL, f"the batch body is malformed: {e}", ext)
        if not items:
            return cmd.response(ResponseCode.MESSAGE_ILLEGAL, "the batch holds no message", ext)
        for _flag, body, _props in items:
            too_big = self._too_big(cmd, len(body), ext)
            if too_big is not None:
                return too_big
        queue_id = self._pick_queue(h, tc)
        peer = born_host(ch)
        sys_flag = h.sys_flag | (MULTI_TAGS_FLAG if tc.topic_filter_type == "MULTI_TAG" else 0)
        msgs = []
        for flag, body, props_text in items:
            props = decode_properties(props_text)
            props.pop(PROPERTY_WAIT, None)
            props[PROPERTY_CLUSTER] = self.broker.config.cluster_name
            msgs.append(
                MessageExt(
                    topic=h.topic,
                    body=body,
                    queue_id=queue_id,
                    flag=flag,
                    sys_flag=sys_flag,
                    born_timestamp=h.born_timestamp,
                    born_host=peer,
                    reconsume_times=h.reconsume_times,
                    properties=props,
                )
            )
        self._sync_store_host()
        result = await self.messages.put_batch(msgs)
        if result.stored:
            self._count(h.topic, len(msgs))
        return put_response(cmd, result, queue_id, ext, self.broker.config.max_message_size)

    # --- CONSUMER_SEND_MSG_BACK ------------------------------------------------------------

    async def send_back(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        """A consumer hands back a message it failed to consume: store a copy for ``%RETRY%group``,
        delivered after its delay level (the one asked for, else ``3 + reconsumeTimes``), or in
        ``%DLQ%group`` once the message has been reconsumed ``maxReconsumeTimes`` times or the delay
        level is negative."""
        ext = cmd.ext
        group = ext.get("group")
        if group is None:
            raise HeaderError("the custom field <group> is null")
        offset = _int("offset", ext.get("offset"))
        delay_level = _int("delayLevel", ext.get("delayLevel"))
        gcfg = await self.broker.groups.find_or_create(group)
        if gcfg is None:
            return cmd.response(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, f"subscription group not exist, {group}")
        if not self.broker.config.broker_permission & PERM_WRITE:
            remark = f"the broker[{self.broker.config.listen_host}] sending message is forbidden"
            return cmd.response(ResponseCode.NO_PERMISSION, remark)
        retry_queues = int(gcfg.get("retryQueueNums", 1))
        if retry_queues <= 0:
            return cmd.response(ResponseCode.SUCCESS)
        data = self.messages.read_message(offset)
        if data is None:
            return cmd.response(ResponseCode.SYSTEM_ERROR, f"look message by offset failed, {offset}")
        try:
            orig, _ = decode_message(data, decompress=False)
        except MessageDecodeError as e:
            return cmd.response(ResponseCode.SYSTEM_ERROR, f"look message by offset failed, {offset}: {e}")
        max_times = int(gcfg.get("retryMaxTimes", 16))
        if cmd.version >= MAX_RECONSUME_VERSION and ext.get("maxReconsumeTimes"):
            max_times = _int("maxReconsumeTimes", ext.get("maxReconsumeTimes"))
        props = dict(orig.properties)
        props.setdefault(PROPERTY_RETRY_TOPIC, orig.topic)
        props.setdefault(PROPERTY_ORIGIN_MESSAGE_ID, ext.get("originMsgId") or orig.msg_id)
        props.pop(PROPERTY_WAIT, None)
        if orig.reconsume_times >= max_times or delay_level < 0:
            topic = DLQ_PREFIX + group
            await self.broker.topics.create_retry_topic(topic, DLQ_QUEUE_NUMS, PERM_READ | PERM_WRITE)
            queue_id = 0
            props.pop(PROPERTY_DELAY, None)
        else:
            topic = RETRY_PREFIX + group
            await self.broker.topics.create_retry_topic(topic, retry_queues, PERM_READ | PERM_WRITE)
            queue_id = random.randrange(retry_queues)
            props[PROPERTY_DELAY] = str(delay_level or RETRY_FIRST_LEVEL + orig.reconsume_times)
        msg = MessageExt(
            topic=topic, body=orig.body, queue_id=queue_id, flag=orig.flag, sys_flag=orig.sys_flag,
            born_timestamp=orig.born_timestamp, born_host=orig.born_host,
            reconsume_times=orig.reconsume_times + 1, properties=props,
        )  # fmt: skip
        schedule_if_delayed(msg, delay_levels(self.broker.config.message_delay_level))
        self._sync_store_host()
        result = await self.messages.put(msg)
        if not result.stored:
            return cmd.response(ResponseCode.SYSTEM_ERROR, result.status.name)
        self._count(topic, 1)
        return cmd.response(ResponseCode.SUCCESS)


_BATCH_HEAD = struct.Struct(">iiiii")  # totalSize magic bodyCrc flag bodyLen


def decode_batch(data: bytes) -> list[tuple[int, bytes, str]]:
    """The body of SEND_BATCH_MESSAGE (``MessageDecoder.encodeMessages``): per message
    ``TOTALSIZE | MAGICCODE | BODYCRC | FLAG | BODYLEN | BODY | PROPLEN (i16) | PROPERTIES``,
    magic and CRC written as 0. Returns (flag, body, properties text) per message."""
    out = []
    pos = 0
    while pos < len(data):
        if pos + _BATCH_HEAD.size > len(data):
            raise ValueError(f"truncated message header at byte {pos}")
        total, _magic, _crc, flag, body_len = _BATCH_HEAD.unpack_from(data, pos)
        p = pos + _BATCH_HEAD.size
        if body_len < 0 or p + body_len + 2 > len(data):
            raise ValueError(f"body length {body_len} at byte {pos} runs past the batch")
        body = data[p : p + body_len]
        p += body_len
        (props_len,) = struct.unpack_from(">h", data, p)
        p += 2
        if props_len < 0 or p + props_len > len(data):
            raise ValueError(f"properties length {props_len} at byte {pos} runs past the batch")
        try:
            props = data[p : p + props_len].decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"properties at byte {pos} are not UTF-8") from None
        p += props_len
        if total != p - pos:
            raise ValueError(f"TOTALSIZE {total} at byte {pos} does not match the message ({p - pos} bytes)")
        out.append((flag, body, props))
        pos = p
    return out


def encode_batch(messages: list[tuple[int, bytes, str]]) -> bytes:
    """The inverse of ``decode_batch`` (what a producer sends)."""
    parts = []
    for flag, body, props in messages:
        pb = props.encode()
        total = _BATCH_HEAD.size + len(body) + 2 + len(pb)
        parts.append(_BATCH_HEAD.pack(total, 0, 0, flag, len(body)) + body + struct.pack(">h", len(pb)) + pb)
    return b"".join(parts)
