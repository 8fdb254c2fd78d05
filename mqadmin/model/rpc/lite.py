"""Lite-topic requests a 5.5 broker answers (LiteManagerProcessor): a broker's lite metadata, a parent
topic's lite topics and groups, one lite topic's offsets and subscribers, a client's or a group's lite
subscriptions and lag, and a full dispatch of a group's lite events. Older brokers answer
REQUEST_CODE_NOT_SUPPORTED."""

from __future__ import annotations

from dataclasses import dataclass

from mqadmin.model.lite import BrokerLiteInfo, LiteClientInfo, LiteGroupInfo, LiteTopicInfo, ParentTopicInfo
from mqadmin.model.rpc.bodies import JsonBody
from mqadmin.model.rpc.spec import Header, Rpc, wire

GET_BROKER_LITE_INFO_CODE = 200074
GET_PARENT_TOPIC_INFO_CODE = 200075
GET_LITE_TOPIC_INFO_CODE = 200076
GET_LITE_CLIENT_INFO_CODE = 200077
GET_LITE_GROUP_INFO_CODE = 200078
TRIGGER_LITE_DISPATCH_CODE = 200079
LITE_CODES = (
    GET_BROKER_LITE_INFO_CODE,
    GET_PARENT_TOPIC_INFO_CODE,
    GET_LITE_TOPIC_INFO_CODE,
    GET_LITE_CLIENT_INFO_CODE,
    GET_LITE_GROUP_INFO_CODE,
    TRIGGER_LITE_DISPATCH_CODE,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ParentTopicHeader(Header):
    topic: str = wire("topic")


@dataclass(frozen=True, slots=True, kw_only=True)
class LiteTopicHeader(Header):
    parent_topic: str | None = wire("parentTopic", None)
    lite_topic: str | None = wire("liteTopic", None)


@dataclass(frozen=True, slots=True, kw_only=True)
class LiteClientHeader(Header):
    parent_topic: str | None = wire("parentTopic", None)
    group: str | None = wire("group", None)
    client_id: str | None = wire("clientId", None)
    max_count: int = wire("maxCount", 1000)


@dataclass(frozen=True, slots=True, kw_only=True)
class LiteGroupHeader(Header):
    group: str = wire("group")
    lite_topic: str | None = wire("liteTopic", None)
    top_k: int = wire("topK", 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class TriggerLiteDispatchHeader(Header):
    group: str = wire("group")
    client_id: str | None = wire("clientId", None)


BROKER_LITE_INFO = JsonBody("GetBrokerLiteInfoResponseBody", BrokerLiteInfo.from_json, BrokerLiteInfo.to_json)
PARENT_TOPIC_INFO = JsonBody("GetParentTopicInfoResponseBody", ParentTopicInfo.from_json, ParentTopicInfo.to_json)
LITE_TOPIC_INFO = JsonBody("GetLiteTopicInfoResponseBody", LiteTopicInfo.from_json, LiteTopicInfo.to_json)
LITE_CLIENT_INFO = JsonBody("GetLiteClientInfoResponseBody", LiteClientInfo.from_json, LiteClientInfo.to_json)
LITE_GROUP_INFO = JsonBody("GetLiteGroupInfoResponseBody", LiteGroupInfo.from_json, LiteGroupInfo.to_json)

GET_BROKER_LITE_INFO = Rpc(
    GET_BROKER_LITE_INFO_CODE, "GET_BROKER_LITE_INFO", response_body=BROKER_LITE_INFO,
    summary="a broker's lite metadata: store type, LMQ counts, subscriptions, table sizes (5.5)",
)  # fmt: skip
GET_PARENT_TOPIC_INFO = Rpc(
    GET_PARENT_TOPIC_INFO_CODE, "GET_PARENT_TOPIC_INFO", ParentTopicHeader,
    response_body=PARENT_TOPIC_INFO,
    summary="a lite parent topic on this broker: TTL, lite topic count, LMQ count, groups (5.5)",
)  # fmt: skip
GET_LITE_TOPIC_INFO = Rpc(
    GET_LITE_TOPIC_INFO_CODE, "GET_LITE_TOPIC_INFO", LiteTopicHeader, response_body=LITE_TOPIC_INFO,
    summary="one lite topic on this broker: offsets, subscribers, whether it is sharded here (5.5)",
)  # fmt: skip
GET_LITE_CLIENT_INFO = Rpc(
    GET_LITE_CLIENT_INFO_CODE, "GET_LITE_CLIENT_INFO", LiteClientHeader,
    response_body=LITE_CLIENT_INFO,
    summary="one client's lite subscriptions and last access on this broker (5.5)",
)  # fmt: skip
GET_LITE_GROUP_INFO = Rpc(
    GET_LITE_GROUP_INFO_CODE, "GET_LITE_GROUP_INFO", LiteGroupHeader, response_body=LITE_GROUP_INFO,
    summary="a lite group's lag on this broker: total, top K lite topics, or one lite topic's offsets (5.5)",
)  # fmt: skip
TRIGGER_LITE_DISPATCH = Rpc(
    TRIGGER_LITE_DISPATCH_CODE, "TRIGGER_LITE_DISPATCH", TriggerLiteDispatchHeader,
    summary="dispatch every lite event of a group (or one client) again (5.5)",
)  # fmt: skip
