"""TopicConfig, permission bits and attributes (the name rules and system topics are in ``mqadmin.model.names``)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, NoReturn

PERM_PRIORITY = 8
PERM_READ = 4
PERM_WRITE = 2
PERM_INHERIT = 1

DEFAULT_TOPIC = "TBW102"

ATTRIBUTE_VALUES: dict[str, tuple[str, ...]] = {
    "message.type": ("UNSPECIFIED", "NORMAL", "FIFO", "DELAY", "TRANSACTION", "PRIORITY", "LITE", "MIXED"),
    "queue.type": ("BatchCQ", "SimpleCQ"),
    "cleanup.policy": ("DELETE", "COMPACTION"),
}


def perm_to_string(perm: int) -> str:
    """``RW-`` style letters, as mqadmin prints them (R read, W write, X inherit)."""
    return (
        ("R" if perm & PERM_READ else "-") + ("W" if perm & PERM_WRITE else "-") + ("X" if perm & PERM_INHERIT else "-")
    )


def parse_attributes(spec: str) -> dict[str, str]:
    """``+message.type=FIFO,+k=v`` (mqadmin's -a) into ``{"message.type": "FIFO"}``.

    Known attribute values are matched case-insensitively and normalised to the spelling the
    broker expects (``fifo`` → ``FIFO``); unknown keys pass through unchanged.
    """
    out: dict[str, str] = {}
    for raw in (p.strip() for p in spec.split(",")):
        if not raw:
            continue
        if not raw.startswith("+"):
            raise ValueError(f"attribute {raw!r} must look like +key=value (only '+' is allowed on create)")
        key, sep, value = raw[1:].partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value:
            raise ValueError(f"attribute {raw!r} must look like +key=value")
        allowed = ATTRIBUTE_VALUES.get(key.lower())
        if allowed is not None:
            key = key.lower()
            match = next((a for a in allowed if a.lower() == value.lower()), None)
            if match is None:
                raise ValueError(f"attribute {key}={value!r} is not one of {', '.join(allowed)}")
            value = match
        out[key] = value
    return out


def attributes_to_wire(attrs: dict[str, str]) -> str:
    return ",".join(f"+{k}={v}" for k, v in sorted(attrs.items()))


def parse_attribute_ops(spec: str) -> dict[str, str | None]:
    """mqadmin's ``-a`` for an update: ``+key=value`` sets, ``-key`` removes (value None).

    Known keys and values are normalised as ``parse_attributes`` does; ValueError names a bad item.
    """
    ops: dict[str, str | None] = {}
    for raw in (p.strip() for p in spec.split(",")):
        if not raw:
            continue
        if raw.startswith("-"):
            key = raw[1:].strip()
            if not key or "=" in key:
                raise ValueError(f"attribute {raw!r} must look like -key to remove a key")
            key = key.lower() if key.lower() in ATTRIBUTE_VALUES else key
        else:
            ((key, value),) = parse_attributes(raw).items()
            ops[key] = value
            continue
        if key in ops:
            raise ValueError(f"attribute {key!r} is given twice")
        ops[key] = None
    return ops


def alter_attributes(current: dict[str, str], ops: dict[str, str | None]) -> dict[str, str]:
    """``current`` with ``ops`` applied (None removes a key)."""
    out = dict(current)
    for key, value in ops.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def attribute_ops(ops: Mapping[str, str | None]) -> str:
    """The wire form of attribute operations: ``+k=v`` and ``-k`` joined by commas, sorted by key."""
    return ",".join(f"+{k}={v}" if v is not None else f"-{k}" for k, v in sorted(ops.items()))


class _NoAttributes(dict[str, str]):
    """The attributes of a config read without any: one empty dict shared by all of them (a broker's table of
    100,000 topics holds 6 MiB less), which refuses to be changed, as the attributes of a frozen config must not
    be (a change makes a new config: ``with_(attributes=...)``)."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("a TopicConfig's attributes are not changed in place; use with_(attributes=...)")

    __setitem__ = __delitem__ = __ior__ = setdefault = update = pop = popitem = clear = _refuse


NO_ATTRIBUTES: dict[str, str] = _NoAttributes()


@dataclass(slots=True, frozen=True)
class TopicConfig:
    topic_name: str
    read_queue_nums: int = 8
    write_queue_nums: int = 8
    perm: int = PERM_READ | PERM_WRITE
    topic_filter_type: str = "SINGLE_TAG"
    topic_sys_flag: int = 0
    order: bool = False
    attributes: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The fastjson bean form (camelCase keys)."""
        return {
            "attributes": dict(self.attributes),
            "order": self.order,
            "perm": self.perm,
            "readQueueNums": self.read_queue_nums,
            "topicFilterType": self.topic_filter_type,
            "topicName": self.topic_name,
            "topicSysFlag": self.topic_sys_flag,
            "writeQueueNums": self.write_queue_nums,
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any], name: str | None = None) -> TopicConfig:
        """The bean form; ``name`` is the table key (used when the object has no ``topicName``, and kept as the
        name when it has the same one: a broker's table of 100,000 topics holds each name once)."""
        written = obj.get("topicName")
        return cls(
            topic_name=name if name and written == name else str(written or name or ""),
            read_queue_nums=int(obj.get("readQueueNums", 16)),
            write_queue_nums=int(obj.get("writeQueueNums", 16)),
            perm=int(obj.get("perm", 6)),
            topic_filter_type=sys.intern(str(obj.get("topicFilterType") or "SINGLE_TAG")),
            topic_sys_flag=int(obj.get("topicSysFlag", 0)),
            order=bool(obj.get("order", False)),
            attributes={str(k): str(v) for k, v in (obj.get("attributes") or {}).items()} or NO_ATTRIBUTES,
        )

    def with_(self, **changes: Any) -> TopicConfig:
        return replace(self, **changes)

    def describe(self) -> str:
        """mqadmin's ``TopicConfig [...]`` line."""
        attrs = ", ".join(f"{k}={v}" for k, v in sorted(self.attributes.items()))
        return (
            f"TopicConfig [topicName={self.topic_name}, readQueueNums={self.read_queue_nums}, "
            f"writeQueueNums={self.write_queue_nums}, perm={perm_to_string(self.perm)}, "
            f"topicFilterType={self.topic_filter_type}, topicSysFlag={self.topic_sys_flag}, "
            f"order={'true' if self.order else 'false'}, attributes={{{attrs}}}]"
        )
