"""SubscriptionGroupConfig (a consumer group's settings on a broker), its retry policy, group name rules
and the group attributes brokers know.

The fastjson bean form (camelCase keys) is what brokers send in GET_ALL_SUBSCRIPTIONGROUP_CONFIG and
store in subscriptionGroup.json. In a *request* (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP and its list form)
the ``attributes`` map holds operations instead: ``{"+key": "value"}`` sets a key, ``{"-key": ""}``
removes one, and the broker applies them to the attributes it holds (``GroupWrite``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

RETRY_GROUP_TOPIC_PREFIX = "%RETRY%"
DLQ_GROUP_TOPIC_PREFIX = "%DLQ%"

POLICY_TYPES = ("EXPONENTIAL", "CUSTOMIZED")
DEFAULT_EXPONENTIAL = (5_000, 7_200_000, 2)
"""Java's ExponentialRetryPolicy defaults: initial 5 s, max 2 h, multiplier 2."""
DEFAULT_CUSTOMIZED_NEXT = (
    1_000, 5_000, 10_000, 30_000, 60_000, 120_000, 180_000, 240_000, 300_000, 360_000, 420_000, 480_000,
    540_000, 600_000, 1_200_000, 1_800_000, 3_600_000, 7_200_000,
)  # fmt: skip
"""Java's CustomizedRetryPolicy default delays (ms) when ``next`` is not given."""


# --- group attributes (5.5.0: SubscriptionGroupAttributes.ALL) ---------------------------------------


def _long_range(low: int, high: int) -> Callable[[str], bool]:
    def check(value: str) -> bool:
        try:
            return low <= int(value) <= high
        except ValueError:
            return False

    return check


def _one_of(*allowed: str) -> Callable[[str], bool]:
    return lambda value: value in allowed


def _boolean(value: str) -> bool:
    return value.lower() in ("true", "false")


LONG_MAX = 2**63 - 1
GROUP_ATTRIBUTES: dict[str, tuple[Callable[[str], bool], str]] = {
    "priority.factor": (_long_range(0, 100), "an integer in 0..100"),
    "lite.bind.topic": (lambda v: True, "a topic name"),
    "lite.sub.model": (_one_of("Shared", "Exclusive"), "Shared or Exclusive"),
    "lite.sub.reset.offset.exclusive": (_boolean, "true or false"),
    "lite.sub.reset.offset.unsubscribe": (_boolean, "true or false"),
    "lite.sub.client.quota": (_long_range(-1, LONG_MAX), "an integer >= -1"),
    "lite.sub.client.max.event.cnt": (_long_range(10, LONG_MAX), "an integer >= 10"),
    "lite.sub.wildcard": (lambda v: True, "a string"),
}
"""The group attributes 5.5 brokers accept (all changeable), with the check of their values. 5.1.3 to 5.4
brokers store attributes but accept no key; older ones have no attributes."""


def attribute_value_problem(key: str, value: str) -> str | None:
    """Why ``value`` is not acceptable for a known attribute, or None (unknown keys are the broker's call)."""
    known = GROUP_ATTRIBUTES.get(key)
    if known is None or known[0](value):
        return None
    return f"attribute {key}={value!r} must be {known[1]}"


def ops_to_wire(ops: Mapping[str, str | None]) -> dict[str, str]:
    """Attribute operations (key → value, None removes) as a request's map: ``{"+k": "v", "-k": ""}``."""
    return {(f"+{k}" if v is not None else f"-{k}"): (v if v is not None else "") for k, v in sorted(ops.items())}


def ops_from_wire(wire: Mapping[str, Any]) -> dict[str, str | None]:
    """A request's attribute map as operations; ValueError for a key without ``+``/``-`` (Java: wrong format)."""
    ops: dict[str, str | None] = {}
    for raw, value in wire.items():
        sign, key = raw[:1], raw[1:]
        if sign not in ("+", "-") or not key or "+" in key or "-" in key:
            raise ValueError(f"wrong format key: {raw}")
        if key in ops:
            raise ValueError(f"alter duplication key. key: {key}")
        ops[key] = str(value) if sign == "+" else None
    return ops


# --- retry policy -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GroupRetryPolicy:
    """How the broker spaces a group's redeliveries (5.x): EXPONENTIAL (initial, max, multiplier in ms) or
    CUSTOMIZED (a list of delays in ms). A sub-policy not given is None, as Java keeps it."""

    type: str = "CUSTOMIZED"
    exponential: tuple[int, int, int] | None = None
    customized: tuple[int, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        if self.exponential is not None:
            initial, most, multiplier = self.exponential
            out["exponentialRetryPolicy"] = {"initial": initial, "max": most, "multiplier": multiplier}
        if self.customized is not None:
            out["customizedRetryPolicy"] = {"next": list(self.customized)}
        return out

    @classmethod
    def from_json(cls, obj: Any) -> GroupRetryPolicy:
        """Read the bean form (Java's defaults fill what a sub-policy leaves out); ValueError names a bad part.

        ``type`` is matched in any case; unknown keys are ignored, as fastjson does."""
        if not isinstance(obj, dict):
            raise ValueError("groupRetryPolicy is not a JSON object")
        kind = obj.get("type", "CUSTOMIZED")
        if not isinstance(kind, str) or kind.upper() not in POLICY_TYPES:
            raise ValueError(f"groupRetryPolicy type {kind!r} is not one of {', '.join(POLICY_TYPES)}")
        exp, cus = obj.get("exponentialRetryPolicy"), obj.get("customizedRetryPolicy")
        exponential = None
        if exp is not None:
            if not isinstance(exp, dict):
                raise ValueError("exponentialRetryPolicy is not a JSON object")
            names = ("initial", "max", "multiplier")
            initial, most, multiplier = (
                _non_negative(exp.get(n, d), f"exponentialRetryPolicy.{n}")
                for n, d in zip(names, DEFAULT_EXPONENTIAL, strict=True)
            )
            exponential = (initial, most, multiplier)
        customized = None
        if cus is not None:
            if not isinstance(cus, dict):
                raise ValueError("customizedRetryPolicy is not a JSON object")
            nxt = cus.get("next", list(DEFAULT_CUSTOMIZED_NEXT))
            if not isinstance(nxt, list):
                raise ValueError("customizedRetryPolicy.next is not a list of delays (ms)")
            customized = tuple(_non_negative(v, "customizedRetryPolicy.next") for v in nxt)
        return cls(kind.upper(), exponential, customized)


def _non_negative(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what}={value!r} is not a non-negative integer")
    return value


# --- the config ---------------------------------------------------------------------------------------

SCALARS: dict[str, tuple[str, type]] = {
    "consume_enable": ("consumeEnable", bool),
    "consume_from_min_enable": ("consumeFromMinEnable", bool),
    "consume_broadcast_enable": ("consumeBroadcastEnable", bool),
    "consume_message_orderly": ("consumeMessageOrderly", bool),
    "retry_queue_nums": ("retryQueueNums", int),
    "retry_max_times": ("retryMaxTimes", int),
    "broker_id": ("brokerId", int),
    "which_broker_when_consume_slowly": ("whichBrokerWhenConsumeSlowly", int),
    "notify_consumer_ids_changed_enable": ("notifyConsumerIdsChangedEnable", bool),
    "group_sys_flag": ("groupSysFlag", int),
    "consume_timeout_minute": ("consumeTimeoutMinute", int),
}
"""Attribute → (bean key, type) of the plain settings."""

JSON_NAMES: dict[str, str] = {
    **{attr: key for attr, (key, _) in SCALARS.items()},
    "group_retry_policy": "groupRetryPolicy",
    "attributes": "attributes",
}
"""Every comparable setting's bean key (the names the JSON output and the change lists use)."""

_KNOWN_KEYS = {"groupName", *JSON_NAMES.values()}


@dataclass(frozen=True, slots=True)
class SubscriptionGroupConfig:
    """A consumer group's config with Java's (5.x) defaults. ``extra`` keeps the bean keys this model does not
    know (``subscriptionDataSet``, fields of newer brokers) so a read-change-write never drops them."""

    group_name: str
    consume_enable: bool = True
    consume_from_min_enable: bool = True
    consume_broadcast_enable: bool = True
    consume_message_orderly: bool = False
    retry_queue_nums: int = 1
    retry_max_times: int = 16
    group_retry_policy: GroupRetryPolicy = field(default_factory=GroupRetryPolicy)
    broker_id: int = 0
    which_broker_when_consume_slowly: int = 1
    notify_consumer_ids_changed_enable: bool = True
    group_sys_flag: int = 0
    consume_timeout_minute: int = 15
    attributes: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The bean form, as a broker stores and sends it."""
        out: dict[str, Any] = {"groupName": self.group_name}
        for attr, (key, _) in SCALARS.items():
            out[key] = getattr(self, attr)
        out["groupRetryPolicy"] = self.group_retry_policy.to_json()
        out["attributes"] = dict(self.attributes)
        return {**out, **{k: v for k, v in self.extra.items() if k not in out}}

    @classmethod
    def from_json(cls, obj: Any, name: str | None = None) -> SubscriptionGroupConfig:
        """Read the bean form; missing keys get the defaults, a value of the wrong type raises ValueError
        naming it. ``name`` is the table key, used when the object has no ``groupName``."""
        if not isinstance(obj, dict):
            raise ValueError("the subscription group config is not a JSON object")
        group = obj.get("groupName") if obj.get("groupName") is not None else name
        if not isinstance(group, str):
            raise ValueError("groupName is missing")  # a blank name is the name rules' to refuse
        values: dict[str, Any] = {}
        for attr, (key, kind) in SCALARS.items():
            if key in obj:
                values[attr] = _typed(obj[key], kind, key)
        policy = obj.get("groupRetryPolicy")
        if policy is not None:
            values["group_retry_policy"] = GroupRetryPolicy.from_json(policy)
        attrs = obj.get("attributes")
        if attrs is not None:
            if not isinstance(attrs, dict):
                raise ValueError(f"attributes={attrs!r} is not an object")
            values["attributes"] = {str(k): str(v) for k, v in attrs.items()}
        extra = {k: v for k, v in obj.items() if k not in _KNOWN_KEYS}
        return cls(group_name=group, extra=extra, **values)

    def with_(self, **changes: Any) -> SubscriptionGroupConfig:
        return replace(self, **changes)


def _typed(value: Any, kind: type, key: str) -> Any:
    if kind is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{key}={value!r} is not a boolean")
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key}={value!r} is not an integer")
    return value


@dataclass(frozen=True, slots=True)
class GroupWrite:
    """A config as UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (and the list form) carries it: every setting, and
    attribute *operations* (key → value, None removes) that the broker applies to what it holds."""

    config: SubscriptionGroupConfig
    attribute_ops: dict[str, str | None] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = self.config.to_json()
        out["attributes"] = ops_to_wire(self.attribute_ops)
        return out

    @classmethod
    def from_json(cls, obj: Any) -> GroupWrite:
        """ValueError for a malformed config or attribute operation."""
        if not isinstance(obj, dict):
            raise ValueError("the subscription group config is not a JSON object")
        wire = obj.get("attributes") or {}
        if not isinstance(wire, dict):
            raise ValueError(f"attributes={wire!r} is not an object")
        config = SubscriptionGroupConfig.from_json({k: v for k, v in obj.items() if k != "attributes"})
        return cls(config, ops_from_wire(wire))
