"""ConsumeStatsList (GET_BROKER_CONSUME_STATS, 317): every subscription group's progress on one broker."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqadmin.model.consume import ConsumeStats, ConsumeStatsBody, consume_stats_of
from mqadmin.model.queue import loads_mq_keyed
from mqadmin.wire import fastjson


@dataclass(slots=True)
class BrokerConsumeStats:
    """Per group, one ConsumeStats per topic the group has offsets for (Java's ``consumeStatsList``)."""

    broker_addr: str = ""
    groups: dict[str, list[ConsumeStats]] = field(default_factory=dict)
    total_diff: int = 0
    total_inflight_diff: int = 0


class BrokerConsumeStatsBody:
    """ConsumeStatsList as a Java broker writes it: a list of one-entry maps, group → list of ConsumeStats,
    each keyed by whole MessageQueue objects."""

    name = "ConsumeStatsList"
    json = True

    def encode(self, value: BrokerConsumeStats) -> bytes:
        stats = ConsumeStatsBody()
        entries = [
            "{" + fastjson.dumps(group) + ":[" + ",".join(stats.encode(s).decode() for s in per_topic) + "]}"
            for group, per_topic in value.groups.items()
        ]
        fields = {
            "brokerAddr": value.broker_addr,
            "totalDiff": value.total_diff,
            "totalInflightDiff": value.total_inflight_diff,
        }
        items = [f"{fastjson.dumps(k)}:{fastjson.dumps(v)}" for k, v in fields.items()]
        items.append('"consumeStatsList":[' + ",".join(entries) + "]")
        return ("{" + ",".join(sorted(items)) + "}").encode()

    def decode(self, data: bytes) -> BrokerConsumeStats:
        obj: dict[str, Any] = loads_mq_keyed(data)
        groups: dict[str, list[ConsumeStats]] = {}
        for entry in obj.get("consumeStatsList") or []:
            for group, per_topic in (entry or {}).items():
                groups.setdefault(str(group), []).extend(consume_stats_of(s or {}) for s in per_topic or [])
        return BrokerConsumeStats(
            str(obj.get("brokerAddr") or ""),
            groups,
            int(obj.get("totalDiff") or 0),
            int(obj.get("totalInflightDiff") or 0),
        )
