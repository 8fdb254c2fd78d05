"""Broker requests behind statsAll and the export commands: one statistics item (315), the groups that
consume a topic (300), the broker's system topics (305), a group's consumer connections (203)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqadmin.model.broker_stats import BrokerStatsData
from mqadmin.model.rpc.bodies import TOPIC_LIST, JsonBody, json_object
from mqadmin.model.rpc.spec import Header, Rpc, wire
from mqadmin.model.rpc.topics import TopicHeader
from mqadmin.wire.codes import RequestCode as C

VIEW_BROKER_STATS_DATA_CODE = 315
GET_SYSTEM_TOPIC_LIST_FROM_BROKER_CODE = 305


@dataclass(frozen=True, slots=True, kw_only=True)
class StatsItemHeader(Header):
    stats_name: str = wire("statsName")
    stats_key: str = wire("statsKey")


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsumerGroupHeader(Header):
    consumer_group: str = wire("consumerGroup")


def _group_list(obj: Any) -> list[str]:
    return sorted(str(g) for g in obj.get("groupList") or [])


BROKER_STATS_DATA = JsonBody("BrokerStatsData", BrokerStatsData.from_json, BrokerStatsData.to_json)
GROUP_LIST = JsonBody("GroupList", _group_list, lambda groups: {"groupList": groups})

VIEW_BROKER_STATS_DATA = Rpc(
    VIEW_BROKER_STATS_DATA_CODE, "VIEW_BROKER_STATS_DATA", StatsItemHeader, response_body=BROKER_STATS_DATA,
    summary="one statistics item (e.g. TOPIC_PUT_NUMS of a topic) over the last minute, hour and day",
)  # fmt: skip
QUERY_TOPIC_CONSUME_BY_WHO = Rpc(
    C.QUERY_TOPIC_CONSUME_BY_WHO, "QUERY_TOPIC_CONSUME_BY_WHO", TopicHeader, response_body=GROUP_LIST,
    summary="the groups consuming a topic (online or with offsets) on this broker",
)  # fmt: skip
GET_SYSTEM_TOPIC_LIST_FROM_BROKER = Rpc(
    GET_SYSTEM_TOPIC_LIST_FROM_BROKER_CODE, "GET_SYSTEM_TOPIC_LIST_FROM_BROKER", response_body=TOPIC_LIST,
    summary="the topics the broker treats as system topics",
)  # fmt: skip
GET_CONSUMER_CONNECTION_LIST = Rpc(
    C.GET_CONSUMER_CONNECTION_LIST, "GET_CONSUMER_CONNECTION_LIST", ConsumerGroupHeader,
    response_body=json_object("ConsumerConnection"),
    summary="a group's online consumers (CONSUMER_NOT_ONLINE when none)",
)  # fmt: skip
