"""Message requests: send (long and short header forms), pull, look-ups by id, key and queue offset,
consume-queue entries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqadmin.model.rpc.bodies import RAW, JsonBody
from mqadmin.model.rpc.spec import Header, Rpc, wire
from mqadmin.wire.codes import RequestCode as C
from mqadmin.wire.codes import ResponseCode as R


@dataclass(frozen=True, slots=True, kw_only=True)
class SendHeaderV2(Header):
    """SEND_MESSAGE_V2 (310) and SEND_BATCH_MESSAGE (320): SendMessageRequestHeader's fields under
    one-letter names (a = producerGroup … m = batch; n = brokerName in 5.x)."""

    producer_group: str = wire("a")
    topic: str = wire("b")
    default_topic: str = wire("c")
    default_topic_queue_nums: int = wire("d")
    queue_id: int = wire("e")
    sys_flag: int = wire("f")
    born_timestamp: int = wire("g")
    flag: int = wire("h")
    properties: str | None = wire("i", None)
    reconsume_times: int | None = wire("j", None)
    unit_mode: bool | None = wire("k", None)
    max_reconsume_times: int | None = wire("l", None)
    batch: bool | None = wire("m", None)
    broker_name: str | None = wire("n", None)


@dataclass(frozen=True, slots=True, kw_only=True)
class SendResultHeader(Header):
    msg_id: str | None = wire("msgId", None)
    queue_id: int = wire("queueId", -1)
    queue_offset: int = wire("queueOffset", -1)
    transaction_id: str | None = wire("transactionId", None)


@dataclass(frozen=True, slots=True, kw_only=True)
class PullHeader(Header):
    consumer_group: str = wire("consumerGroup")
    topic: str = wire("topic")
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


_SEND_OK = frozenset({R.SUCCESS, R.FLUSH_DISK_TIMEOUT, R.FLUSH_SLAVE_TIMEOUT, R.SLAVE_NOT_AVAILABLE})
_PULL_OK = frozenset({R.SUCCESS, R.PULL_NOT_FOUND, R.PULL_RETRY_IMMEDIATELY, R.PULL_OFFSET_MOVED})

SEND_MESSAGE_V2 = Rpc(
    C.SEND_MESSAGE_V2, "SEND_MESSAGE_V2", SendHeaderV2, RAW, SendResultHeader, ok=_SEND_OK,
    summary="store one message (short header names)",
)  # fmt: skip
PULL_MESSAGE = Rpc(
    C.PULL_MESSAGE, "PULL_MESSAGE", PullHeader, response_header=PullResultHeader, response_body=RAW, ok=_PULL_OK,
    summary="read stored messages from one queue",
)  # fmt: skip


# --- looking messages up -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class QueryMessageHeader(Header):
    """QUERY_MESSAGE (12): messages of a topic by key (KEYS), or by unique key with ``unique_key_query``."""

    topic: str = wire("topic")
    key: str = wire("key")
    max_num: int = wire("maxNum")
    begin_timestamp: int = wire("beginTimestamp")
    end_timestamp: int = wire("endTimestamp")
    unique_key_query: bool | None = wire("_UNIQUE_KEY_QUERY", None)
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
    topic: str | None = wire("topic", None)


@dataclass(frozen=True, slots=True, kw_only=True)
class QueueHeader(Header):
    """GET_MAX_OFFSET (30), GET_MIN_OFFSET (31)."""

    topic: str = wire("topic")
    queue_id: int = wire("queueId")


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchOffsetHeader(Header):
    """SEARCH_OFFSET_BY_TIMESTAMP (29): the first queue offset stored at or after ``timestamp``."""

    topic: str = wire("topic")
    queue_id: int = wire("queueId")
    timestamp: int = wire("timestamp")


@dataclass(frozen=True, slots=True, kw_only=True)
class OffsetResultHeader(Header):
    offset: int = wire("offset", 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class QueryConsumeQueueHeader(Header):
    """QUERY_CONSUME_QUEUE (321): ``count`` consume-queue entries from ``index`` (queryCq)."""

    topic: str = wire("topic")
    queue_id: int = wire("queueId")
    index: int = wire("index")
    count: int = wire("count")
    consumer_group: str | None = wire("consumerGroup", None)


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


_QUERY_OK = frozenset({R.SUCCESS, R.QUERY_NOT_FOUND})

QUERY_MESSAGE = Rpc(
    C.QUERY_MESSAGE, "QUERY_MESSAGE", QueryMessageHeader, response_header=QueryMessageResultHeader,
    response_body=RAW, ok=_QUERY_OK, summary="stored messages of a topic by key or unique key (index lookup)",
)  # fmt: skip
VIEW_MESSAGE_BY_ID = Rpc(
    C.VIEW_MESSAGE_BY_ID, "VIEW_MESSAGE_BY_ID", ViewMessageHeader, response_body=RAW,
    summary="the stored message at a commit-log offset (an offset message id)",
)  # fmt: skip
GET_MAX_OFFSET = Rpc(
    C.GET_MAX_OFFSET, "GET_MAX_OFFSET", QueueHeader, response_header=OffsetResultHeader,
    summary="the next queue offset of a queue (one past its last message)",
)  # fmt: skip
GET_MIN_OFFSET = Rpc(
    C.GET_MIN_OFFSET, "GET_MIN_OFFSET", QueueHeader, response_header=OffsetResultHeader,
    summary="the first queue offset still stored",
)  # fmt: skip
SEARCH_OFFSET_BY_TIMESTAMP = Rpc(
    C.SEARCH_OFFSET_BY_TIMESTAMP, "SEARCH_OFFSET_BY_TIMESTAMP", SearchOffsetHeader,
    response_header=OffsetResultHeader, summary="the first queue offset stored at or after a time",
)  # fmt: skip
QUERY_CONSUME_QUEUE = Rpc(
    C.QUERY_CONSUME_QUEUE, "QUERY_CONSUME_QUEUE", QueryConsumeQueueHeader,
    response_body=JsonBody("QueryConsumeQueueResponseBody", ConsumeQueueView.from_json, ConsumeQueueView.to_json),
    summary="consume-queue entries of one queue (commit-log offset, size, tags code)",
)  # fmt: skip
