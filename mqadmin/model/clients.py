"""Producer and consumer clients as a broker sees them: HeartbeatData (HEART_BEAT, 34) and the
queue-lock bodies of orderly consumers (LOCK_BATCH_MQ, 41; UNLOCK_BATCH_MQ, 42).

Clients write enums by name (Java, JavaScript, Go) or by ordinal (C++), and the C++ client sends
numbers as strings; reading accepts all of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqadmin.model.names import NameKind
from mqadmin.model.tags import SubscriptionData

CONSUME_TYPES = ("CONSUME_ACTIVELY", "CONSUME_PASSIVELY", "CONSUME_POP")
MESSAGE_MODELS = ("BROADCASTING", "CLUSTERING")
CONSUME_FROM_WHERE = (
    "CONSUME_FROM_LAST_OFFSET", "CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST", "CONSUME_FROM_MIN_OFFSET",
    "CONSUME_FROM_MAX_OFFSET", "CONSUME_FROM_FIRST_OFFSET", "CONSUME_FROM_TIMESTAMP",
)  # fmt: skip

Names = list[tuple[NameKind, str]]
"""Topic and group names found in a body, for the server's name checks."""


def enum_name(value: Any, names: tuple[str, ...], default: str) -> str:
    """An enum sent by name (Java, JS, Go) or by ordinal (C++)."""
    if isinstance(value, str) and value in names:
        return value
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(names):
        return names[value]
    if isinstance(value, str) and value.isdigit() and int(value) < len(names):
        return names[int(value)]
    return default


def _object(obj: Any, what: str) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise ValueError(f"the {what} body is not a JSON object")
    return obj


@dataclass(frozen=True, slots=True)
class ConsumerData:
    """One consumer group of a heartbeat, enums as names."""

    group: str
    consume_type: str = "CONSUME_PASSIVELY"
    message_model: str = "CLUSTERING"
    consume_from_where: str = "CONSUME_FROM_LAST_OFFSET"
    subscriptions: tuple[SubscriptionData, ...] = ()

    @classmethod
    def from_json(cls, c: dict[str, Any]) -> ConsumerData:
        subs = c.get("subscriptionDataSet") or []
        return cls(
            group=str(c.get("groupName") or ""),
            consume_type=enum_name(c.get("consumeType"), CONSUME_TYPES, "CONSUME_PASSIVELY"),
            message_model=enum_name(c.get("messageModel"), MESSAGE_MODELS, "CLUSTERING"),
            consume_from_where=enum_name(c.get("consumeFromWhere"), CONSUME_FROM_WHERE, "CONSUME_FROM_LAST_OFFSET"),
            subscriptions=tuple(SubscriptionData.from_json(s) for s in subs if isinstance(s, dict)),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "consumeFromWhere": self.consume_from_where,
            "consumeType": self.consume_type,
            "groupName": self.group,
            "messageModel": self.message_model,
            "subscriptionDataSet": [s.to_json() for s in self.subscriptions],
            "unitMode": False,
        }


@dataclass(frozen=True, slots=True)
class HeartbeatData:
    client_id: str
    consumers: tuple[ConsumerData, ...] = ()
    producers: tuple[str, ...] = ()
    """The producer groups (empty names dropped)."""

    @classmethod
    def from_json(cls, obj: Any) -> HeartbeatData:
        obj = _object(obj, "HeartbeatData")
        consumers = obj.get("consumerDataSet") or []
        producers = obj.get("producerDataSet") or []
        return cls(
            client_id=str(obj.get("clientID") or ""),
            consumers=tuple(ConsumerData.from_json(c) for c in consumers if isinstance(c, dict)),
            producers=tuple(g for p in producers if isinstance(p, dict) and (g := str(p.get("groupName") or ""))),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "clientID": self.client_id,
            "consumerDataSet": [c.to_json() for c in self.consumers],
            "producerDataSet": [{"groupName": g} for g in self.producers],
        }

    def names(self) -> Names:
        """Producer groups, consumer groups and subscribed topics (empty group names are not names)."""
        out: Names = [(NameKind.GROUP, g) for g in self.producers]
        for c in self.consumers:
            out += [(NameKind.GROUP, c.group)] if c.group else []
            out += [(NameKind.TOPIC, s.topic) for s in c.subscriptions]
        return out


MQKey = tuple[str, str, int]
"""A message queue as (topic, brokerName, queueId)."""


def mq_key(mq: dict[str, Any]) -> MQKey:
    return (str(mq.get("topic", "")), str(mq.get("brokerName", "")), int(mq.get("queueId", 0)))


def mq_json(key: MQKey) -> dict[str, Any]:
    return {"brokerName": key[1], "queueId": key[2], "topic": key[0]}


@dataclass(frozen=True, slots=True)
class LockBatchBody:
    """(Un)LockBatchRequestBody: the queues a client of a group locks or unlocks."""

    group: str
    client_id: str
    queues: tuple[MQKey, ...] = ()

    @classmethod
    def from_json(cls, obj: Any) -> LockBatchBody:
        obj = _object(obj, "LockBatchRequestBody")
        mqs = obj.get("mqSet") or []
        return cls(
            group=str(obj.get("consumerGroup") or ""),
            client_id=str(obj.get("clientId") or ""),
            queues=tuple(mq_key(mq) for mq in mqs if isinstance(mq, dict)),
        )

    def to_json(self) -> dict[str, Any]:
        return {"clientId": self.client_id, "consumerGroup": self.group, "mqSet": [mq_json(k) for k in self.queues]}

    def names(self) -> Names:
        """The group (even empty: a lock needs one) and each queue's topic."""
        return [(NameKind.GROUP, self.group), *((NameKind.TOPIC, mq[0]) for mq in self.queues)]


@dataclass(frozen=True, slots=True)
class LockedQueues:
    """LockBatchResponseBody: the queues the client holds after the request."""

    queues: tuple[MQKey, ...] = ()

    @classmethod
    def from_json(cls, obj: Any) -> LockedQueues:
        mqs = _object(obj, "LockBatchResponseBody").get("lockOKMQSet") or []
        return cls(tuple(mq_key(mq) for mq in mqs if isinstance(mq, dict)))

    def to_json(self) -> dict[str, Any]:
        return {"lockOKMQSet": [mq_json(k) for k in self.queues]}


@dataclass(frozen=True, slots=True)
class ConsumerIds:
    """GetConsumerListByGroupResponseBody."""

    ids: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, obj: Any) -> ConsumerIds:
        return cls(
            tuple(str(i) for i in _object(obj, "GetConsumerListByGroupResponseBody").get("consumerIdList") or [])
        )

    def to_json(self) -> dict[str, Any]:
        return {"consumerIdList": list(self.ids)}
