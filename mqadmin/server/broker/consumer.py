"""Client management and consumer offsets: HEART_BEAT (34), UNREGISTER_CLIENT (35),
GET_CONSUMER_LIST_BY_GROUP (38), GET_CONSUMER_CONNECTION_LIST (203), GET_PRODUCER_CONNECTION_LIST
(204), QUERY_CONSUMER_OFFSET (14), UPDATE_CONSUMER_OFFSET (15), LOCK_BATCH_MQ (41), UNLOCK_BATCH_MQ (42).
"""

from __future__ import annotations

from dataclasses import replace

from mqadmin.model.clients import ConsumerIds, HeartbeatData, LockBatchBody, LockedQueues
from mqadmin.model.names import RETRY_PREFIX
from mqadmin.model.rpc import clients as rpc
from mqadmin.model.rpc.messages import OffsetHeader
from mqadmin.model.rpc.spec import Decoded
from mqadmin.model.topic import PERM_READ, PERM_WRITE
from mqadmin.server.broker.brokerstore import BrokerParts, Processor
from mqadmin.server.broker.clients import ClientConn
from mqadmin.server.broker.logic_queues import resolve
from mqadmin.server.broker.logic_reads import LogicReads
from mqadmin.server.remoting import ClientChannel
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

CALL_CLIENT_TIMEOUT = 10.0
"""Seconds a consumer has to answer a forwarded request (Java's callClient timeout)."""


class ConsumerProcessor(Processor):
    def __init__(self, parts: BrokerParts) -> None:
        super().__init__(parts)
        self.logic_reads = LogicReads(parts)

    # --- heartbeat and unregister ----------------------------------------------------------

    async def heartbeat(self, req: Decoded[None, HeartbeatData], ch: ClientChannel) -> RemotingCommand:
        cmd, data = req.cmd, req.body
        if data is None:
            return cmd.response(ResponseCode.SYSTEM_ERROR, "bad HeartbeatData: the request has no body")
        conn = ClientConn(ch, data.client_id or ch.remote_addr, cmd.language, cmd.version)
        for c in data.consumers:
            if not c.group:
                continue
            gcfg = await self.groups.find_or_create(c.group)
            if gcfg is not None and self.topics.get(RETRY_PREFIX + c.group) is None:
                queues = int(gcfg.get("retryQueueNums", 1))
                await self.topics.create_retry_topic(RETRY_PREFIX + c.group, queues, PERM_READ | PERM_WRITE)
            self.clients.register_consumer(c, conn)
        for group in data.producers:
            self.clients.register_producer(group, conn)
        return cmd.response(ResponseCode.SUCCESS)

    async def unregister(self, req: Decoded[rpc.UnregisterClientHeader, None], ch: ClientChannel) -> RemotingCommand:
        h = req.header
        if h.producer_group:
            self.clients.unregister_producer(h.producer_group, ch)
        if h.consumer_group:
            self.clients.unregister_consumer(h.consumer_group, ch)
        return req.cmd.response(ResponseCode.SUCCESS)

    # --- who is connected ------------------------------------------------------------------

    async def consumer_list(self, req: Decoded[rpc.ConsumerGroupHeader, None], ch: ClientChannel) -> RemotingCommand:
        group = req.header.consumer_group
        info = self.clients.consumers.get(group)
        if info is None or not info.conns:
            return req.cmd.response(ResponseCode.SYSTEM_ERROR, f"no consumer for this group, {group}")
        return rpc.GET_CONSUMER_LIST_BY_GROUP.answer(req.cmd, body=ConsumerIds(tuple(info.client_ids())))

    async def consumer_connections(
        self, req: Decoded[rpc.ConsumerGroupHeader, None], ch: ClientChannel
    ) -> RemotingCommand:
        group = req.header.consumer_group
        info = self.clients.consumers.get(group)
        if info is None:
            return req.cmd.response(ResponseCode.CONSUMER_NOT_ONLINE, f"the consumer group[{group}] not online")
        return rpc.GET_CONSUMER_CONNECTION_LIST.answer(req.cmd, body=info.connection_body())

    async def producer_connections(
        self, req: Decoded[rpc.ProducerGroupHeader, None], ch: ClientChannel
    ) -> RemotingCommand:
        group = req.header.producer_group
        members = self.clients.producers.get(group)
        if not members:
            return req.cmd.response(ResponseCode.SYSTEM_ERROR, f"the producer group[{group}] not exist")
        body = [c.connection() for c in members.values()]
        return rpc.GET_PRODUCER_CONNECTION_LIST.answer(req.cmd, body=body)

    async def call_consumer(
        self, req: Decoded[rpc.RunningInfoHeader | rpc.ConsumeDirectlyHeader, None], ch: ClientChannel
    ) -> RemotingCommand:
        """GET_CONSUMER_RUNNING_INFO (307) and CONSUME_MESSAGE_DIRECTLY (309): forward the request to
        the consumer's own connection and relay its answer (Java's ``callConsumer``)."""
        cmd, group, client_id = req.cmd, req.header.consumer_group, req.header.client_id
        info = self.clients.consumers.get(group)
        conn = next((c for c in info.conns.values() if c.client_id == client_id), None) if info else None
        if conn is None:
            return cmd.response(ResponseCode.SYSTEM_ERROR, f"The Consumer <{group}> <{client_id}> not online")
        forward = RemotingCommand(code=cmd.code, ext=dict(cmd.ext), body=cmd.body, language="JAVA")
        try:
            return await conn.channel.request(forward, CALL_CLIENT_TIMEOUT)
        except TimeoutError:
            remark = f"consumer <{group}> <{client_id}> Timeout: no answer in {CALL_CLIENT_TIMEOUT:.0f}s"
            return cmd.response(ResponseCode.CONSUME_MSG_TIMEOUT, remark)
        except ConnectionError as e:
            return cmd.response(ResponseCode.SYSTEM_ERROR, f"invoke consumer <{group}> <{client_id}> Exception: {e}")

    # --- consumer offsets ------------------------------------------------------------------

    async def query_offset(self, req: Decoded[rpc.QueryOffsetHeader, None], ch: ClientChannel) -> RemotingCommand:
        """The committed offset; for a group that never committed, 0 while the queue still starts
        at 0 (Java 4.9's answer when the head is in memory) unless ``setZeroIfNotFound=false``."""
        cmd, h = req.cmd, req.header
        logic = resolve(self.topics, cmd, h.topic, h.queue_id)
        if isinstance(logic, RemotingCommand):
            return logic
        if logic is not None and not logic.as_physical:
            return await self.logic_reads.query_offset(cmd, logic, h)
        if logic is not None:  # one item from 0: the physical queue's offsets are the logic ones
            h = replace(h, queue_id=logic.physical_id)
        offset = self.offsets.query(h.consumer_group, h.topic, h.queue_id)
        if offset < 0:
            if not h.set_zero_if_not_found:
                return cmd.response(
                    ResponseCode.QUERY_NOT_FOUND, "Not found, do not set to zero, maybe this group boot first"
                )
            if self.messages.min_offset(h.topic, h.queue_id) > 0:
                return cmd.response(
                    ResponseCode.QUERY_NOT_FOUND, "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first"
                )
            offset = 0
        return rpc.QUERY_CONSUMER_OFFSET.answer(cmd, OffsetHeader(offset=offset))

    async def update_offset(self, req: Decoded[rpc.UpdateOffsetHeader, None], ch: ClientChannel) -> RemotingCommand:
        if (static := await self.logic_reads.serve(req, self.logic_reads.update_offset)) is not None:
            return static
        h = req.header
        if not self.offsets.commit(h.consumer_group, h.topic, h.queue_id, h.commit_offset):
            return req.cmd.response(ResponseCode.SUCCESS, "Offset has been previously reset")  # Apache 5.x's answer
        return req.cmd.response(ResponseCode.SUCCESS)

    # --- orderly consumers -----------------------------------------------------------------

    async def lock_batch(self, req: Decoded[None, LockBatchBody], ch: ClientChannel) -> RemotingCommand:
        if req.body is None:
            return req.cmd.response(ResponseCode.SYSTEM_ERROR, "the LockBatchRequestBody body is not a JSON object")
        b = req.body
        locked = self.locks.try_lock(b.group, list(b.queues), b.client_id)
        return rpc.LOCK_BATCH_MQ.answer(req.cmd, body=LockedQueues(tuple(locked)))

    async def unlock_batch(self, req: Decoded[None, LockBatchBody], ch: ClientChannel) -> RemotingCommand:
        if req.body is None:
            return req.cmd.response(ResponseCode.SYSTEM_ERROR, "the UnlockBatchRequestBody body is not a JSON object")
        b = req.body
        self.locks.unlock(b.group, list(b.queues), b.client_id)
        return req.cmd.response(ResponseCode.SUCCESS)
