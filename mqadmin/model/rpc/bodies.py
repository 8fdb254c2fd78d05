"""Body codecs for request declarations: fastjson objects read into model types, Java properties
text, and raw bytes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from mqadmin.wire import fastjson
from mqadmin.wire.properties import format_properties, parse_properties

T = TypeVar("T")


class JsonBody(Generic[T]):  # a plain class, not a frozen dataclass: 10x cheaper to define (start-up)
    """A fastjson object (relaxed form accepted when reading) mapped to and from a model type."""

    __slots__ = ("name", "from_json", "to_json", "tables")
    json = True  # a class attribute, as PropertiesBody's and RawBody's

    def __init__(
        self,
        name: str,
        from_json: Callable[[Any], T],
        to_json: Callable[[T], Any],
        tables: Mapping[str, Callable[[str, Any], Any]] | None = None,
    ) -> None:
        self.name = name
        self.from_json = from_json
        self.to_json = to_json
        self.tables = tables  # large tables among the members: read entry by entry, converted (as from_json gets them)

    def encode(self, value: T) -> bytes:
        return fastjson.dumps_bytes(self.to_json(value))

    def decode(self, data: bytes) -> T:
        try:
            obj = fastjson.loads_converting(data, self.tables) if self.tables else fastjson.loads(data)
            return self.from_json(obj)
        except (AttributeError, KeyError, TypeError, OverflowError) as e:  # a well-formed document of the wrong shape
            raise ValueError(f"{self.name}: {type(e).__name__}: {e}") from None


def _identity(value: Any) -> Any:
    return value


def _object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, not {type(value).__name__}")
    return value


def json_object(name: str) -> JsonBody[dict[str, Any]]:
    """A body kept as the JSON object it is (for shapes without a model type)."""
    return JsonBody(name, _object, _identity)


def _kv_table(obj: Any) -> dict[str, str]:
    table = _object(obj).get("table") or {}
    return {str(k): str(v) for k, v in table.items()}


KV_TABLE: JsonBody[dict[str, str]] = JsonBody("KVTable", _kv_table, lambda table: {"table": table})
"""``{"table": {k: v}}``: runtime info, KV namespaces, order configs; every value a string."""


def _topic_list(obj: Any) -> list[str]:
    return [str(t) for t in _object(obj).get("topicList") or []]


TOPIC_LIST: JsonBody[list[str]] = JsonBody("TopicList", _topic_list, lambda topics: {"topicList": topics})


class PropertiesBody:
    """Java ``Properties`` text (broker and name-server config)."""

    name = "properties"
    json = False

    def encode(self, value: dict[str, str]) -> bytes:
        return format_properties(value).encode()

    def decode(self, data: bytes) -> dict[str, str]:
        return parse_properties(data.decode("utf-8"))


PROPERTIES = PropertiesBody()


class RawBody:
    """Bytes as they are (message payloads, stored messages)."""

    name = "bytes"
    json = False

    def encode(self, value: bytes) -> bytes:
        return value

    def decode(self, data: bytes) -> bytes:
        return data


RAW = RawBody()
