"""BrokerStatsData (VIEW_BROKER_STATS_DATA, 315): one statistics item of a broker over the last minute,
hour and day, and the item names statsAll and exportMetrics ask for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

TOPIC_PUT_NUMS = "TOPIC_PUT_NUMS"
"""Messages put into a topic; the stats key is the topic."""
GROUP_GET_NUMS = "GROUP_GET_NUMS"
"""Messages a group got from a topic; the stats key is ``topic@group``."""


def group_stats_key(topic: str, group: str) -> str:
    return f"{topic}@{group}"


def stats_not_exist_remark(name: str, key: str) -> str:
    """A broker's answer (SYSTEM_ERROR) for an item it has no figures for (nothing counted yet)."""
    return f"The stats <{name}> <{key}> not exist"


@dataclass(frozen=True, slots=True)
class StatsWindow:
    """BrokerStatsItem: the count over the window, per second, and the average per call."""

    sum: int = 0
    tps: float = 0.0
    avgpt: float = 0.0

    @classmethod
    def from_json(cls, obj: Any) -> StatsWindow:
        obj = obj if isinstance(obj, dict) else {}
        return cls(int(obj.get("sum") or 0), float(obj.get("tps") or 0.0), float(obj.get("avgpt") or 0.0))

    def to_json(self) -> dict[str, Any]:
        return {"avgpt": self.avgpt, "sum": self.sum, "tps": self.tps}


@dataclass(frozen=True, slots=True)
class BrokerStatsData:
    minute: StatsWindow = StatsWindow()
    hour: StatsWindow = StatsWindow()
    day: StatsWindow = StatsWindow()

    @property
    def sum_24h(self) -> int:
        """Java statsAll's 24-hour figure: the day's sum, else the hour's, else the minute's."""
        return self.day.sum or self.hour.sum or self.minute.sum

    @classmethod
    def from_json(cls, obj: Any) -> BrokerStatsData:
        return cls(
            StatsWindow.from_json(obj.get("statsMinute")),
            StatsWindow.from_json(obj.get("statsHour")),
            StatsWindow.from_json(obj.get("statsDay")),
        )

    def to_json(self) -> dict[str, Any]:
        return {"statsDay": self.day.to_json(), "statsHour": self.hour.to_json(), "statsMinute": self.minute.to_json()}
