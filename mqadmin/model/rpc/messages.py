"""Message requests: send (long and short header forms), pull."""

from __future__ import annotations

from dataclasses import dataclass

from mqadmin.model.rpc.bodies import RAW
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
