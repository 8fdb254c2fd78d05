"""Topic attributes on the broker, as Apache 5.x changes them.

A create or update request carries attribute *operations*: ``+key=value`` adds or changes a key,
``-key`` removes one (``AttributeParser.parseToMap``; in UPDATE_AND_CREATE_TOPIC_LIST the
``attributes`` map of each TopicConfig holds the same signed keys). They are applied to the
topic's current attributes (``AttributeUtil.alterCurrentAttributes``): a request without
operations keeps what the topic has. The rules, and the errors Apache answers with SYSTEM_ERROR:

* on create only ``+`` is allowed;
* ``-key`` needs the key to exist; a key may appear once;
* only the known attributes (``TopicAttributes.ALL``), each value checked; ``queue.type`` and
  ``cleanup.policy`` are fixed once the topic exists.
"""

from __future__ import annotations

from dataclasses import dataclass

from mqadmin.model.names import shown

LONG_MAX = 2**63 - 1


class AttributeRefused(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Attribute:
    changeable: bool
    values: tuple[str, ...] = ()
    """The allowed values of an enum attribute; empty for a number range."""
    low: int = 0
    high: int = 0

    def verify(self, value: str) -> None:
        if self.values:
            if value not in self.values:
                raise AttributeRefused(f"value is not in set: [{', '.join(self.values)}]")
            return
        try:
            n = int(value)
        except ValueError:
            raise AttributeRefused(f"value {shown(value)} is not a number") from None
        if not self.low <= n <= self.high:
            raise AttributeRefused(f"value is not in range({self.low}, {self.high})")


ATTRIBUTES: dict[str, Attribute] = {
    "queue.type": Attribute(False, ("SimpleCQ", "BatchCQ")),
    "cleanup.policy": Attribute(False, ("DELETE", "COMPACTION")),
    "message.type": Attribute(True, ("UNSPECIFIED", "TRANSACTION", "FIFO", "MIXED", "DELAY", "NORMAL")),
    "reserve.time": Attribute(True, low=-1, high=LONG_MAX),
}
"""TopicAttributes.ALL of Apache 5.3 (values in the order its error messages list them)."""


def _k(key: str) -> str:
    """A key as Apache's messages show it (as is), unless it is long or not printable."""
    return key if key.isprintable() and len(key) <= 64 else shown(key)


def parse_operations(spec: str) -> dict[str, str]:
    """``+k=v,-k2`` into ``{"+k": "v", "-k2": ""}`` (signs kept)."""
    ops: dict[str, str] = {}
    if not spec:
        return ops
    for kv in spec.split(","):
        if "=" in kv:
            key, _, value = kv.partition("=")
            if "+" not in key:
                raise AttributeRefused(f"add/alter attribute format is wrong: {_k(key)}")
            if not value or "=" in value:
                raise AttributeRefused(f"add/alter attribute format is wrong: {_k(kv)}")
        else:
            key, value = kv, ""
            if "-" not in key:
                raise AttributeRefused(f"delete attribute format is wrong: {_k(key)}")
        if key in ops:
            raise AttributeRefused(f"key duplication: {_k(key)}")
        ops[key] = value
    return ops


def alter(create: bool, current: dict[str, str], ops: dict[str, str]) -> dict[str, str]:
    """The attributes after applying ``ops`` (signed keys) to ``current``; AttributeRefused otherwise."""
    adds: dict[str, str] = {}
    deletes: set[str] = set()
    for signed, value in ops.items():
        key = signed[1:]
        if not key or "+" in key or "-" in key:
            raise AttributeRefused("kv string format wrong.")
        if key in adds or key in deletes:
            raise AttributeRefused(f"alter duplication key. key: {_k(key)}")
        if signed.startswith("+"):
            adds[key] = value
        elif create:
            raise AttributeRefused(f"only add attribute is supported while creating topic. key: {_k(key)}")
        elif signed.startswith("-"):
            if key not in current:
                raise AttributeRefused(f"attempt to delete a nonexistent key: {_k(key)}")
            deletes.add(key)
        else:
            raise AttributeRefused(f"wrong format key: {_k(key)}")
    for key in [*adds, *deletes]:
        attribute = ATTRIBUTES.get(key)
        if attribute is None:
            raise AttributeRefused(f"unsupported key: {_k(key)}")
        if not create and not attribute.changeable:
            raise AttributeRefused(f"attempt to update an unchangeable attribute. key: {key}")
        if key in adds:
            attribute.verify(adds[key])
    final = {k: v for k, v in current.items() if k not in deletes}
    final.update(adds)
    return final
