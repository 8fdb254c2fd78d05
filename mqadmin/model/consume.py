"""ConsumeStats (GET_CONSUME_STATS, 208): a group's progress per message queue."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqadmin.model.names import shown
from mqadmin.model.queue import loads_mq_keyed
from mqadmin.wire import fastjson


@dataclass(slots=True, frozen=True)
class QueueProgress:
    topic: str
    broker_name: str
    queue_id: int
    broker_offset: int
    consumer_offset: int
    pull_offset: int = 0
    last_timestamp: int = 0  # store time of the last consumed message, ms; 0 = none

    @property
    def lag(self) -> int:
        return max(self.broker_offset - self.consumer_offset, 0)

    @property
    def inflight(self) -> int:
        """Pulled but not yet committed (5.x brokers report the pull offset; 4.9 brokers do not: 0)."""
        return max(self.pull_offset - self.consumer_offset, 0)


@dataclass(slots=True)
class ConsumeStats:
    queues: list[QueueProgress] = field(default_factory=list)
    consume_tps: float = 0.0


def consume_stats_of(obj: dict[str, Any]) -> ConsumeStats:
    queues = []
    for key, value in (obj.get("offsetTable") or {}).items():
        mq = fastjson.object_key(key)
        queues.append(
            QueueProgress(
                topic=str(mq.get("topic", "")),
                broker_name=str(mq.get("brokerName", "")),
                queue_id=int(mq.get("queueId", 0)),
                broker_offset=int(value.get("brokerOffset", 0)),
                consumer_offset=int(value.get("consumerOffset", 0)),
                pull_offset=int(value.get("pullOffset", value.get("consumerOffset", 0))),
                last_timestamp=int(value.get("lastTimestamp", 0)),
            )
        )
    queues.sort(key=lambda q: (q.topic, q.broker_name, q.queue_id))
    return ConsumeStats(queues, float(obj.get("consumeTps") or 0.0))


class ConsumeStatsBody:
    """ConsumeStats, written with MessageQueue objects as keys as a Java broker writes it."""

    name = "ConsumeStats"
    json = True

    def encode(self, value: ConsumeStats) -> bytes:
        table = [
            (
                {"brokerName": q.broker_name, "queueId": q.queue_id, "topic": q.topic},
                {
                    "brokerOffset": q.broker_offset,
                    "consumerOffset": q.consumer_offset,
                    "lastTimestamp": q.last_timestamp,
                    "pullOffset": q.pull_offset,
                },
            )
            for q in value.queues
        ]
        return fastjson.dumps_object_keyed({"consumeTps": value.consume_tps}, table, "offsetTable")

    def decode(self, data: bytes) -> ConsumeStats:
        return consume_stats_of(loads_mq_keyed(data))


OFFSET_KEY_SEPARATOR = "@"
"""Between topic and group in an offset table's keys (a topic or group name cannot hold it)."""


def parse_offset_table(obj: Any) -> dict[str, dict[int, int]]:
    """A ConsumerOffsetManager's offsetTable (consumerOffset.json, GET_ALL_CONSUMER_OFFSET's body):
    ``topic@group`` -> queue id -> committed offset; ValueError naming the entry that cannot be used."""
    if not isinstance(obj, dict):
        raise ValueError("the offset table is not a JSON object")
    table = obj.get("offsetTable") or {}
    if not isinstance(table, dict):
        raise ValueError("offsetTable is not an object")
    out: dict[str, dict[int, int]] = {}
    for key, queues in table.items():
        if OFFSET_KEY_SEPARATOR not in key or not isinstance(queues, dict):
            raise ValueError(f"offsetTable entry {shown(key)} is not topic@group with an object of offsets")
        offsets: dict[int, int] = {}
        for qid, off in queues.items():
            if not str(qid).isdigit() or isinstance(off, bool) or not isinstance(off, int):
                raise ValueError(f"offsetTable[{shown(key)}]: {qid!r:.20}: {off!r:.20} is not queueId: offset")
            offsets[int(qid)] = off
        out[key] = offsets
    return out


def offset_table_json(table: dict[str, dict[int, int]]) -> dict[str, Any]:
    return {
        "offsetTable": {
            key: {str(q): off for q, off in sorted(queues.items())} for key, queues in sorted(table.items())
        }
    }
