"""Broker-side queue assignment and POP consumption (5.x): QUERY_ASSIGNMENT (400), POP_MESSAGE (200050),
ACK_MESSAGE (200051) and CHANGE_MESSAGE_INVISIBLETIME (200053).

A 5.x consumer that leaves queue assignment to the broker (``clientRebalance=false``) asks QUERY_ASSIGNMENT
which queues it reads and how; in POP mode (set with setConsumeMode) it pops messages, which stay invisible
to other pops for ``invisibleTime`` unless acknowledged. Codes above 32767 travel in JSON headers only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqadmin.model.names import group_refusal, topic_refusal
from mqadmin.model.queue import MessageQueue
from mqadmin.model.rpc.bodies import RAW, JsonBody
from mqadmin.model.rpc.spec import Header, Rpc, wire
from mqadmin.wire.codes import RequestCode as C
from mqadmin.wire.codes import ResponseCode as R

INIT_MODE_MIN = 0
"""ConsumeInitMode: a group with no offset starts at the queue's first message (MIN) or its end (MAX, 1)."""


@dataclass(frozen=True, slots=True)
class AssignmentRequest:
    """QueryAssignmentRequestBody."""

    topic: str
    consumer_group: str
    client_id: str
    strategy_name: str = "AVG"
    message_model: str = "CLUSTERING"

    @classmethod
    def from_json(cls, obj: Any) -> AssignmentRequest:
        return cls(
            str(obj.get("topic") or ""),
            str(obj.get("consumerGroup") or ""),
            str(obj.get("clientId") or ""),
            str(obj.get("strategyName") or "AVG"),
            str(obj.get("messageModel") or "CLUSTERING"),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "clientId": self.client_id,
            "consumerGroup": self.consumer_group,
            "messageModel": self.message_model,
            "strategyName": self.strategy_name,
            "topic": self.topic,
        }


def _assignments(obj: Any) -> list[tuple[MessageQueue, str]]:
    return [
        (MessageQueue.from_json(a.get("messageQueue") or {}), str(a.get("mode") or "PULL"))
        for a in obj.get("messageQueueAssignments") or []
    ]


def _assignments_json(items: list[tuple[MessageQueue, str]]) -> dict[str, Any]:
    return {"messageQueueAssignments": [{"attachments": {}, "messageQueue": mq.to_json(), "mode": mode}
                                        for mq, mode in items]}  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class PopHeader(Header):
    consumer_group: str = wire("consumerGroup", check=group_refusal)
    topic: str = wire("topic", check=topic_refusal)
    queue_id: int = wire("queueId")
    """-1: any queue of the topic on this broker."""
    max_msg_nums: int = wire("maxMsgNums")
    invisible_time: int = wire("invisibleTime")
    poll_time: int = wire("pollTime")
    born_time: int = wire("bornTime")
    init_mode: int = wire("initMode")
    exp_type: str | None = wire("expType", None)
    exp: str | None = wire("exp", None)
    order: bool | None = wire("order", None)
    attempt_id: str | None = wire("attemptId", None)


@dataclass(frozen=True, slots=True, kw_only=True)
class PopResultHeader(Header):
    pop_time: int = wire("popTime", 0)
    invisible_time: int = wire("invisibleTime", 0)
    revive_qid: int = wire("reviveQid", 0)
    rest_num: int = wire("restNum", 0)
    start_offset_info: str | None = wire("startOffsetInfo", None)
    msg_offset_info: str | None = wire("msgOffsetInfo", None)
    order_count_info: str | None = wire("orderCountInfo", None)


@dataclass(frozen=True, slots=True, kw_only=True)
class AckHeader(Header):
    consumer_group: str = wire("consumerGroup", check=group_refusal)
    topic: str = wire("topic", check=topic_refusal)
    queue_id: int = wire("queueId")
    extra_info: str = wire("extraInfo")
    offset: int = wire("offset")


@dataclass(frozen=True, slots=True, kw_only=True)
class ChangeInvisibleTimeHeader(Header):
    consumer_group: str = wire("consumerGroup", check=group_refusal)
    topic: str = wire("topic", check=topic_refusal)
    queue_id: int = wire("queueId")
    extra_info: str = wire("extraInfo")
    offset: int = wire("offset")
    invisible_time: int = wire("invisibleTime")


@dataclass(frozen=True, slots=True, kw_only=True)
class ChangeInvisibleTimeResultHeader(Header):
    pop_time: int = wire("popTime", 0)
    invisible_time: int = wire("invisibleTime", 0)
    revive_qid: int = wire("reviveQid", 0)


ASSIGNMENT_REQUEST = JsonBody("QueryAssignmentRequestBody", AssignmentRequest.from_json, AssignmentRequest.to_json)
ASSIGNMENTS = JsonBody("QueryAssignmentResponseBody", _assignments, _assignments_json)

QUERY_ASSIGNMENT = Rpc(
    C.QUERY_ASSIGNMENT, "QUERY_ASSIGNMENT", body=ASSIGNMENT_REQUEST, response_body=ASSIGNMENTS,
    summary="the queues a consumer reads and how (PULL or POP), assigned by the broker (5.x)",
)  # fmt: skip
POP_MESSAGE = Rpc(
    C.POP_MESSAGE, "POP_MESSAGE", PopHeader, response_header=PopResultHeader, response_body=RAW,
    ok=frozenset({R.SUCCESS, R.PULL_NOT_FOUND}),
    summary="take messages, invisible to others until acknowledged (5.x)",
)  # fmt: skip
ACK_MESSAGE = Rpc(
    C.ACK_MESSAGE,
    "ACK_MESSAGE",
    AckHeader,
    summary="acknowledge a popped message (5.x)",
)
CHANGE_MESSAGE_INVISIBLETIME = Rpc(
    C.CHANGE_MESSAGE_INVISIBLETIME, "CHANGE_MESSAGE_INVISIBLETIME", ChangeInvisibleTimeHeader,
    response_header=ChangeInvisibleTimeResultHeader,
    summary="make a popped message visible again later (5.x)",
)  # fmt: skip
