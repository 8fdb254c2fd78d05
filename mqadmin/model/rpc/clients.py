"""Requests about connected clients: heartbeats, who is connected, committed consumer offsets, the
queue locks of orderly consumers, and the requests a broker forwards to a consumer."""

from __future__ import annotations

from dataclasses import dataclass

from mqadmin.model.access import Consume, Heartbeat, Locking, group
from mqadmin.model.clients import (
    ConsumerConnection,
    ConsumerIds,
    ConsumerRunningInfo,
    HeartbeatData,
    LockBatchBody,
    LockedQueues,
    producer_connections,
)
from mqadmin.model.names import first_refusal, group_refusal, topic_refusal
from mqadmin.model.rpc.bodies import RAW, JsonBody
from mqadmin.model.rpc.messages import OffsetHeader
from mqadmin.model.rpc.spec import Header, Rpc, wire
from mqadmin.wire.codes import RequestCode as C
from mqadmin.wire.codes import ResponseCode as R


@dataclass(frozen=True, slots=True, kw_only=True)
class UnregisterClientHeader(Header):
    client_id: str = wire("clientID")
    producer_group: str | None = wire("producerGroup", None, check=group_refusal)
    consumer_group: str | None = wire("consumerGroup", None, check=group_refusal)


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsumerGroupHeader(Header):
    consumer_group: str = wire("consumerGroup", check=group_refusal)


@dataclass(frozen=True, slots=True, kw_only=True)
class ProducerGroupHeader(Header):
    producer_group: str = wire("producerGroup", check=group_refusal)


@dataclass(frozen=True, slots=True, kw_only=True)
class QueryOffsetHeader(Header):
    consumer_group: str = wire("consumerGroup", check=group_refusal)
    topic: str = wire("topic", check=topic_refusal)
    queue_id: int = wire("queueId")
    set_zero_if_not_found: bool = wire("setZeroIfNotFound", True)


@dataclass(frozen=True, slots=True, kw_only=True)
class UpdateOffsetHeader(Header):
    consumer_group: str = wire("consumerGroup", check=group_refusal)
    topic: str = wire("topic", check=topic_refusal)
    queue_id: int = wire("queueId")
    commit_offset: int = wire("commitOffset")


@dataclass(frozen=True, slots=True, kw_only=True)
class RunningInfoHeader(Header):
    consumer_group: str = wire("consumerGroup", check=group_refusal)
    client_id: str = wire("clientId")
    jstack_enable: bool = wire("jstackEnable", False)


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsumeDirectlyHeader(Header):
    consumer_group: str = wire("consumerGroup", check=group_refusal)
    client_id: str = wire("clientId")
    msg_id: str | None = wire("msgId", None)
    broker_name: str | None = wire("brokerName", None)
    topic: str | None = wire("topic", None, check=topic_refusal)


HEARTBEAT_DATA = JsonBody("HeartbeatData", HeartbeatData.from_json, HeartbeatData.to_json)
LOCK_BATCH = JsonBody("LockBatchRequestBody", LockBatchBody.from_json, LockBatchBody.to_json)
LOCKED = JsonBody("LockBatchResponseBody", LockedQueues.from_json, LockedQueues.to_json)
CONSUMER_IDS = JsonBody("GetConsumerListByGroupResponseBody", ConsumerIds.from_json, ConsumerIds.to_json)
CONSUMER_CONNECTION = JsonBody("ConsumerConnection", ConsumerConnection.from_json, ConsumerConnection.wire_json)
PRODUCER_CONNECTION = JsonBody(
    "ProducerConnection", producer_connections, lambda conns: {"connectionSet": [c.wire_json() for c in conns]}
)
RUNNING_INFO = JsonBody("ConsumerRunningInfo", ConsumerRunningInfo.from_json, ConsumerRunningInfo.wire_json)

HEART_BEAT = Rpc(
    C.HEART_BEAT, "HEART_BEAT", body=HEARTBEAT_DATA, body_check=lambda hb: first_refusal(hb.names()),
    access=Heartbeat(), summary="a client's producer and consumer groups and subscriptions",
)  # fmt: skip
UNREGISTER_CLIENT = Rpc(
    C.UNREGISTER_CLIENT,
    "UNREGISTER_CLIENT",
    UnregisterClientHeader,
    access=group("consumer_group", "Sub"),
    summary="a client leaves its groups",
)
GET_CONSUMER_LIST_BY_GROUP = Rpc(
    C.GET_CONSUMER_LIST_BY_GROUP, "GET_CONSUMER_LIST_BY_GROUP", ConsumerGroupHeader, response_body=CONSUMER_IDS,
    access=group("consumer_group", "Sub", "Get"), summary="the client ids of a consumer group",
)  # fmt: skip
GET_CONSUMER_CONNECTION_LIST = Rpc(
    C.GET_CONSUMER_CONNECTION_LIST, "GET_CONSUMER_CONNECTION_LIST", ConsumerGroupHeader,
    response_body=CONSUMER_CONNECTION,
    summary="a consumer group's clients, subscriptions and consume type (CONSUMER_NOT_ONLINE when none)",
)  # fmt: skip
GET_PRODUCER_CONNECTION_LIST = Rpc(
    C.GET_PRODUCER_CONNECTION_LIST, "GET_PRODUCER_CONNECTION_LIST", ProducerGroupHeader,
    response_body=PRODUCER_CONNECTION, summary="a producer group's clients",
)  # fmt: skip
QUERY_CONSUMER_OFFSET = Rpc(
    C.QUERY_CONSUMER_OFFSET, "QUERY_CONSUMER_OFFSET", QueryOffsetHeader, response_header=OffsetHeader,
    ok=frozenset({R.SUCCESS, R.QUERY_NOT_FOUND}),
    access=Consume(("Sub", "Get")), summary="a group's committed offset in one queue (QUERY_NOT_FOUND when none)",
)  # fmt: skip
UPDATE_CONSUMER_OFFSET = Rpc(
    C.UPDATE_CONSUMER_OFFSET, "UPDATE_CONSUMER_OFFSET", UpdateOffsetHeader,
    access=Consume(("Sub", "Update")), summary="commit a group's offset in one queue",
)  # fmt: skip
LOCK_BATCH_MQ = Rpc(
    C.LOCK_BATCH_MQ, "LOCK_BATCH_MQ", body=LOCK_BATCH, response_body=LOCKED,
    body_check=lambda b: first_refusal(b.names()), access=Locking(), summary="an orderly consumer locks queues",
)  # fmt: skip
UNLOCK_BATCH_MQ = Rpc(
    C.UNLOCK_BATCH_MQ, "UNLOCK_BATCH_MQ", body=LOCK_BATCH,
    body_check=lambda b: first_refusal(b.names()), access=Locking(), summary="an orderly consumer unlocks queues",
)  # fmt: skip
GET_CONSUMER_RUNNING_INFO = Rpc(
    C.GET_CONSUMER_RUNNING_INFO, "GET_CONSUMER_RUNNING_INFO", RunningInfoHeader, response_body=RUNNING_INFO,
    summary="a consumer's running info and jstack (the broker forwards the request to it)",
)  # fmt: skip
CONSUME_MESSAGE_DIRECTLY = Rpc(
    C.CONSUME_MESSAGE_DIRECTLY, "CONSUME_MESSAGE_DIRECTLY", ConsumeDirectlyHeader, response_body=RAW,
    summary="have a consumer consume one message (the broker forwards the request to it)",
)  # fmt: skip
NOTIFY_CONSUMER_IDS_CHANGED = Rpc(
    C.NOTIFY_CONSUMER_IDS_CHANGED, "NOTIFY_CONSUMER_IDS_CHANGED", ConsumerGroupHeader,
    summary="oneway, broker to consumers: the group's members changed, rebalance",
)  # fmt: skip
