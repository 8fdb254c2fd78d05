"""SEND_MESSAGE (10), SEND_MESSAGE_V2 (310), SEND_BATCH_MESSAGE (320), CONSUMER_SEND_MSG_BACK (36).

The checks are RocketMQ's ``msgCheck`` (SendMessageProcessor / AbstractSendMessageProcessor), in
its order, except that the names (topic, default topic, producer group) are checked by the
requests' declarations (``mqadmin.model.rpc.messages``) before the handler runs: the broker must
be writable; not one of the topics nobody may send to; an unknown topic is created from the
default topic (TBW102) when autoCreateTopicEnable allows it, a ``%RETRY%`` topic with one queue;
the queue id within the topic's queues. Then the body size, then the store,
whose result maps to response codes as ``handlePutMessageResult`` does.

Differences from the Java broker, on purpose: a topic without write permission refuses sends
(NO_PERMISSION) and so does a broker without write permission for every topic (Java checks
order topics only); transactional half messages are refused (no transaction support). Delayed
messages and consumer retries wait in SCHEDULE_TOPIC_XXXX (mqadmin.server.broker.schedule).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import replace
from functools import partial

from mqadmin.model.names import DLQ_PREFIX, NOT_ALLOWED_SEND_TOPICS, POP_RETRY_SEPARATOR, RETRY_PREFIX
from mqadmin.model.rpc.messages import SendBackHeader, SendHeader, SendResultHeader
from mqadmin.model.rpc.spec import Decoded
from mqadmin.model.topic import PERM_READ, PERM_WRITE, TopicConfig
from mqadmin.server.broker.batch import PROPERTY_CLUSTER, batch_records
from mqadmin.server.broker.brokerstore import Processor, store_host
from mqadmin.server.broker.config import BrokerConfig
from mqadmin.server.broker.logic_queues import led_by_physical, resolve
from mqadmin.server.broker.schedule import RETRY_FIRST_LEVEL, delay_levels, schedule_if_delayed
from mqadmin.server.remoting import Answer, ClientChannel, Later
from mqadmin.server.store import FlushDiskType, PutResult, PutStatus
from mqadmin.wire.address import ipv4_or_loopback
from mqadmin.wire.codes import RequestCode, ResponseCode
from mqadmin.wire.frame import RemotingCommand
from mqadmin.wire.message import (
    PROPERTY_WAIT,
    MessageDecodeError,
    MessageExt,
    decode_message,
    decode_properties,
)

log = logging.getLogger(__name__)

FAQ_APPLY_TOPIC = "\nSee http://rocketmq.apache.org/docs/faq/ for further details."
PROPERTY_TRANSACTION_PREPARED = "TRAN_MSG"
PROPERTY_RETRY_TOPIC = "RETRY_TOPIC"
PROPERTY_ORIGIN_MESSAGE_ID = "ORIGIN_MESSAGE_ID"
PROPERTY_DELAY = "DELAY"
MULTI_TAGS_FLAG = 0x2
DLQ_QUEUE_NUMS = 1
MAX_RECONSUME_VERSION = 121
"""Clients older than V3_4_9 cannot set maxReconsumeTimes per message."""

Enqueue = Callable[[Callable[[PutStatus], None]], PutResult]
"""A send's put, queued in the store (``MessageStore.enqueue`` or ``enqueue_records``) with its ``stored``
callback."""


def born_host(ch: ClientChannel) -> tuple[str, int]:
    """The channel's peer as the stored BORNHOST (IPv4), computed once per connection."""
    host = ch.attrs.get("born_host")
    if host is None:
        host = ch.attrs["born_host"] = ipv4_or_loopback(ch.remote_addr)
    return host


def put_response(cmd: RemotingCommand, result: PutResult, queue_id: int, cfg: BrokerConfig) -> RemotingCommand:
    """``handlePutMessageResult``: the response code of a store result; a stored message's id and
    position in the result header, next to the broker's region and trace flag."""
    status = result.status
    if result.stored:
        code = ResponseCode.SUCCESS if status == PutStatus.PUT_OK else ResponseCode.FLUSH_DISK_TIMEOUT
        header = SendResultHeader(
            msg_id=result.msg_id, queue_id=queue_id, queue_offset=result.queue_offset, region=cfg.region_id,
            trace_on=cfg.trace_on,
        )  # fmt: skip
        return cmd.response(code, None, header.to_ext())
    if status in (PutStatus.MESSAGE_ILLEGAL, PutStatus.PROPERTIES_SIZE_EXCEEDED):
        remark = (
            f"the message is illegal, maybe msg body or properties length not matched. msg body length limit "
            f"{cfg.max_message_size}B, msg properties length limit 32KB. ({result.detail})"
        )
        return cmd.response(ResponseCode.MESSAGE_ILLEGAL, remark, base_ext(cfg))
    remark = (
        "service not available now. It may be caused by one of the following reasons: the broker's disk is full, "
        f"messages are put to the slave, message store has been shut down, etc. ({result.detail or status.name})"
    )
    return cmd.response(ResponseCode.SERVICE_NOT_AVAILABLE, remark, base_ext(cfg))


def is_batch(cmd: RemotingCommand, h: SendHeader) -> bool:
    """SEND_BATCH_MESSAGE is a batch whatever its header's ``batch`` flag says."""
    return h.batch or cmd.code == RequestCode.SEND_BATCH_MESSAGE


def base_ext(cfg: BrokerConfig) -> dict[str, str]:
    """What every send response carries (Java adds them whatever the response code)."""
    return SendResultHeader(region=cfg.region_id, trace_on=cfg.trace_on).to_ext()


class SendProcessor(Processor):
    # --- the checks ------------------------------------------------------------------------

    async def _check(self, cmd: RemotingCommand, h: SendHeader, ch: ClientChannel) -> TopicConfig | RemotingCommand:
        """``msgCheck``: the topic's config, or the error response."""
        refused = self._check_broker(cmd, h)
        if refused is not None:
            return refused
        topic = h.topic
        tc = self.topics.get(topic)
        if tc is None:
            sys_flag = (2 if topic.startswith(RETRY_PREFIX) else 1) if h.unit_mode else 0
            tc = await self.topics.create_in_send(topic, h.default_topic, h.default_topic_queue_nums, sys_flag)
            if tc is not None:
                log.info("created topic %s from %s for producer %s", topic, h.default_topic, ch.remote_addr)
            elif topic.startswith(RETRY_PREFIX):
                tc = await self.topics.create_retry_topic(topic, 1, PERM_READ | PERM_WRITE)
            if tc is None:
                return cmd.response(
                    ResponseCode.TOPIC_NOT_EXIST, f"topic[{topic}] not exist, apply first please!{FAQ_APPLY_TOPIC}"
                )
        return self._check_topic(cmd, h, ch, tc)

    def _check_broker(self, cmd: RemotingCommand, h: SendHeader) -> RemotingCommand | None:
        """``msgCheck``'s first part: the broker takes writes, and the topic is not one nobody may send to."""
        cfg = self.config
        if not cfg.broker_permission & PERM_WRITE:
            remark = f"the broker[{cfg.listen_host}] sending message is forbidden"
            return cmd.response(ResponseCode.NO_PERMISSION, remark)
        topic = h.topic  # a legal name: its declaration checked it before this handler ran
        if topic in NOT_ALLOWED_SEND_TOPICS:
            return cmd.response(ResponseCode.NO_PERMISSION, f"Sending message to topic[{topic}] is forbidden.")
        return None

    def _check_topic(
        self, cmd: RemotingCommand, h: SendHeader, ch: ClientChannel, tc: TopicConfig
    ) -> TopicConfig | RemotingCommand:
        """``msgCheck``'s last part, on the topic's config: writable, and the queue id within its queues."""
        topic = h.topic
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

    def _too_big(self, cmd: RemotingCommand, n: int) -> RemotingCommand | None:
        return self._too_big_refusal(cmd, n) if n > self.config.max_message_size else None

    def _too_big_refusal(self, cmd: RemotingCommand, n: int) -> RemotingCommand:
        limit = self.config.max_message_size
        remark = f"the message body is {n} bytes, larger than this broker's maxMessageSize of {limit} bytes"
        return cmd.response(ResponseCode.MESSAGE_ILLEGAL, remark, base_ext(self.config))

    def _sync_store_host(self) -> None:
        """The broker's port is known only once it listens; stored messages must carry it."""
        host = store_host(self.config)
        if self.messages.store_host != host:
            self.messages.store_host = host

    def _count(self, topic: str, n: int) -> None:
        self.stats.record_put(n)
        self.rates.put(topic, n)

    # --- SEND_MESSAGE / SEND_MESSAGE_V2 ----------------------------------------------------

    def send_message(self, req: Decoded[SendHeader, bytes], ch: ClientChannel) -> Answer:
        """A message, or a batch, to a topic this broker has, with ASYNC_FLUSH, is checked, queued in the store
        and answered from the store's commit (a ``Later``: no task, no future, no extra turn of the loop);
        everything else (a topic still to be created, retry topics, SYNC_FLUSH's timeout) goes through
        ``_send_message``."""
        cmd, h = req.cmd, req.header
        logic = resolve(self.topics, cmd, h.topic, h.queue_id)
        if isinstance(logic, RemotingCommand):
            logic.ext.update(base_ext(self.config))
            return logic
        if logic is not None:  # a static topic's logic queue: put to the leader item's physical queue
            h = replace(h, queue_id=logic.physical_id)
            req = Decoded(cmd, h, req.body)
        tc = self.topics.get(h.topic)
        store = self.messages
        if tc is None or h.topic.startswith(RETRY_PREFIX) or store.flush_disk_type != FlushDiskType.ASYNC:
            return self._send_message(req, ch)
        checked = self._check_broker(cmd, h) or self._check_topic(cmd, h, ch, tc)
        prepared = self._prepare(cmd, h, ch, checked) if isinstance(checked, TopicConfig) else checked
        if isinstance(prepared, RemotingCommand):
            prepared.ext.update(base_ext(self.config))
            return prepared
        enqueue, sent_to = prepared
        answer = Later()

        def stored(status: PutStatus) -> None:
            try:
                result.status = status
                response = self._answer(cmd, result, *sent_to)
            except Exception as e:  # answered SYSTEM_ERROR by the server, never left waiting
                answer.give(e)
            else:
                answer.give(response)

        result = enqueue(stored)  # calls ``stored`` in a later turn, never from here
        return answer if result.stored else self._answer(cmd, result, *sent_to)

    async def _send_message(self, req: Decoded[SendHeader, bytes], ch: ClientChannel) -> RemotingCommand:
        cmd, h = req.cmd, req.header
        prepared = await self._check_slowly(cmd, h, ch)
        if isinstance(prepared, RemotingCommand):
            prepared.ext.update(base_ext(self.config))
            return prepared
        enqueue, sent_to = prepared
        return self._answer(cmd, await self.messages.put_encoded(enqueue), *sent_to)

    async def _check_slowly(
        self, cmd: RemotingCommand, h: SendHeader, ch: ClientChannel
    ) -> tuple[Enqueue, tuple[str, int]] | RemotingCommand:
        """``_prepare`` after creating the topic if need be, and sending a message to a retry topic on to its
        group's DLQ when it has used up its retries."""
        tc = await self._check(cmd, h, ch)
        if isinstance(tc, RemotingCommand):
            return tc
        retry = h.topic.startswith(RETRY_PREFIX)
        if retry and is_batch(cmd, h):
            return cmd.response(ResponseCode.MESSAGE_ILLEGAL, "batch request does not support retry group")
        if not retry:
            return self._prepare(cmd, h, ch, tc)
        msg = self._message(cmd, h, ch, tc)
        if isinstance(msg, RemotingCommand):
            return msg
        routed = await self._retry_or_dlq(cmd, h)
        if isinstance(routed, RemotingCommand):
            return routed
        if routed is not None:
            msg.topic, msg.queue_id = routed, 0
        return self._enqueue(msg), self._stored_form(msg)

    def _prepare(
        self, cmd: RemotingCommand, h: SendHeader, ch: ClientChannel, tc: TopicConfig
    ) -> tuple[Enqueue, tuple[str, int]] | RemotingCommand:
        """The put of what was sent and the topic and queue it was sent to, or the refusal."""
        if is_batch(cmd, h):
            return self._batch(cmd, h, ch, tc)
        msg = self._message(cmd, h, ch, tc)
        return msg if isinstance(msg, RemotingCommand) else (self._enqueue(msg), self._stored_form(msg))

    def _enqueue(self, msg: MessageExt) -> Enqueue:
        return partial(self.messages.enqueue, [msg])

    def _message(
        self, cmd: RemotingCommand, h: SendHeader, ch: ClientChannel, tc: TopicConfig
    ) -> MessageExt | RemotingCommand:
        """The message to store, or the refusal (a transactional message, a body too big)."""
        props = decode_properties(h.properties)
        if props.get(PROPERTY_TRANSACTION_PREPARED, "").lower() == "true":
            remark = f"the broker[{self.config.listen_host}] sending transaction message is forbidden"
            return cmd.response(ResponseCode.NO_PERMISSION, remark)
        too_big = self._too_big(cmd, len(cmd.body))
        if too_big is not None:
            return too_big
        props.pop(PROPERTY_WAIT, None)
        props[PROPERTY_CLUSTER] = self.config.cluster_name
        msg = MessageExt(
            topic=h.topic,
            body=cmd.body,
            queue_id=self._pick_queue(h, tc),
            flag=h.flag,
            sys_flag=h.sys_flag | (MULTI_TAGS_FLAG if tc.topic_filter_type == "MULTI_TAG" else 0),
            born_timestamp=h.born_timestamp,
            born_host=born_host(ch),
            reconsume_times=h.reconsume_times or 0,
            properties=props,
        )
        self._sync_store_host()
        return msg

    def _stored_form(self, msg: MessageExt) -> tuple[str, int]:
        """Turn a delayed message into its schedule-topic form (not in a DLQ); returns the topic and queue it
        was sent to, which the response and the statistics name."""
        sent_to = msg.topic, msg.queue_id
        if not msg.topic.startswith(DLQ_PREFIX):
            schedule_if_delayed(msg, delay_levels(self.config.message_delay_level))
        return sent_to

    def _answer(self, cmd: RemotingCommand, result: PutResult, topic: str, queue_id: int) -> RemotingCommand:
        """The response to stored (or refused) messages, counted when stored."""
        if result.stored:
            self._count(topic, len(result.msg_ids))
        logic = led_by_physical(self.topics, cmd, topic, queue_id) if result.stored else None
        if logic is not None:  # the logic queue and offset, as Apache's rewriteResponseForStaticTopic
            result = replace(result, queue_offset=logic.logic_offset(result.queue_offset))
            queue_id = logic.global_id
        return put_response(cmd, result, queue_id, self.config)

    async def _retry_or_dlq(self, cmd: RemotingCommand, h: SendHeader) -> str | None | RemotingCommand:
        """``handleRetryAndDLQ``: the DLQ topic when a retried message has used up its retries. The
        group of a 5.x POP retry topic ``%RETRY%<group>+<topic>`` is the part before ``+``
        (KeyBuilder.parseGroup)."""
        group = h.topic[len(RETRY_PREFIX) :].partition(POP_RETRY_SEPARATOR)[0]
        gcfg = await self.groups.find_or_create(group)
        if gcfg is None:
            return cmd.response(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, f"subscription group not exist, {group}")
        max_times = int(gcfg.get("retryMaxTimes", 16))
        if cmd.version >= MAX_RECONSUME_VERSION and h.max_reconsume_times is not None:
            max_times = h.max_reconsume_times
        if (h.reconsume_times or 0) <= max_times:  # 5.x: the DLQ once reconsumeTimes > maxReconsumeTimes
            return None
        dlq = DLQ_PREFIX + group
        await self.topics.create_retry_topic(dlq, DLQ_QUEUE_NUMS, PERM_READ | PERM_WRITE)
        return dlq

    # --- SEND_BATCH_MESSAGE ----------------------------------------------------------------

    def _batch(
        self, cmd: RemotingCommand, h: SendHeader, ch: ClientChannel, tc: TopicConfig
    ) -> tuple[Enqueue, tuple[str, int]] | RemotingCommand:
        """The put of a batch, all for one queue, as one unit (``mqadmin.server.broker.batch``), or the refusal
        of an empty one; the store refuses a malformed batch or one with a message too big as a whole."""
        if not cmd.body:
            return cmd.response(ResponseCode.MESSAGE_ILLEGAL, "the batch holds no message")
        topic, queue_id, cfg = h.topic, self._pick_queue(h, tc), self.config
        encode = batch_records(
            cmd.body, topic=topic, queue_id=queue_id,
            sys_flag=h.sys_flag | (MULTI_TAGS_FLAG if tc.topic_filter_type == "MULTI_TAG" else 0),
            born_timestamp=h.born_timestamp, born_host=born_host(ch), reconsume_times=h.reconsume_times or 0,
            cluster=cfg.cluster_name, max_body=cfg.max_message_size,
        )  # fmt: skip
        self._sync_store_host()
        return partial(self.messages.enqueue_records, topic, queue_id, encode), (topic, queue_id)

    # --- CONSUMER_SEND_MSG_BACK ------------------------------------------------------------

    async def send_back(self, req: Decoded[SendBackHeader, None], ch: ClientChannel) -> RemotingCommand:
        """A consumer hands back a message it failed to consume: store a copy for ``%RETRY%group``,
        delivered after its delay level (the one asked for, else ``3 + reconsumeTimes``), or in
        ``%DLQ%group`` once the message has been reconsumed ``maxReconsumeTimes`` times or the delay
        level is negative."""
        cmd, h = req.cmd, req.header
        group, offset = h.group, h.offset
        gcfg = await self.groups.find_or_create(group)
        if gcfg is None:
            return cmd.response(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, f"subscription group not exist, {group}")
        if not self.config.broker_permission & PERM_WRITE:
            remark = f"the broker[{self.config.listen_host}] sending message is forbidden"
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
        if cmd.version >= MAX_RECONSUME_VERSION and h.max_reconsume_times:
            max_times = h.max_reconsume_times
        props = dict(orig.properties)
        props.setdefault(PROPERTY_RETRY_TOPIC, orig.topic)
        props.setdefault(PROPERTY_ORIGIN_MESSAGE_ID, h.origin_msg_id or orig.msg_id)
        props.pop(PROPERTY_WAIT, None)
        if orig.reconsume_times >= max_times or h.delay_level < 0:
            topic = DLQ_PREFIX + group
            await self.topics.create_retry_topic(topic, DLQ_QUEUE_NUMS, PERM_READ | PERM_WRITE)
            queue_id = 0
            props.pop(PROPERTY_DELAY, None)
        else:
            topic = RETRY_PREFIX + group
            await self.topics.create_retry_topic(topic, retry_queues, PERM_READ | PERM_WRITE)
            queue_id = random.randrange(retry_queues)
            props[PROPERTY_DELAY] = str(h.delay_level or RETRY_FIRST_LEVEL + orig.reconsume_times)
        msg = MessageExt(
            topic=topic, body=orig.body, queue_id=queue_id, flag=orig.flag, sys_flag=orig.sys_flag,
            born_timestamp=orig.born_timestamp, born_host=orig.born_host,
            reconsume_times=orig.reconsume_times + 1, properties=props,
        )  # fmt: skip
        schedule_if_delayed(msg, delay_levels(self.config.message_delay_level))
        self._sync_store_host()
        result = await self.messages.put(msg)
        if not result.stored:
            return cmd.response(ResponseCode.SYSTEM_ERROR, result.status.name)
        self._count(topic, 1)
        return cmd.response(ResponseCode.SUCCESS)
