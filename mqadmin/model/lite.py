"""Lite topics (RocketMQ 5.5): the bodies a broker's LiteManagerProcessor answers with.

A lite topic is a child of a parent topic whose ``message.type`` is ``LITE``; it is stored as the light
message queue ``%LMQ%$<parent>$<lite>``. A lite consumer group is bound to one parent topic
(``liteBindTopic``). ``to_json`` writes each body as the broker sends it (Java's field names; 0 or -1
for "never").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

LMQ_PREFIX = "%LMQ%"


def lmq_name(parent_topic: str, lite_topic: str) -> str:
    """The light message queue that stores a lite topic (Java LiteUtil.toLmqName)."""
    return f"{LMQ_PREFIX}${parent_topic}${lite_topic}"


def _int(obj: Mapping[str, Any], key: str, default: int = 0) -> int:
    value = obj.get(key)
    return default if value is None else int(value)


def _strings(value: Any) -> list[str]:
    return sorted(str(v) for v in value or [])


@dataclass(frozen=True, slots=True)
class BrokerLiteInfo:
    store_type: str
    max_lmq_num: int
    current_lmq_num: int
    lite_subscription_count: int
    order_info_count: int
    cq_table_size: int
    offset_table_size: int
    event_map_size: int
    topic_meta: dict[str, int] = field(default_factory=dict)
    """Parent topic → lite topic TTL (the topic's ``lite.expiration``)."""
    group_meta: dict[str, list[str]] = field(default_factory=dict)
    """Parent topic → the lite groups bound to it."""

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> BrokerLiteInfo:
        return cls(
            store_type=str(obj.get("storeType") or ""),
            max_lmq_num=_int(obj, "maxLmqNum"),
            current_lmq_num=_int(obj, "currentLmqNum"),
            lite_subscription_count=_int(obj, "liteSubscriptionCount"),
            order_info_count=_int(obj, "orderInfoCount"),
            cq_table_size=_int(obj, "cqTableSize"),
            offset_table_size=_int(obj, "offsetTableSize"),
            event_map_size=_int(obj, "eventMapSize"),
            topic_meta={str(k): int(v) for k, v in (obj.get("topicMeta") or {}).items()},
            group_meta={str(k): _strings(v) for k, v in (obj.get("groupMeta") or {}).items()},
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "storeType": self.store_type,
            "maxLmqNum": self.max_lmq_num,
            "currentLmqNum": self.current_lmq_num,
            "liteSubscriptionCount": self.lite_subscription_count,
            "orderInfoCount": self.order_info_count,
            "cqTableSize": self.cq_table_size,
            "offsetTableSize": self.offset_table_size,
            "eventMapSize": self.event_map_size,
            "topicMeta": dict(self.topic_meta),
            "groupMeta": {k: list(v) for k, v in self.group_meta.items()},
        }


@dataclass(frozen=True, slots=True)
class ParentTopicInfo:
    topic: str
    ttl: int
    lite_topic_count: int
    lmq_num: int
    groups: list[str]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> ParentTopicInfo:
        return cls(
            topic=str(obj.get("topic") or ""),
            ttl=_int(obj, "ttl"),
            lite_topic_count=_int(obj, "liteTopicCount"),
            lmq_num=_int(obj, "lmqNum"),
            groups=_strings(obj.get("groups")),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "topic": self.topic,
            "ttl": self.ttl,
            "liteTopicCount": self.lite_topic_count,
            "lmqNum": self.lmq_num,
            "groups": list(self.groups),
        }


@dataclass(frozen=True, slots=True)
class LiteTopicInfo:
    parent_topic: str
    lite_topic: str
    min_offset: int
    max_offset: int
    last_update_timestamp: int
    sharding_to_broker: bool
    subscribers: list[tuple[str, str]]
    """(clientId, group); clientId ``*`` for a wildcard group."""

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> LiteTopicInfo:
        offset = obj.get("topicOffset") or {}
        subs = sorted((str(s.get("clientId") or ""), str(s.get("group") or "")) for s in obj.get("subscriber") or [])
        return cls(
            parent_topic=str(obj.get("parentTopic") or ""),
            lite_topic=str(obj.get("liteTopic") or ""),
            min_offset=_int(offset, "minOffset"),
            max_offset=_int(offset, "maxOffset"),
            last_update_timestamp=_int(offset, "lastUpdateTimestamp"),
            sharding_to_broker=bool(obj.get("shardingToBroker", False)),
            subscribers=subs,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "parentTopic": self.parent_topic,
            "liteTopic": self.lite_topic,
            "subscriber": [{"clientId": c, "group": g} for c, g in self.subscribers],
            "topicOffset": {
                "minOffset": self.min_offset,
                "maxOffset": self.max_offset,
                "lastUpdateTimestamp": self.last_update_timestamp,
            },
            "shardingToBroker": self.sharding_to_broker,
        }


@dataclass(frozen=True, slots=True)
class LiteClientInfo:
    parent_topic: str
    group: str
    client_id: str
    lite_topic_count: int
    """-1 when the broker has no lite subscription of this client."""
    lite_topics: list[str]
    last_access_time: int
    last_consume_time: int

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> LiteClientInfo:
        return cls(
            parent_topic=str(obj.get("parentTopic") or ""),
            group=str(obj.get("group") or ""),
            client_id=str(obj.get("clientId") or ""),
            lite_topic_count=_int(obj, "liteTopicCount"),
            lite_topics=_strings(obj.get("liteTopicSet")),
            last_access_time=_int(obj, "lastAccessTime"),
            last_consume_time=_int(obj, "lastConsumeTime"),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "parentTopic": self.parent_topic,
            "group": self.group,
            "clientId": self.client_id,
            "liteTopicCount": self.lite_topic_count,
            "liteTopicSet": list(self.lite_topics),
            "lastAccessTime": self.last_access_time,
            "lastConsumeTime": self.last_consume_time,
        }


@dataclass(frozen=True, slots=True)
class LiteLag:
    lite_topic: str
    lag_count: int
    earliest_unconsumed_timestamp: int

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> LiteLag:
        return cls(str(obj.get("liteTopic") or ""), _int(obj, "lagCount"), _int(obj, "earliestUnconsumedTimestamp", -1))

    def to_json(self) -> dict[str, Any]:
        ts = self.earliest_unconsumed_timestamp
        return {"liteTopic": self.lite_topic, "lagCount": self.lag_count, "earliestUnconsumedTimestamp": ts}


@dataclass(frozen=True, slots=True)
class LiteOffsets:
    broker_offset: int
    consumer_offset: int
    last_timestamp: int

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> LiteOffsets:
        return cls(_int(obj, "brokerOffset"), _int(obj, "consumerOffset"), _int(obj, "lastTimestamp"))

    def to_json(self) -> dict[str, Any]:
        return {
            "brokerOffset": self.broker_offset,
            "consumerOffset": self.consumer_offset,
            "pullOffset": 0,
            "lastTimestamp": self.last_timestamp,
        }


@dataclass(frozen=True, slots=True)
class LiteGroupInfo:
    group: str
    parent_topic: str
    lite_topic: str | None
    total_lag_count: int
    earliest_unconsumed_timestamp: int
    lite_topic_offsets: LiteOffsets | None
    lag_count_top_k: list[LiteLag]
    lag_timestamp_top_k: list[LiteLag]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> LiteGroupInfo:
        offsets = obj.get("liteTopicOffsetWrapper")
        return cls(
            group=str(obj.get("group") or ""),
            parent_topic=str(obj.get("parentTopic") or ""),
            lite_topic=obj.get("liteTopic") or None,
            total_lag_count=_int(obj, "totalLagCount"),
            earliest_unconsumed_timestamp=_int(obj, "earliestUnconsumedTimestamp", -1),
            lite_topic_offsets=LiteOffsets.from_json(offsets) if offsets else None,
            lag_count_top_k=[LiteLag.from_json(i) for i in obj.get("lagCountTopK") or []],
            lag_timestamp_top_k=[LiteLag.from_json(i) for i in obj.get("lagTimestampTopK") or []],
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "parentTopic": self.parent_topic,
            "liteTopic": self.lite_topic,
            "totalLagCount": self.total_lag_count,
            "earliestUnconsumedTimestamp": self.earliest_unconsumed_timestamp,
            "liteTopicOffsetWrapper": self.lite_topic_offsets.to_json() if self.lite_topic_offsets else None,
            "lagCountTopK": [i.to_json() for i in self.lag_count_top_k],
            "lagTimestampTopK": [i.to_json() for i in self.lag_timestamp_top_k],
        }
