"""Message requests a broker answers: send (long and short header forms, batches, send-back), pull,
the offsets of a queue, and looking messages up."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from mqadmin.model.names import group_refusal, topic_refusal
from mqadmin.model.rpc.bodies import RAW
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


@dataclass(frozen=True, slots=True, kw_only=True)
class QueueHeader(Header):
    """One queue of a topic (GET_MAX_OFFSET, GET_MIN_OFFSET, GET_EARLIEST_MSG_STORETIME)."""

    topic: str = wire("topic", check=topic_refusal)
    queue_id: int = wire("queueId")


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchOffsetHeader(QueueHeader):
    timestamp: int = wire("timestamp")


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


@dataclass(frozen=True, slots=True, kw_only=True)
class QueryMessageResultHeader(Header):
    index_last_update_timestamp: int = wire("indexLastUpdateTimestamp", 0)
    index_last_update_phyoffset: int = wire("indexLastUpdatePhyoffset", 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class ViewMessageHeader(Header):
    offset: int = wire("offset")
    topic: str | None = wire("topic", None, check=topic_refusal)


_SEND_OK = frozenset({R.SUCCESS, R.FLUSH_DISK_TIMEOUT, R.FLUSH_SLAVE_TIMEOUT, R.SLAVE_NOT_AVAILABLE})
_PULL_OK = frozenset({R.SUCCESS, R.PULL_NOT_FOUND, R.PULL_RETRY_IMMEDIATELY, R.PULL_OFFSET_MOVED})

SEND_MESSAGE = Rpc(
    C.SEND_MESSAGE, "SEND_MESSAGE", SendHeader, RAW, SendResultHeader, ok=_SEND_OK,
    summary="store one message (long header names)",
)  # fmt: skip
SEND_MESSAGE_V2 = Rpc(
    C.SEND_MESSAGE_V2, "SEND_MESSAGE_V2", SendHeaderV2, RAW, SendResultHeader, ok=_SEND_OK,
    summary="store one message (short header names)",
)  # fmt: skip
SEND_BATCH_MESSAGE = Rpc(
    C.SEND_BATCH_MESSAGE, "SEND_BATCH_MESSAGE", SendHeaderV2, RAW, SendResultHeader, ok=_SEND_OK,
    summary="store several messages of one queue (MessageBatch encoding)",
)  # fmt: skip
CONSUMER_SEND_MSG_BACK = Rpc(
    C.CONSUMER_SEND_MSG_BACK, "CONSUMER_SEND_MSG_BACK", SendBackHeader,
    summary="store a copy of a consumed message in the group's retry (or dead-letter) topic",
)  # fmt: skip
PULL_MESSAGE = Rpc(
    C.PULL_MESSAGE, "PULL_MESSAGE", PullHeader, response_header=PullResultHeader, response_body=RAW, ok=_PULL_OK,
    summary="read stored messages from one queue",
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
    summary="stored messages by key (QUERY_NOT_FOUND when none)",
)  # fmt: skip
VIEW_MESSAGE_BY_ID = Rpc(
    C.VIEW_MESSAGE_BY_ID, "VIEW_MESSAGE_BY_ID", ViewMessageHeader, response_body=RAW,
    summary="one stored message by its commit-log offset (the offset message id)",
)  # fmt: skip
