"""MessageQueue (topic, broker name, queue id) and the fastjson maps keyed by whole MessageQueue objects.

Java writes ``Map<MessageQueue, V>`` with the object itself as the key
(``{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:12}}``); ``fastjson.loads`` reads that
form and ``fastjson.dumps_object_keyed`` writes it. Queues sort as Java's ``MessageQueue.compareTo``:
topic, broker name, queue id.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

from mqadmin.wire import fastjson

V = TypeVar("V")


_NAMES_ONLY = re.compile(r'(?:[^"]++|"[\w%|.\-]*+")*+')
"""Text whose every string is a plain name or key (no quote, brace, comma or colon can hide in one)."""
_OBJECT_KEY = re.compile(r'(?<=[{,])(\{[^{}"]*+(?:"[^"]*+"[^{}"]*+)*+\})(?=:)')


def _quoted_key(m: re.Match[str]) -> str:
    return json.dumps(fastjson.dumps(json.loads(m.group(1))))


def loads_mq_keyed(data: bytes) -> Any:
    """``fastjson.loads`` for bodies keyed by whole MessageQueue objects, several times faster: when every
    string in the body is a plain name, each object key is quoted (as the compact JSON text ``fastjson.loads``
    gives such a key) and the standard parser reads the rest. Anything else goes to ``fastjson.loads``."""
    text = data.decode("utf-8")
    if _NAMES_ONLY.fullmatch(text):
        try:
            return json.loads(_OBJECT_KEY.sub(_quoted_key, text))
        except ValueError:
            pass
    return fastjson.loads(text)


class MessageQueue(NamedTuple):
    topic: str
    broker_name: str
    queue_id: int

    def to_json(self) -> dict[str, Any]:
        return {"brokerName": self.broker_name, "queueId": self.queue_id, "topic": self.topic}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> MessageQueue:
        return cls(str(obj.get("topic") or ""), str(obj.get("brokerName") or ""), int(obj.get("queueId") or 0))


def read_mq_map(table: Any, value: Callable[[Any], V]) -> dict[MessageQueue, V]:
    """A decoded ``Map<MessageQueue, V>`` (keys are the objects' JSON text), sorted as Java sorts queues."""
    if not table:
        return {}
    if not isinstance(table, dict):
        raise ValueError(f"expected a map keyed by MessageQueue, not {type(table).__name__}")
    items = [(MessageQueue.from_json(fastjson.object_key(k)), value(v)) for k, v in table.items()]
    return dict(sorted(items))


def mq_rows(table: dict[MessageQueue, V], value: Callable[[V], Any]) -> list[tuple[dict[str, Any], Any]]:
    """``table`` as (key object, value JSON) rows for ``fastjson.dumps_object_keyed``."""
    return [(mq.to_json(), value(v)) for mq, v in sorted(table.items())]


def mq_map_text(table: dict[MessageQueue, V], value: Callable[[V], Any]) -> str:
    """``Map<MessageQueue, V>`` as the JSON text Java writes, for maps nested deeper than one level."""
    return "{" + ",".join(f"{fastjson.dumps(k)}:{fastjson.dumps(v)}" for k, v in mq_rows(table, value)) + "}"


def queue_json(mq: MessageQueue, **fields: Any) -> dict[str, Any]:
    """The queue as our JSON output names it, followed by ``fields``."""
    return {"topic": mq.topic, "brokerName": mq.broker_name, "queueId": mq.queue_id, **fields}
