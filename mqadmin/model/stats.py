"""TopicStatsTable (GET_TOPIC_STATS_INFO, 202)."""

from __future__ import annotations

from dataclasses import dataclass, field

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


@dataclass(slots=True)
class TopicStats:
    """TopicStatsTable: each queue's offsets, and the topic's put TPS (5.x)."""

    queues: list[QueueOffsets] = field(default_factory=list)
    put_tps: float | None = None


class TopicStatsBody:
    """TopicStatsTable (GET_TOPIC_STATS_INFO, 202), written with MessageQueue objects as keys."""

    name = "TopicStatsTable"
    json = True

    def encode(self, value: TopicStats) -> bytes:
        table = [
            (
                {"brokerName": q.broker_name, "queueId": q.queue_id, "topic": q.topic},
                {"lastUpdateTimestamp": q.last_update_timestamp, "maxOffset": q.max_offset, "minOffset": q.min_offset},
            )
            for q in value.queues
        ]
        fields = {} if value.put_tps is None else {"topicPutTps": value.put_tps}
        return fastjson.dumps_object_keyed(fields, table, "offsetTable")

    def decode(self, data: bytes) -> TopicStats:
        """Read a TopicStatsTable; its ``offsetTable`` is keyed by whole MessageQueue objects."""
        obj = loads_mq_keyed(data)
        out = []
        for key, value in (obj.get("offsetTable") or {}).items():
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
        put_tps = obj.get("topicPutTps")
        return TopicStats(
            sorted(out, key=lambda q: (q.topic, q.broker_name, q.queue_id)),
            float(put_tps) if isinstance(put_tps, int | float) else None,
        )
