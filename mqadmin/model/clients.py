"""Producer and consumer clients as a broker sees them: HeartbeatData (HEART_BEAT, 34), the queue-lock
bodies of orderly consumers (LOCK_BATCH_MQ, 41; UNLOCK_BATCH_MQ, 42), and what brokers report about them:
ConsumerConnection (GET_CONSUMER_CONNECTION_LIST, 203), ProducerConnection (204), ProducerTableInfo
(GET_ALL_PRODUCER_INFO, 328) and ConsumerRunningInfo (the answer a consumer gives to
GET_CONSUMER_RUNNING_INFO, 307, relayed by the broker).

Clients write enums by name (Java, JavaScript, Go) or by ordinal (C++), and the C++ client sends
numbers as strings; reading accepts all of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqadmin.model.names import NameKind
from mqadmin.model.queue import MessageQueue, read_mq_map
from mqadmin.model.tags import SubscriptionData
from mqadmin.model.version import version_desc
from mqadmin.wire import fastjson

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


@dataclass(frozen=True, slots=True)
class LockBatchBody:
    """(Un)LockBatchRequestBody: the queues a client of a group locks or unlocks."""

    group: str
    client_id: str
    queues: tuple[MessageQueue, ...] = ()

    @classmethod
    def from_json(cls, obj: Any) -> LockBatchBody:
        obj = _object(obj, "LockBatchRequestBody")
        mqs = obj.get("mqSet") or []
        return cls(
            group=str(obj.get("consumerGroup") or ""),
            client_id=str(obj.get("clientId") or ""),
            queues=tuple(MessageQueue.from_json(mq) for mq in mqs if isinstance(mq, dict)),
        )

    def to_json(self) -> dict[str, Any]:
        return {"clientId": self.client_id, "consumerGroup": self.group, "mqSet": [k.to_json() for k in self.queues]}

    def names(self) -> Names:
        """The group (even empty: a lock needs one) and each queue's topic."""
        return [(NameKind.GROUP, self.group), *((NameKind.TOPIC, mq[0]) for mq in self.queues)]


@dataclass(frozen=True, slots=True)
class LockedQueues:
    """LockBatchResponseBody: the queues the client holds after the request."""

    queues: tuple[MessageQueue, ...] = ()

    @classmethod
    def from_json(cls, obj: Any) -> LockedQueues:
        mqs = _object(obj, "LockBatchResponseBody").get("lockOKMQSet") or []
        return cls(tuple(MessageQueue.from_json(mq) for mq in mqs if isinstance(mq, dict)))

    def to_json(self) -> dict[str, Any]:
        return {"lockOKMQSet": [k.to_json() for k in self.queues]}


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


CONSUME_PASSIVELY = "CONSUME_PASSIVELY"
"""Push consumers (Java prints PUSH); CONSUME_ACTIVELY is pull, CONSUME_POP pop."""
CONSUME_TYPE_NAMES = {"CONSUME_PASSIVELY": "PUSH", "CONSUME_ACTIVELY": "PULL", "CONSUME_POP": "POP"}


def _int(value: Any, default: int = 0) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


@dataclass(frozen=True, slots=True)
class Connection:
    client_id: str
    client_addr: str
    language: str
    version: int

    @property
    def version_desc(self) -> str:
        return version_desc(self.version)

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Connection:
        return cls(
            str(obj.get("clientId") or ""),
            str(obj.get("clientAddr") or ""),
            str(obj.get("language") or ""),
            _int(obj.get("version")),
        )

    def wire_json(self) -> dict[str, Any]:
        return {
            "clientAddr": self.client_addr,
            "clientId": self.client_id,
            "language": self.language,
            "version": self.version,
        }

    def to_json(self) -> dict[str, Any]:
        """Our JSON output (the wire form plus the version's name)."""
        return {
            "clientId": self.client_id,
            "clientAddr": self.client_addr,
            "language": self.language,
            "version": self.version,
            "versionDesc": self.version_desc,
        }


def _connections(obj: dict[str, Any]) -> list[Connection]:
    items = obj.get("connectionSet") or []
    if not isinstance(items, list):
        raise ValueError("connectionSet is not a list")
    return sorted((Connection.from_json(c) for c in items if isinstance(c, dict)), key=lambda c: c.client_id)


@dataclass(slots=True)
class ConsumerConnection:
    connections: list[Connection] = field(default_factory=list)
    subscriptions: dict[str, SubscriptionData] = field(default_factory=dict)
    consume_type: str = ""
    message_model: str = ""
    consume_from_where: str = ""

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> ConsumerConnection:
        table = obj.get("subscriptionTable") or {}
        if not isinstance(table, dict):
            raise ValueError("subscriptionTable is not an object")
        subs = {str(t): SubscriptionData.from_json(s) for t, s in table.items() if isinstance(s, dict)}
        return cls(
            _connections(obj),
            dict(sorted(subs.items())),
            str(obj.get("consumeType") or ""),
            str(obj.get("messageModel") or ""),
            str(obj.get("consumeFromWhere") or ""),
        )

    def wire_json(self) -> dict[str, Any]:
        return {
            "connectionSet": [c.wire_json() for c in self.connections],
            "consumeFromWhere": self.consume_from_where,
            "consumeType": self.consume_type,
            "messageModel": self.message_model,
            "subscriptionTable": {t: s.to_json() for t, s in self.subscriptions.items()},
        }

    def min_version(self) -> int:
        """The oldest client's version (Java's ``computeMinVersion``), 0 when nobody is connected."""
        return min((c.version for c in self.connections), default=0)

    def merge(self, other: ConsumerConnection) -> None:
        """Add the clients another broker sees (a client may be connected to some brokers only)."""
        known = {c.client_id for c in self.connections}
        self.connections = sorted(
            [*self.connections, *(c for c in other.connections if c.client_id not in known)], key=lambda c: c.client_id
        )
        for topic, sub in other.subscriptions.items():
            self.subscriptions.setdefault(topic, sub)
        self.subscriptions = dict(sorted(self.subscriptions.items()))
        self.consume_type = self.consume_type or other.consume_type
        self.message_model = self.message_model or other.message_model
        self.consume_from_where = self.consume_from_where or other.consume_from_where


def producer_connections(obj: dict[str, Any]) -> list[Connection]:
    """ProducerConnection: ``{"connectionSet": [...]}``."""
    return _connections(obj)


@dataclass(frozen=True, slots=True)
class ProducerInfo:
    client_id: str
    remote_ip: str
    language: str
    version: int
    last_update_timestamp: int

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> ProducerInfo:
        return cls(
            str(obj.get("clientId") or ""),
            str(obj.get("remoteIP") or ""),
            str(obj.get("language") or ""),
            _int(obj.get("version")),
            _int(obj.get("lastUpdateTimestamp")),
        )

    def wire_json(self) -> dict[str, Any]:
        return {
            "clientId": self.client_id,
            "language": self.language,
            "lastUpdateTimestamp": self.last_update_timestamp,
            "remoteIP": self.remote_ip,
            "version": self.version,
        }


def producer_table(obj: dict[str, Any]) -> dict[str, list[ProducerInfo]]:
    """ProducerTableInfo: ``{"data": {group: [ProducerInfo, ...]}}``, groups sorted."""
    data = obj.get("data") or {}
    if not isinstance(data, dict):
        raise ValueError("data is not an object")
    return {
        str(g): [ProducerInfo.from_json(p) for p in items or [] if isinstance(p, dict)]
        for g, items in sorted(data.items())
    }


@dataclass(slots=True)
class ConsumerRunningInfo:
    """A consumer's own view of itself. Process-queue and status entries are kept as the client sent
    them (field names differ between Java, C++ and Node clients)."""

    properties: dict[str, str] = field(default_factory=dict)
    subscriptions: list[SubscriptionData] = field(default_factory=list)
    mq_table: dict[MessageQueue, dict[str, Any]] = field(default_factory=dict)
    mq_pop_table: dict[MessageQueue, dict[str, Any]] = field(default_factory=dict)
    status_table: dict[str, dict[str, Any]] = field(default_factory=dict)
    user_consumer_info: dict[str, str] = field(default_factory=dict)
    jstack: str | None = None

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> ConsumerRunningInfo:
        props = obj.get("properties") or {}
        subs = obj.get("subscriptionSet") or []
        status = obj.get("statusTable") or {}
        user = obj.get("userConsumerInfo") or {}
        if not all(isinstance(x, dict) for x in (props, status, user)) or not isinstance(subs, list):
            raise ValueError("properties, statusTable and userConsumerInfo must be objects, subscriptionSet a list")
        return cls(
            {str(k): str(v) for k, v in sorted(props.items())},
            sorted((SubscriptionData.from_json(s) for s in subs if isinstance(s, dict)), key=lambda s: s.topic),
            read_mq_map(obj.get("mqTable"), _entry),
            read_mq_map(obj.get("mqPopTable"), _entry),
            {str(t): _entry(v) for t, v in sorted(status.items())},
            {str(k): str(v) for k, v in sorted(user.items())},
            str(obj["jstack"]) if obj.get("jstack") is not None else None,
        )

    def wire_json(self) -> dict[str, Any]:
        """The client's form; queue keys are the queues' JSON text, which fastjson reads as well."""
        out: dict[str, Any] = {
            "properties": self.properties,
            "subscriptionSet": [s.to_json() for s in self.subscriptions],
            "mqTable": {fastjson.dumps(mq.to_json()): pq for mq, pq in self.mq_table.items()},
            "mqPopTable": {fastjson.dumps(mq.to_json()): pq for mq, pq in self.mq_pop_table.items()},
            "statusTable": self.status_table,
            "userConsumerInfo": self.user_consumer_info,
        }
        if self.jstack is not None:
            out["jstack"] = self.jstack
        return out

    @property
    def consume_type(self) -> str:
        return self.properties.get("PROP_CONSUME_TYPE", "")

    @property
    def orderly(self) -> bool:
        return self.properties.get("PROP_CONSUMEORDERLY", "").lower() == "true"

    @property
    def start_timestamp(self) -> int:
        return _int(self.properties.get("PROP_CONSUMER_START_TIMESTAMP"))


def _entry(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"expected an object, not {type(value).__name__}")
    return value
