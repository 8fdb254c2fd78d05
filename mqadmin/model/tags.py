"""Java ``String.hashCode``, message tags codes and tag subscription expressions.

The broker's consume queue stores each message's tags as ``TAGS.hashCode()`` so a pull can filter
without reading the message; producers choose an ordered queue as ``abs(key.hashCode() % n)``
(``SelectMessageQueueByHash``). Both must match Java bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

SUB_ALL = "*"


@lru_cache(maxsize=4096)
def java_string_hash(s: str) -> int:
    """``String.hashCode()``: ``h = 31*h + c`` over UTF-16 code units, as a signed 32-bit int."""
    h = 0
    if s.isascii():
        for ch in s:
            h = (31 * h + ord(ch)) & 0xFFFFFFFF
    else:
        data = s.encode("utf-16-be")
        for i in range(0, len(data), 2):
            h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def tags_code(tags: str | None) -> int:
    """The consume-queue tags code of a message: 0 without tags."""
    return java_string_hash(tags) if tags else 0


def hash_index(key: str, n: int) -> int:
    """``SelectMessageQueueByHash``: ``abs(key.hashCode() % n)`` with Java's truncating ``%``."""
    return abs(java_string_hash(key)) % n


@dataclass(slots=True)
class SubscriptionData:
    """A consumer's subscription to one topic (HeartbeatData / ConsumerConnection JSON)."""

    topic: str
    sub_string: str = SUB_ALL
    tags: frozenset[str] = frozenset()
    codes: frozenset[int] = frozenset()
    sub_version: int = 0
    expression_type: str = "TAG"
    class_filter_mode: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def matches_all(self) -> bool:
        return self.sub_string == SUB_ALL

    def match_code(self, code: int) -> bool:
        return self.matches_all or code in self.codes

    def match_tags(self, tags: str | None) -> bool:
        return self.matches_all or (tags is not None and tags in self.tags)

    def to_json(self) -> dict[str, Any]:
        return {
            "classFilterMode": self.class_filter_mode,
            "codeSet": sorted(self.codes),
            "expressionType": self.expression_type,
            "subString": self.sub_string,
            "subVersion": self.sub_version,
            "tagsSet": sorted(self.tags),
            "topic": self.topic,
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> SubscriptionData:
        """Tolerant of what clients send: subVersion as a string (C++), missing sets, null expression."""
        sub = build_subscription(
            str(obj.get("topic") or ""), _str_or_none(obj.get("subString")), _int(obj, "subVersion")
        )
        sub.expression_type = str(obj.get("expressionType") or "TAG")
        sub.class_filter_mode = bool(obj.get("classFilterMode") or False)
        return sub


def build_subscription(topic: str, expression: str | None, sub_version: int = 0) -> SubscriptionData:
    """``FilterAPI.build``: blank or ``*`` subscribes to everything, else ``a || b`` names tags."""
    expr = (expression or "").strip()
    if not expr or expr == SUB_ALL:
        return SubscriptionData(topic=topic, sub_string=SUB_ALL, sub_version=sub_version)
    tags = frozenset(t.strip() for t in expr.split("||") if t.strip())
    return SubscriptionData(
        topic=topic,
        sub_string=expr,
        tags=tags,
        codes=frozenset(java_string_hash(t) for t in tags),
        sub_version=sub_version,
    )


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def _int(obj: dict[str, Any], key: str) -> int:
    try:
        return int(obj.get(key) or 0)
    except (TypeError, ValueError):
        return 0
