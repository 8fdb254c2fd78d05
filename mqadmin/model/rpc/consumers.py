"""Requests about consumers and their offsets: every producer (328), resetting a group's offsets (222,
and 220 from the broker to each consumer), the offsets consumers hold (223, and 221 from the broker to
each consumer), a group's message request mode (401, 402) and every group's offsets on a broker (317). Who is
connected (203, 204) and a consumer's running info (307) are in ``clients``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqadmin.model.broker_consume import BrokerConsumeStatsBody
from mqadmin.model.clients import producer_table as read_producer_table
from mqadmin.model.names import NameKind, first_refusal, group_refusal, topic_refusal
from mqadmin.model.queue import MessageQueue, loads_mq_keyed, mq_map_text, mq_rows, read_mq_map
from mqadmin.model.rpc.bodies import JsonBody, json_object
from mqadmin.model.rpc.spec import Header, Rpc, wire
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode as C

OffsetTable = dict[MessageQueue, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class ResetOffsetHeader(Header):
    """INVOKE_BROKER_TO_RESET_OFFSET (222) and RESET_CONSUMER_CLIENT_OFFSET (220). ``timestamp`` -1 means
    the queue's end (skipAccumulatedMessage). 5.x brokers also take one queue (``queueId``, ``offset``)."""

    topic: str = wire("topic", check=topic_refusal)
    group: str = wire("group", check=group_refusal)
    timestamp: int = wire("timestamp")
    is_force: bool = wire("isForce")
    queue_id: int | None = wire("queueId", None)
    offset: int | None = wire("offset", None)


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsumerStatusHeader(Header):
    """INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223) and GET_CONSUMER_STATUS_FROM_CLIENT (221)."""

    topic: str = wire("topic", check=topic_refusal)
    group: str = wire("group", check=group_refusal)
    client_addr: str | None = wire("clientAddr", None)
    """223 only: the client id to ask (every client of the group when blank)."""


class ResetOffsetBody:
    """ResetOffsetBody ``{"offsetTable": {{mq}: offset}}``; the C++ client reads ResetOffsetBodyForC instead,
    a list of ``{"brokerName", "offset", "queueId", "topic"}`` (``for_c``)."""

    name = "ResetOffsetBody"
    json = True

    def __init__(self, *, for_c: bool = False) -> None:
        self.for_c = for_c

    def encode(self, value: OffsetTable) -> bytes:
        if self.for_c:
            rows = [{**mq.to_json(), "offset": off} for mq, off in sorted(value.items())]
            return fastjson.dumps_bytes({"offsetTable": rows})
        return fastjson.dumps_object_keyed({}, mq_rows(value, int), "offsetTable")

    def decode(self, data: bytes) -> OffsetTable:
        table = loads_mq_keyed(data).get("offsetTable")
        if isinstance(table, list):
            return {MessageQueue.from_json(r): int(r.get("offset", 0)) for r in table if isinstance(r, dict)}
        return read_mq_map(table, int)


@dataclass(slots=True)
class ConsumerStatus:
    """GetConsumerStatusBody: one client's offsets (``messageQueueTable``, from 221) or every client's
    (``consumerTable`` by client id, from 223)."""

    queues: OffsetTable
    clients: dict[str, OffsetTable]


class ConsumerStatusBody:
    name = "GetConsumerStatusBody"
    json = True

    def encode(self, value: ConsumerStatus) -> bytes:
        clients = ",".join(f"{fastjson.dumps(cid)}:{mq_map_text(t, int)}" for cid, t in sorted(value.clients.items()))
        return f'{{"consumerTable":{{{clients}}},"messageQueueTable":{mq_map_text(value.queues, int)}}}'.encode()

    def decode(self, data: bytes) -> ConsumerStatus:
        obj = loads_mq_keyed(data)
        clients = obj.get("consumerTable") or {}
        if not isinstance(clients, dict):
            raise ValueError("consumerTable is not an object")
        return ConsumerStatus(
            read_mq_map(obj.get("messageQueueTable"), int),
            {str(cid): read_mq_map(t, int) for cid, t in sorted(clients.items())},
        )


@dataclass(frozen=True, slots=True)
class RequestMode:
    """SetMessageRequestModeRequestBody: how a group reads a topic (PULL, or POP sharing queues)."""

    topic: str
    consumer_group: str
    mode: str = "PULL"
    pop_share_queue_num: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "consumerGroup": self.consumer_group,
            "mode": self.mode,
            "popShareQueueNum": self.pop_share_queue_num,
            "topic": self.topic,
        }

    def names(self) -> list[tuple[NameKind, str]]:
        """The topic and group, when given (a request without them is answered by the broker)."""
        return [(k, n) for k, n in ((NameKind.TOPIC, self.topic), (NameKind.GROUP, self.consumer_group)) if n]

    @classmethod
    def from_json(cls, obj: Any) -> RequestMode:
        return cls(
            str(obj.get("topic") or ""),
            str(obj.get("consumerGroup") or ""),
            str(obj.get("mode") or "PULL"),
            int(obj.get("popShareQueueNum") or 0),
        )


PRODUCER_TABLE = JsonBody(
    "ProducerTableInfo",
    read_producer_table,
    lambda table: {"data": {g: [p.wire_json() for p in ps] for g, ps in table.items()}},
)
REQUEST_MODE = JsonBody("SetMessageRequestModeRequestBody", RequestMode.from_json, RequestMode.to_json)

GET_ALL_PRODUCER_INFO = Rpc(
    C.GET_ALL_PRODUCER_INFO, "GET_ALL_PRODUCER_INFO", response_body=PRODUCER_TABLE,
    summary="every producer connected to the broker, by group",
)  # fmt: skip
INVOKE_BROKER_TO_RESET_OFFSET = Rpc(
    C.INVOKE_BROKER_TO_RESET_OFFSET, "INVOKE_BROKER_TO_RESET_OFFSET", ResetOffsetHeader,
    response_body=ResetOffsetBody(),
    summary="reset a group's offsets on a topic to a time (206 from 4.9 brokers when no consumer is online)",
)  # fmt: skip
RESET_CONSUMER_CLIENT_OFFSET = Rpc(
    C.RESET_CONSUMER_CLIENT_OFFSET, "RESET_CONSUMER_CLIENT_OFFSET", ResetOffsetHeader, ResetOffsetBody(),
    summary="broker to consumer: move to these offsets (oneway)",
)  # fmt: skip
INVOKE_BROKER_TO_GET_CONSUMER_STATUS = Rpc(
    C.INVOKE_BROKER_TO_GET_CONSUMER_STATUS, "INVOKE_BROKER_TO_GET_CONSUMER_STATUS", ConsumerStatusHeader,
    response_body=ConsumerStatusBody(), summary="the offsets each consumer of a group holds for a topic",
)  # fmt: skip
GET_CONSUMER_STATUS_FROM_CLIENT = Rpc(
    C.GET_CONSUMER_STATUS_FROM_CLIENT, "GET_CONSUMER_STATUS_FROM_CLIENT", ConsumerStatusHeader,
    response_body=ConsumerStatusBody(), summary="broker to consumer: the offsets you hold for a topic",
)  # fmt: skip
SET_MESSAGE_REQUEST_MODE = Rpc(
    C.SET_MESSAGE_REQUEST_MODE, "SET_MESSAGE_REQUEST_MODE", body=REQUEST_MODE,
    body_check=lambda m: first_refusal(m.names()),
    summary="how a group reads a topic: PULL or POP (5.x)",
)  # fmt: skip
GET_ALL_MESSAGE_REQUEST_MODE = Rpc(
    C.GET_ALL_MESSAGE_REQUEST_MODE, "GET_ALL_MESSAGE_REQUEST_MODE",
    response_body=json_object("MessageRequestModeSerializeWrapper"),
    summary="every group's message request mode (5.x)",
)  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsumeStatsInBrokerHeader(Header):
    is_order: bool = wire("isOrder")
    """Only topics configured as ordered."""


GET_BROKER_CONSUME_STATS = Rpc(
    C.GET_BROKER_CONSUME_STATS, "GET_BROKER_CONSUME_STATS", ConsumeStatsInBrokerHeader,
    response_body=BrokerConsumeStatsBody(), summary="every subscription group's offsets and lag on the broker",
)  # fmt: skip
