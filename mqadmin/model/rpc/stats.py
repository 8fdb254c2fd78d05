"""Broker requests behind statsAll and the export commands: one statistics item (315) and the broker's
system topics (305). (The groups consuming a topic, 300, are in ``topics``; a group's consumer
connections, 203, in ``clients``.)"""

from __future__ import annotations

from dataclasses import dataclass

from mqadmin.model.broker_stats import BrokerStatsData
from mqadmin.model.rpc.bodies import TOPIC_LIST, JsonBody
from mqadmin.model.rpc.spec import Header, Rpc, wire

VIEW_BROKER_STATS_DATA_CODE = 315
GET_SYSTEM_TOPIC_LIST_FROM_BROKER_CODE = 305


@dataclass(frozen=True, slots=True, kw_only=True)
class StatsItemHeader(Header):
    stats_name: str = wire("statsName")
    stats_key: str = wire("statsKey")


BROKER_STATS_DATA = JsonBody("BrokerStatsData", BrokerStatsData.from_json, BrokerStatsData.to_json)

VIEW_BROKER_STATS_DATA = Rpc(
    VIEW_BROKER_STATS_DATA_CODE, "VIEW_BROKER_STATS_DATA", StatsItemHeader, response_body=BROKER_STATS_DATA,
    summary="one statistics item (e.g. TOPIC_PUT_NUMS of a topic) over the last minute, hour and day",
)  # fmt: skip
GET_SYSTEM_TOPIC_LIST_FROM_BROKER = Rpc(
    GET_SYSTEM_TOPIC_LIST_FROM_BROKER_CODE, "GET_SYSTEM_TOPIC_LIST_FROM_BROKER", response_body=TOPIC_LIST,
    summary="the topics the broker treats as system topics",
)  # fmt: skip
