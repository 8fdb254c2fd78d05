"""TopicStatsTable (GET_TOPIC_STATS_INFO, 202) and KVTable bodies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqadmin.model.queue import loads_mq_keyed
from mqadmin.wire import fastjson


@dataclass(slots=True, frozen=True)
class QueueOffsets:
    topic: str
    broker_name: str
    queue_id: int
    min_offset: int
    max_offset: int
    last_update_timestamp: int  # ms since the epoch; 0 = never written


def topic_stats_from_body(body: bytes) -> list[QueueOffsets]:
    return topic_stats_from_json(fastjson.loads(body))


def topic_stats_from_json(obj: dict[str, Any]) -> list[QueueOffsets]:
    """Read a TopicStatsTable; its ``offsetTable`` is keyed by whole MessageQueue objects."""
    table = obj.get("offsetTable") or {}
    out = []
    for key, value in table.items():
        mq = fastjson.object_key(key)
        out.append(
            QueueOffsets(
                topic=str(mq.get("topic", "")),
                broker_name=str(mq.get("brokerName", "")),
                queue_id=int(mq.get("queueId", 0)),
                min_offset=int(value.get("minOffset", 0)),
                max_offset=int(value.get("maxOffset", 0)),
                last_update_timestamp=int(value.get("lastUpdateTimestamp", 0)),
            )
        )
    return sorted(out, key=lambda q: (q.topic, q.broker_name, q.queue_id))


def kv_table_from_body(body: bytes) -> dict[str, str]:
    """``{"table": {k: v}}`` (runtime info, KV lists): every value as a string."""
    table = fastjson.loads(body).get("table") or {}
    return {str(k): str(v) for k, v in table.items()}


class TopicStatsBody:
    """TopicStatsTable (GET_TOPIC_STATS_INFO, 202), written with MessageQueue objects as keys."""

    name = "TopicStatsTable"

    def encode(self, value: list[QueueOffsets]) -> bytes:
        table = [
            (
                {"brokerName": q.broker_name, "queueId": q.queue_id, "topic": q.topic},
                {"lastUpdateTimestamp": q.last_update_timestamp, "maxOffset": q.max_offset, "minOffset": q.min_offset},
            )
            for q in value
        ]
        return fastjson.dumps_object_keyed({}, table, "offsetTable")

    def decode(self, data: bytes) -> list[QueueOffsets]:
        return topic_stats_from_json(loads_mq_keyed(data))
