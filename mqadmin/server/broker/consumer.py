"""Client management and consumer offsets: HEART_BEAT (34), UNREGISTER_CLIENT (35),
GET_CONSUMER_LIST_BY_GROUP (38), GET_CONSUMER_CONNECTION_LIST (203), GET_PRODUCER_CONNECTION_LIST
(204), QUERY_CONSUMER_OFFSET (14), UPDATE_CONSUMER_OFFSET (15), LOCK_BATCH_MQ (41), UNLOCK_BATCH_MQ (42).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqadmin.model.names import RETRY_PREFIX
from mqadmin.model.tags import SubscriptionData
from mqadmin.model.topic import PERM_READ, PERM_WRITE
from mqadmin.server.broker.brokerstore import Processor
from mqadmin.server.broker.clients import (
    CONSUME_FROM_WHERE,
    CONSUME_TYPES,
    MESSAGE_MODELS,
    ClientConn,
    MQKey,
    enum_name,
    mq_json,
    mq_key,
)
from mqadmin.server.headers import json_body, need, need_int, opt_bool
from mqadmin.server.remoting import ClientChannel
from mqadmin.server.validation import GROUP, TOPIC, body_name_refusal
from mqadmin.wire import fastjson
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

if TYPE_CHECKING:
    pass


CONSUME_MSG_TIMEOUT = 207
CALL_CLIENT_TIMEOUT = 10.0
"""Seconds a consumer has to answer a forwarded request (Java's callClient timeout)."""


def json_object(cmd: RemotingCommand, what: str) -> dict[str, Any]:
    """The request body as a JSON object; ValueError naming ``what`` otherwise."""
    obj = json_body(cmd, what) if cmd.body else None
    if not isinstance(obj, dict):
        raise ValueError(f"the {what} body is not a JSON object")
    return obj


def _consumer_data(c: dict[str, Any]) -> tuple[str, str, str, str, list[SubscriptionData]]:
    """One ConsumerData of a heartbeat, enums as names whether sent as names or ordinals."""
    subs = [SubscriptionData.from_json(s) for s in c.get("subscriptionDataSet") or [] if isinstance(s, dict)]
    return (
        str(c.get("groupName") or ""),
        enum_name(c.get("consumeType"), CONSUME_TYPES, "CONSUME_PASSIVELY"),
        enum_name(c.get("messageModel"), MESSAGE_MODELS, "CLUSTERING"),
        enum_name(c.get("consumeFromWhere"), CONSUME_FROM_WHERE, "CONSUME_FROM_LAST_OFFSET"),
        subs,
    )


class ConsumerProcessor(Processor):
    # --- heartbeat and unregister ----------------------------------------------------------

    async def heartbeat(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        try:
            data = json_object(cmd, "HeartbeatData")
            consumers = [_consumer_data(c) for c in data.get("consumerDataSet") or [] if isinstance(c, dict)]
            producer_data = data.get("producerDataSet") or []
            producers = [str(p.get("groupName") or "") for p in producer_data if isinstance(p, dict)]
        except (ValueError, TypeError, AttributeError) as e:
            return cmd.response(ResponseCode.SYSTEM_ERROR, f"bad HeartbeatData: {e}")
        names = [(GROUP, g) for g in producers if g]
        for group, *_, subs in consumers:
            names += [(GROUP, group)] if group else []
            names += [(TOPIC, sub.topic) for sub in subs]
        if refusal := body_name_refusal(cmd, names):
            return refusal
        conn = ClientConn(ch, str(data.get("clientID") or ch.remote_addr), cmd.language, cmd.version)
        for group, consume_type, model, from_where, subs in consumers:
            if not group:
                continue
            gcfg = await self.broker.groups.find_or_create(group)
            if gcfg is not None and self.broker.topics.get(RETRY_PREFIX + group) is None:
                queues = int(gcfg.get("retryQueueNums", 1))
                await self.broker.topics.create_retry_topic(RETRY_PREFIX + group, queues, PERM_READ | PERM_WRITE)
            self.clients.register_consumer(group, conn, consume_type, model, from_where, subs)
        for group in producers:
            if group:
                self.clients.register_producer(group, conn)
        return cmd.response(ResponseCode.SUCCESS)

    async def unregister(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        need(cmd, "clientID")
        producer_group = cmd.ext.get("producerGroup")
        consumer_group = cmd.ext.get("consumerGroup")
        if producer_group:
            self.clients.unregister_producer(producer_group, ch)
        if consumer_group:
            self.clients.unregister_consumer(consumer_group, ch)
        return cmd.response(ResponseCode.SUCCESS)

    # --- who is connected ------------------------------------------------------------------

    async def consumer_list(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        group = need(cmd, "consumerGroup")
        info = self.clients.consumers.get(group)
        if info is None or not info.conns:
            return cmd.response(ResponseCode.SYSTEM_ERROR, f"no consumer for this group, {group}")
        return cmd.response(body=fastjson.dumps_bytes({"consumerIdList": info.client_ids()}))

    async def consumer_connections(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        group = need(cmd, "consumerGroup")
        info = self.clients.consumers.get(group)
        if info is None:
            return cmd.response(ResponseCode.CONSUMER_NOT_ONLINE, f"the consumer group[{group}] not online")
        return cmd.response(body=fastjson.dumps_bytes(info.to_connection_json()))

    async def producer_connections(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        group = need(cmd, "producerGroup")
        members = self.clients.producers.get(group)
        if not members:
            return cmd.response(ResponseCode.SYSTEM_ERROR, f"the producer group[{group}] not exist")
        return cmd.response(body=fastjson.dumps_bytes({"connectionSet": [c.to_json() for c in members.values()]}))

    async def call_consumer(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        """GET_CONSUMER_RUNNING_INFO (307) and CONSUME_MESSAGE_DIRECTLY (309): forward the request to
        the consumer's own connection and relay its answer (Java's ``callConsumer``)."""
        group, client_id = need(cmd, "consumerGroup"), need(cmd, "clientId")
        info = self.clients.consumers.get(group)
        conn = next((c for c in info.conns.values() if c.client_id == client_id), None) if info else None
        if conn is None:
            return cmd.response(ResponseCode.SYSTEM_ERROR, f"The Consumer <{group}> <{client_id}> not online")
        forward = RemotingCommand(code=cmd.code, ext=dict(cmd.ext), body=cmd.body, language="JAVA")
        try:
            return await conn.channel.request(forward, CALL_CLIENT_TIMEOUT)
        except TimeoutError:
            remark = f"consumer <{group}> <{client_id}> Timeout: no answer in {CALL_CLIENT_TIMEOUT:.0f}s"
            return cmd.response(CONSUME_MSG_TIMEOUT, remark)
        except ConnectionError as e:
            return cmd.response(ResponseCode.SYSTEM_ERROR, f"invoke consumer <{group}> <{client_id}> Exception: {e}")

    # --- consumer offsets ------------------------------------------------------------------

    async def query_offset(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        """The committed offset; for a group that never committed, 0 while the queue still starts
        at 0 (Java 4.9's answer when the head is in memory) unless ``setZeroIfNotFound=false``."""
        group, topic, qid = need(cmd, "consumerGroup"), need(cmd, "topic"), need_int(cmd, "queueId")
        offset = self.offsets.query(group, topic, qid)
        if offset < 0:
            if not opt_bool(cmd, "setZeroIfNotFound", True):
                return cmd.response(
                    ResponseCode.QUERY_NOT_FOUND, "Not found, do not set to zero, maybe this group boot first"
                )
            if self.messages.min_offset(topic, qid) > 0:
                return cmd.response(
                    ResponseCode.QUERY_NOT_FOUND, "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first"
                )
            offset = 0
        return cmd.response(ext={"offset": str(offset)})

    async def update_offset(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        group, topic = need(cmd, "consumerGroup"), need(cmd, "topic")
        if not self.offsets.commit(group, topic, need_int(cmd, "queueId"), need_int(cmd, "commitOffset")):
            return cmd.response(ResponseCode.SUCCESS, "Offset has been previously reset")  # Apache 5.x's answer
        return cmd.response(ResponseCode.SUCCESS)

    # --- orderly consumers -----------------------------------------------------------------

    async def lock_batch(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        req = _mq_request(cmd, "LockBatchRequestBody")
        if isinstance(req, RemotingCommand):
            return req
        locked = self.locks.try_lock(*req)
        return cmd.response(body=fastjson.dumps_bytes({"lockOKMQSet": [mq_json(k) for k in locked]}))

    async def unlock_batch(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        req = _mq_request(cmd, "UnlockBatchRequestBody")
        if isinstance(req, RemotingCommand):
            return req
        self.locks.unlock(*req)
        return cmd.response(ResponseCode.SUCCESS)


def _mq_request(cmd: RemotingCommand, what: str) -> tuple[str, list[MQKey], str] | RemotingCommand:
    """(group, queues, client id) of a (Un)LockBatchRequestBody, or the error answer."""
    try:
        body = json_object(cmd, what)
        mqs = [mq_key(mq) for mq in body.get("mqSet") or [] if isinstance(mq, dict)]
    except (ValueError, TypeError, OverflowError) as e:
        return cmd.response(ResponseCode.SYSTEM_ERROR, str(e))
    group = str(body.get("consumerGroup") or "")
    if refusal := body_name_refusal(cmd, [(GROUP, group), *((TOPIC, mq[0]) for mq in mqs)]):
        return refusal
    return group, mqs, str(body.get("clientId") or "")
