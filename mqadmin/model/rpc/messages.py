"""Message requests a broker answers: send (long and short header forms, batches, send-back), pull,
the offsets of a queue, looking messages up, and consume-queue entries."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from mqadmin.model.access import Consume, Send, group, topic
from mqadmin.model.names import group_refusal, topic_refusal
from mqadmin.model.rpc.bodies import RAW, JsonBody
from mqadmin.model.rpc.spec import Header, Rpc, wire
from mqadmin.wire.codes import RequestCode as C
from mqadmin.wire.codes import ResponseCode as R


@dataclass(frozen=True, slots=True, kw_only=True)
class SendHeader(Header):
    """SEND_MESSAGE (10): SendMessageRequestHeader. The server checks the topic, and the default topic
    and the producer group when they are not empty."""

    producer_group: str = wire("producerGroup", check=group_refusal, blank_ok=True)
    topic: str = wire("topic", check=topic_refusal)
    default_topic: str = wire("defaultTopic", check=topic_refusal, blank_ok=True)
    default_topic_queue_nums: int = wire("defaultTopicQueueNums")
    queue_id: int = wire("queueId")
    sys_flag: int = wire("sysFlag")
    born_timestamp: int = wire("bornTimestamp")
    flag: int = wire("flag")
    properties: str | None = wire("properties", None)
    reconsume_times: int | None = wire("reconsumeTimes", None)
    unit_mode: bool | None = wire("unitMode", None)
    max_reconsume_times: int | None = wire("maxReconsumeTimes", None)
    batch: bool | None = wire("batch", None)
    broker_name: str | None = wire("bname", None)


def _short_names(long: type[SendHeader]) -> type[SendHeader]:
    """SendMessageRequestHeaderV2: the same fields in the same order under the keys a … n (Java's
    ``createSendMessageRequestHeaderV2``), a subclass so handlers take either form."""
    fields = []
    for letter, f in zip("abcdefghijklmn", dataclasses.fields(long), strict=True):
        meta = f.metadata
        fields.append((f.name, f.type, wire(letter, f.default, check=meta["check"], blank_ok=meta["blank_ok"])))
    return dataclasses.make_dataclass(
        "SendHeaderV2", fields, bases=(long,), namespace={"__module__": __name__, "__doc__": _short_names.__doc__},
        frozen=True, slots=True, kw_only=True,
    )  # fmt: skip


SendHeaderV2 = _short_names(SendHeader)
"""SEND_MESSAGE_V2 (310) and SEND_BATCH_MESSAGE (320): SendHeader's fields under one-letter names."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SendResultHeader(Header):
    msg_id: str | None = wire("msgId", None)
    queue_id: int = wire("queueId", -1)
    queue_offset: int = wire("queueOffset", -1)
    transaction_id: str | None = wire("transactionId", None)
    region: str | None = wire("MSG_REGION", None)
    trace_on: bool | None = wire("TRACE_ON", None)


@dataclass(frozen=True, slots=True, kw_only=True)
class SendBackHeader(Header):
    """CONSUMER_SEND_MSG_BACK (36): a consumer hands back a message it failed to consume."""

    offset: int = wire("offset")
    group: str = wire("group", check=group_refusal)
    delay_level: int = wire("delayLevel")
    origin_msg_id: str | None = wire("originMsgId", None)
    origin_topic: str | None = wire("originTopic", None, check=topic_refusal)
    unit_mode: bool | None = wire("unitMode", None)
    max_reconsume_times: int | None = wire("maxReconsumeTimes", None)


@dataclass(frozen=True, slots=True, kw_only=True)
class PullHeader(Header):
    consumer_group: str = wire("consumerGroup", check=group_refusal)
    topic: str = wire("topic", check=topic_refusal)
    queue_id: int = wire("queueId")
    queue_offset: int = wire("queueOffset")
    max_msg_nums: int = wire("maxMsgNums")
    sys_flag: int = wire("sysFlag")
    commit_offset: int = wire("commitOffset")
    suspend_timeout_millis: int = wire("suspendTimeoutMillis")
    subscription: str | None = wire("subscription", None)
    sub_version: int = wire("subVersion")
    expression_type: str | None = wire("expressionType", None)


@dataclass(frozen=True, slots=True, kw_only=True)
class PullResultHeader(Header):
    suggest_which_broker_id: int = wire("suggestWhichBrokerId", 0)
    next_begin_offset: int = wire("nextBeginOffset", 0)
    min_offset: int = wire("minOffset", 0)
    max_offset: int = wire("maxOffset", 0)
    offset_delta: int | None = wire("offsetDelta", None)
    """A static topic's logic queue (5.x): what the client adds to the pulled messages' queue offsets, which are
    those of the physical queue they were read from."""


@dataclass(frozen=True, slots=True, kw_only=True)
class QueueHeader(Header):
    """One queue of a topic (GET_MAX_OFFSET, GET_MIN_OFFSET, GET_EARLIEST_MSG_STORETIME)."""

    topic: str = wire("topic", check=topic_refusal)
    queue_id: int = wire("queueId")


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchOffsetHeader(QueueHeader):
    """SEARCH_OFFSET_BY_TIMESTAMP (29): the first queue offset stored at or after ``timestamp``."""

    timestamp: int = wire("timestamp")
    boundary_type: str | None = wire("boundaryType", None)
    """5.x: LOWER (the first message stored at or after the time, the default) or UPPER."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OffsetHeader(Header):
    offset: int = wire("offset", 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class TimestampHeader(Header):
    timestamp: int = wire("timestamp", 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class QueryMessageHeader(Header):
    """QUERY_MESSAGE (12): messages by key within a store-time range; ``_UNIQUE_KEY_QUERY`` asks for
    the unique key (UNIQ_KEY) instead of KEYS."""

    topic: str = wire("topic", check=topic_refusal)
    key: str = wire("key")
    max_num: int = wire("maxNum")
    begin_timestamp: int = wire("beginTimestamp")
    end_timestamp: int = wire("endTimestamp")
    unique_key: bool | None = wire("_UNIQUE_KEY_QUERY", None)
    """Java sends this ext field (MixAll.UNIQUE_MSG_QUERY_FLAG) for a unique-key query; the broker then
    looks the key up as UNIQ_KEY and answers at most its defaultQueryMaxNum (32) messages."""


@dataclass(frozen=True, slots=True, kw_only=True)
class QueryMessageResultHeader(Header):
    index_last_update_timestamp: int = wire("indexLastUpdateTimestamp", 0)
    index_last_update_phyoffset: int = wire("indexLastUpdatePhyoffset", 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class ViewMessageHeader(Header):
    """VIEW_MESSAGE_BY_ID (33): the message at a commit-log offset (``topic`` only for ACL, 5.x)."""

    offset: int = wire("offset")
    topic: str | None = wire("topic", None, check=topic_refusal)


_SEND_OK = frozenset({R.SUCCESS, R.FLUSH_DISK_TIMEOUT, R.FLUSH_SLAVE_TIMEOUT, R.SLAVE_NOT_AVAILABLE})
_PULL_OK = frozenset({R.SUCCESS, R.PULL_NOT_FOUND, R.PULL_RETRY_IMMEDIATELY, R.PULL_OFFSET_MOVED})

SEND_MESSAGE = Rpc(
    C.SEND_MESSAGE, "SEND_MESSAGE", SendHeader, RAW, SendResultHeader, ok=_SEND_OK,
    access=Send(), summary="store one message (long header names)",
)  # fmt: skip
SEND_MESSAGE_V2 = Rpc(
    C.SEND_MESSAGE_V2, "SEND_MESSAGE_V2", SendHeaderV2, RAW, SendResultHeader, ok=_SEND_OK,
    access=Send(), summary="store one message (short header names)",
)  # fmt: skip
SEND_BATCH_MESSAGE = Rpc(
    C.SEND_BATCH_MESSAGE, "SEND_BATCH_MESSAGE", SendHeaderV2, RAW, SendResultHeader, ok=_SEND_OK,
    access=Send(), summary="store several messages of one queue (MessageBatch encoding)",
)  # fmt: skip
CONSUMER_SEND_MSG_BACK = Rpc(
    C.CONSUMER_SEND_MSG_BACK, "CONSUMER_SEND_MSG_BACK", SendBackHeader,
    access=group("group", "Sub"),
    summary="store a copy of a consumed message in the group's retry (or dead-letter) topic",
)  # fmt: skip
PULL_MESSAGE = Rpc(
    C.PULL_MESSAGE, "PULL_MESSAGE", PullHeader, response_header=PullResultHeader, response_body=RAW, ok=_PULL_OK,
    access=Consume(("Sub",)), summary="read stored messages from one queue",
)  # fmt: skip
GET_MAX_OFFSET = Rpc(
    C.GET_MAX_OFFSET, "GET_MAX_OFFSET", QueueHeader, response_header=OffsetHeader,
    summary="the queue's next offset",
)  # fmt: skip
GET_MIN_OFFSET = Rpc(
    C.GET_MIN_OFFSET, "GET_MIN_OFFSET", QueueHeader, response_header=OffsetHeader,
    summary="the queue's first offset still stored",
)  # fmt: skip
SEARCH_OFFSET_BY_TIMESTAMP = Rpc(
    C.SEARCH_OFFSET_BY_TIMESTAMP, "SEARCH_OFFSET_BY_TIMESTAMP", SearchOffsetHeader, response_header=OffsetHeader,
    summary="the first offset stored at or after a time",
)  # fmt: skip
GET_EARLIEST_MSG_STORETIME = Rpc(
    C.GET_EARLIEST_MSG_STORETIME, "GET_EARLIEST_MSG_STORETIME", QueueHeader, response_header=TimestampHeader,
    summary="the store time of the queue's first message",
)  # fmt: skip
QUERY_MESSAGE = Rpc(
    C.QUERY_MESSAGE, "QUERY_MESSAGE", QueryMessageHeader, response_header=QueryMessageResultHeader,
    response_body=RAW, ok=frozenset({R.SUCCESS, R.QUERY_NOT_FOUND}),
    access=topic("Sub", "Get"), summary="stored messages by key (QUERY_NOT_FOUND when none)",
)  # fmt: skip
VIEW_MESSAGE_BY_ID = Rpc(
    C.VIEW_MESSAGE_BY_ID, "VIEW_MESSAGE_BY_ID", ViewMessageHeader, response_body=RAW,
    summary="one stored message by its commit-log offset (the offset message id)",
)  # fmt: skip


# --- consume-queue entries ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class QueryConsumeQueueHeader(Header):
    """QUERY_CONSUME_QUEUE (321): ``count`` consume-queue entries from ``index`` (queryCq)."""

    topic: str = wire("topic", check=topic_refusal)
    queue_id: int = wire("queueId")
    index: int = wire("index")
    count: int = wire("count")
    consumer_group: str | None = wire("consumerGroup", None, check=group_refusal)


@dataclass(frozen=True, slots=True)
class CqEntry:
    """One consume-queue unit (ConsumeQueueData): where the message is in the commit log, its size and
    its tags hash code (a delivery time for SCHEDULE_TOPIC_XXXX)."""

    physic_offset: int
    physic_size: int
    tags_code: int
    extend_data_json: str | None = None
    bit_map: str | None = None
    eval: bool = False
    msg: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "bitMap": self.bit_map, "eval": self.eval, "extendDataJson": self.extend_data_json, "msg": self.msg,
            "physicOffset": self.physic_offset, "physicSize": self.physic_size, "tagsCode": self.tags_code,
        }  # fmt: skip

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> CqEntry:
        return cls(
            int(obj.get("physicOffset") or 0), int(obj.get("physicSize") or 0), int(obj.get("tagsCode") or 0),
            obj.get("extendDataJson"), obj.get("bitMap"), bool(obj.get("eval") or False), obj.get("msg"),
        )  # fmt: skip


@dataclass(slots=True)
class ConsumeQueueView:
    """QueryConsumeQueueResponseBody."""

    min_queue_index: int = 0
    max_queue_index: int = 0
    queue_data: list[CqEntry] = field(default_factory=list)
    subscription_data: dict[str, Any] | None = None
    filter_data: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "filterData": self.filter_data,
            "maxQueueIndex": self.max_queue_index,
            "minQueueIndex": self.min_queue_index,
            "queueData": [e.to_json() for e in self.queue_data],
            "subscriptionData": self.subscription_data,
        }

    @classmethod
    def from_json(cls, obj: Any) -> ConsumeQueueView:
        sub = obj.get("subscriptionData")
        return cls(
            int(obj.get("minQueueIndex") or 0),
            int(obj.get("maxQueueIndex") or 0),
            [CqEntry.from_json(e) for e in obj.get("queueData") or []],
            sub if isinstance(sub, dict) else None,
            obj.get("filterData"),
        )


QUERY_CONSUME_QUEUE = Rpc(
    C.QUERY_CONSUME_QUEUE, "QUERY_CONSUME_QUEUE", QueryConsumeQueueHeader,
    response_body=JsonBody("QueryConsumeQueueResponseBody", ConsumeQueueView.from_json, ConsumeQueueView.to_json),
    summary="consume-queue entries of one queue (commit-log offset, size, tags code)",
)  # fmt: skip
