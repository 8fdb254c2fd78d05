"""VIEW_BROKER_STATS_DATA (315): the put and get counts the message path keeps (``rates.py``), as Java's
BrokerStatsData over the last minute, hour and day.

The embedded broker counts TOPIC_PUT_NUMS (key: the topic) and GROUP_GET_NUMS (key: ``topic@group``). Any
other item, or one nothing was counted for yet, gets Java's answer for an item it does not have: SYSTEM_ERROR
``The stats <name> <key> not exist``.
"""

from __future__ import annotations

from typing import Any

from mqadmin.model.broker_stats import (
    GROUP_GET_NUMS,
    TOPIC_PUT_NUMS,
    BrokerStatsData,
    StatsWindow,
    stats_not_exist_remark,
)
from mqadmin.model.rpc import Decoded
from mqadmin.model.rpc.stats import VIEW_BROKER_STATS_DATA, StatsItemHeader
from mqadmin.server.broker.rates import DAY, HOUR, WINDOW, Rates
from mqadmin.server.remoting import DecodedHandler
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand


def stats_item_view(rates: Rates) -> DecodedHandler:
    """The handler of VIEW_BROKER_STATS_DATA over these counts."""

    async def view(req: Decoded[StatsItemHeader, Any], ch: object) -> RemotingCommand:
        name, key = req.header.stats_name, req.header.stats_key
        counts = item_counts(rates, name, key)
        if counts is None:
            return VIEW_BROKER_STATS_DATA.answer(
                req.cmd, code=ResponseCode.SYSTEM_ERROR, remark=stats_not_exist_remark(name, key)
            )
        return VIEW_BROKER_STATS_DATA.answer(req.cmd, body=stats_data(*counts))

    return view


def item_counts(rates: Rates, name: str, key: str) -> tuple[int, int, int] | None:
    if name == TOPIC_PUT_NUMS:
        return rates.put_counts(key)
    if name == GROUP_GET_NUMS:
        topic, sep, group = key.partition("@")
        return rates.get_counts(group, topic) if sep else None
    return None


def stats_data(minute: int, hour: int, day: int) -> BrokerStatsData:
    """Counts per window, with the per-second rate over each window's length."""
    return BrokerStatsData(
        StatsWindow(minute, round(minute / WINDOW, 2)),
        StatsWindow(hour, round(hour / HOUR, 2)),
        StatsWindow(day, round(day / DAY, 4)),
    )
