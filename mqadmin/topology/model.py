"""The topology file: its format, its checks and the desired state it resolves to.

```toml
[clusters.prod]                      # a name used in this file
namesrv = "10.0.0.1:9876;10.0.0.2:9876"  # optional: else -n / NAMESRV_ADDR
cluster = "DefaultCluster"           # the RocketMQ cluster name (default: the key)

[defaults.topic]                     # for every topic (then [clusters.X.defaults.topic], then the topic)
queueNums = 8

[topics.Orders]
queueNums = 16                       # readQueueNums and writeQueueNums at once
order = true
messageType = "FIFO"                 # the attribute message.type
clusters = ["prod"]                  # default: every cluster of the file
[topics.Orders.overrides.prod]       # per cluster
queueNums = 32

[groups.OrderService]
retryMaxTimes = 5
consumeBroadcastEnable = false
```

Settings use RocketMQ's own names (those of TopicConfig and SubscriptionGroupConfig). A setting the file does
not give has its default (TopicConfig's and SubscriptionGroupConfig's, as a new topic or group gets): the file
describes the whole of each topic and group it names. ``schema.json`` beside this module is the same format as
a JSON Schema, for editors; ``parse_topology`` checks everything itself and names the bad key.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqadmin.model.exports import PREDEFINED_GROUPS, SYSTEM_GROUP_PREFIX
from mqadmin.model.group import SCALARS, GroupRetryPolicy, SubscriptionGroupConfig, attribute_value_problem
from mqadmin.model.names import group_problem, is_retry_or_dlq_topic, is_system_topic, topic_problem
from mqadmin.model.topic import ATTRIBUTE_VALUES, NO_ATTRIBUTES, TopicConfig

SCHEMA_PATH = Path(__file__).with_name("schema.json")
FORMAT_VERSION = 1
PERMS = (2, 4, 6)
MAX_QUEUES = 65535
MESSAGE_TYPE = "message.type"

TOPIC_SETTINGS = ("queueNums", "readQueueNums", "writeQueueNums", "perm", "order", "messageType", "attributes")
GROUP_SETTINGS = (*(key for key, _ in SCALARS.values()), "groupRetryPolicy", "attributes")
PLACEMENT = ("clusters", "brokers")


class TopologyError(ValueError):
    """A topology file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class TopicSpec:
    config: TopicConfig
    brokers: tuple[str, ...] | None = None
    """The broker names it is on; None = every master of the cluster."""


@dataclass(frozen=True, slots=True)
class GroupSpec:
    config: SubscriptionGroupConfig
    brokers: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class ClusterSpec:
    key: str
    """The cluster's name in the file."""
    cluster: str
    """The RocketMQ cluster name."""
    namesrv: str | None
    topics: dict[str, TopicSpec] = field(default_factory=dict)
    groups: dict[str, GroupSpec] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Topology:
    source: str
    """Where it was read from (for messages)."""
    text: str
    clusters: dict[str, ClusterSpec]


def load_topology(path: str | Path) -> Topology:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise TopologyError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
    return parse_topology(text, str(path))


def parse_topology(text: str, source: str = "topology") -> Topology:
    try:
        doc = _toml(text)
    except tomllib.TOMLDecodeError as e:
        raise TopologyError(f"{source} is not valid TOML: {e}") from None
    return Topology(source, text, _Reader(source).clusters(doc))


_ITEM_TABLE = re.compile(r"^\[[ \t]*(?:topics|groups)[ \t]*\.", re.MULTILINE)
_WHOLE_TABLE = re.compile(r"^\[[ \t]*(?:topics|groups)[ \t]*\]", re.MULTILINE)
TABLES_PER_PART = 1000


def _toml(text: str) -> dict[str, Any]:
    """``tomllib.loads(text)``, read a thousand ``[topics.NAME]`` / ``[groups.NAME]`` tables at a time: tomllib's
    bookkeeping of 100,000 tables takes about four times the document (70 MiB). The parts are used only when they
    make exactly the whole document: the part before the first such table names no topic or group, and each
    later part only topics and groups not named before, with no ``[topics]`` or ``[groups]`` table; anything else
    (a name given twice, a cut inside a multi-line string, any error) is read whole, so that the result and the
    error (with its line) are tomllib's."""
    cuts = [m.start() for m in _ITEM_TABLE.finditer(text)][::TABLES_PER_PART]
    if len(cuts) < 2:
        return tomllib.loads(text)
    try:
        doc = tomllib.loads(text[: cuts[0]])
        if "topics" in doc or "groups" in doc:
            return tomllib.loads(text)
        for start, end in zip(cuts, [*cuts[1:], len(text)], strict=True):
            chunk = text[start:end]
            part = tomllib.loads(chunk)
            if _WHOLE_TABLE.search(chunk) or not set(part) <= {"topics", "groups"}:
                return tomllib.loads(text)
            for key, tables in part.items():
                known = doc.setdefault(key, {})
                if not known.keys().isdisjoint(tables):
                    return tomllib.loads(text)
                known.update(tables)
            del part
    except tomllib.TOMLDecodeError:
        return tomllib.loads(text)
    return doc


# --- reading -------------------------------------------------------------------------------------------------


class _Reader:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, message: str) -> TopologyError:
        return TopologyError(f"{self.source}: {where}: {message}" if where else f"{self.source}: {message}")

    def table(self, value: Any, where: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, "must be a table")
        return value

    def only(self, table: Mapping[str, Any], allowed: tuple[str, ...], where: str) -> None:
        unknown = sorted(set(table) - set(allowed))
        if unknown:
            key = f"{where}.{unknown[0]}" if where else unknown[0]
            raise self.fail(key, f"unknown key (known: {', '.join(allowed)})")

    def names(self, value: Any, where: str) -> tuple[str, ...]:
        if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
            raise self.fail(where, "must be a non-empty list of names")
        if len(set(value)) != len(value):
            raise self.fail(where, "lists a name twice")
        return tuple(value)

    # --- the document --------------------------------------------------------------------------------------

    def clusters(self, doc: dict[str, Any]) -> dict[str, ClusterSpec]:
        self.only(doc, ("version", "clusters", "defaults", "topics", "groups"), "")
        version = doc.get("version", FORMAT_VERSION)
        if version != FORMAT_VERSION:
            raise self.fail("version", f"{version!r} is not a version this mqadmin reads ({FORMAT_VERSION})")
        clusters = self.table(doc.get("clusters", {}), "clusters")
        if not clusters:
            raise self.fail("clusters", "the file names no cluster; add a [clusters.NAME] table")
        defaults = self.table(doc.get("defaults", {}), "defaults")
        self.only(defaults, ("topic", "group"), "defaults")
        topic_defaults = self.settings(defaults.get("topic", {}), "defaults.topic", TOPIC_SETTINGS)
        group_defaults = self.settings(defaults.get("group", {}), "defaults.group", GROUP_SETTINGS)
        topics = self.table(doc.get("topics", {}), "topics")
        groups = self.table(doc.get("groups", {}), "groups")
        for name in topics:
            self.topic_name(name)
        for name in groups:
            self.group_name(name)
        out: dict[str, ClusterSpec] = {}
        for key, raw in clusters.items():
            where = f"clusters.{key}"
            c = self.table(raw, where)
            self.only(c, ("namesrv", "cluster", "defaults"), where)
            namesrv = c.get("namesrv")
            if namesrv is not None and (not isinstance(namesrv, str) or not namesrv.strip()):
                raise self.fail(f"{where}.namesrv", "must be 'host:port' or 'host:port;host:port'")
            name = c.get("cluster", key)
            if not isinstance(name, str) or not name:
                raise self.fail(f"{where}.cluster", "must be a cluster name")
            own = self.table(c.get("defaults", {}), f"{where}.defaults")
            self.only(own, ("topic", "group"), f"{where}.defaults")
            spec = ClusterSpec(key, name, namesrv.strip() if namesrv else None)
            own_topic = self.settings(own.get("topic", {}), f"{where}.defaults.topic", TOPIC_SETTINGS)
            own_group = self.settings(own.get("group", {}), f"{where}.defaults.group", GROUP_SETTINGS)
            for topic, entry in topics.items():
                levels = self.levels(entry, f"topics.{topic}", TOPIC_SETTINGS, key, list(clusters))
                if levels is not None:
                    settings, brokers = levels
                    cfg = self.resolved(topic_config, "topics", topic, [topic_defaults, own_topic, *settings])
                    spec.topics[topic] = TopicSpec(cfg, brokers)
            for group, entry in groups.items():
                levels = self.levels(entry, f"groups.{group}", GROUP_SETTINGS, key, list(clusters))
                if levels is not None:
                    settings, brokers = levels
                    gcfg = self.resolved(group_config, "groups", group, [group_defaults, own_group, *settings])
                    spec.groups[group] = GroupSpec(gcfg, brokers)
            out[key] = spec
        return out

    def levels(
        self, entry: Any, where: str, allowed: tuple[str, ...], cluster: str, known: list[str]
    ) -> tuple[list[dict[str, Any]], tuple[str, ...] | None] | None:
        """A topic's or group's settings for one cluster (its own, then its override) and its brokers; None when
        it is not on that cluster."""
        entry = self.table(entry, where)
        self.only(entry, (*allowed, *PLACEMENT, "overrides"), where)
        on = self.names(entry["clusters"], f"{where}.clusters") if "clusters" in entry else tuple(known)
        if unknown := [c for c in on if c not in known]:
            raise self.fail(f"{where}.clusters", f"{unknown[0]!r} is not a cluster of the file ({', '.join(known)})")
        overrides = self.table(entry.get("overrides", {}), f"{where}.overrides")
        if unknown := [c for c in overrides if c not in known]:
            raise self.fail(f"{where}.overrides.{unknown[0]}", f"not a cluster of the file ({', '.join(known)})")
        own = self.settings({k: v for k, v in entry.items() if k in allowed}, where, allowed)
        override = self.table(overrides.get(cluster, {}), f"{where}.overrides.{cluster}")
        self.only(override, (*allowed, "brokers"), f"{where}.overrides.{cluster}")
        brokers = entry.get("brokers")
        if "brokers" in override:
            brokers = override["brokers"]
        placed = self.names(brokers, f"{where}.brokers") if brokers is not None else None
        if cluster not in on:
            return None
        extra = self.settings({k: v for k, v in override.items() if k != "brokers"}, f"{where}.overrides", allowed)
        return [own, extra], placed

    def resolved(
        self, build: Callable[[str, list[dict[str, Any]]], Any], table: str, name: str, levels: list[Any]
    ) -> Any:
        """``build(name, levels)``: the file's own name string is kept (100,000 names are not made again)."""
        try:
            return build(name, levels)
        except ValueError as e:
            raise self.fail(f"{table}.{name}", str(e)) from None

    # --- names and settings --------------------------------------------------------------------------------

    def topic_name(self, name: str) -> None:
        where = f"topics.{name}"
        if problem := topic_problem(name):
            raise self.fail(where, problem)
        if is_system_topic(name) or is_retry_or_dlq_topic(name):
            raise self.fail(where, "system, retry and dead-letter topics belong to the brokers")

    def group_name(self, name: str) -> None:
        where = f"groups.{name}"
        if problem := group_problem(name):
            raise self.fail(where, problem)
        if name in PREDEFINED_GROUPS or name.startswith(SYSTEM_GROUP_PREFIX):
            raise self.fail(where, "a RocketMQ system group")

    def settings(self, raw: Any, where: str, allowed: tuple[str, ...]) -> dict[str, Any]:
        table = self.table(raw, where)
        self.only(table, allowed, where)
        out: dict[str, Any] = {}
        for key, value in table.items():
            check = _CHECKS.get(key, _check_group_scalar)
            problem = check(key, value)
            if problem:
                raise self.fail(f"{where}.{key}", problem)
            out[key] = value
        return out


def _int_range(low: int, high: int) -> Callable[[str, Any], str | None]:
    def check(key: str, value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            return f"{value!r} must be an integer in {low}..{high}"
        return None

    return check


def _check_perm(key: str, value: Any) -> str | None:
    if value not in PERMS or isinstance(value, bool):
        return f"{value!r} must be 2 (write-only), 4 (read-only) or 6 (read-write)"
    return None


def _check_bool(key: str, value: Any) -> str | None:
    return None if isinstance(value, bool) else f"{value!r} must be true or false"


def _check_message_type(key: str, value: Any) -> str | None:
    allowed = ATTRIBUTE_VALUES[MESSAGE_TYPE]
    return None if value in allowed else f"{value!r} must be one of {', '.join(allowed)}"


def _check_group_scalar(key: str, value: Any) -> str | None:
    kind = next(k for name, k in SCALARS.values() if name == key)
    if kind is bool:
        return _check_bool(key, value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return f"{value!r} must be a non-negative integer"
    return None


def _check_policy(key: str, value: Any) -> str | None:
    try:
        GroupRetryPolicy.from_json(value)
    except ValueError as e:
        return str(e)
    return None


def _check_attributes(key: str, value: Any) -> str | None:
    """The values of known attributes are checked once the levels are merged (``topic_config``, ``group_config``)."""
    if not isinstance(value, dict) or not all(isinstance(v, str) and v for v in value.values()):
        return 'must be a table of key = "value"'
    return None


_CHECKS: dict[str, Callable[[str, Any], str | None]] = {
    "queueNums": _int_range(1, MAX_QUEUES),
    "readQueueNums": _int_range(1, MAX_QUEUES),
    "writeQueueNums": _int_range(1, MAX_QUEUES),
    "perm": _check_perm,
    "order": _check_bool,
    "messageType": _check_message_type,
    "attributes": _check_attributes,
    "groupRetryPolicy": _check_policy,
}


# --- resolving -----------------------------------------------------------------------------------------------


def topic_config(name: str, levels: list[dict[str, Any]]) -> TopicConfig:
    """The topic's config from its setting levels, later levels winning (``queueNums`` sets both counts)."""
    values: dict[str, Any] = {}
    attributes: dict[str, str] = {}
    for level in levels:
        if "queueNums" in level:
            values["read_queue_nums"] = values["write_queue_nums"] = level["queueNums"]
        for key, attr in (("readQueueNums", "read_queue_nums"), ("writeQueueNums", "write_queue_nums")):
            if key in level:
                values[attr] = level[key]
        for key in ("perm", "order"):
            if key in level:
                values[key] = level[key]
        attributes.update(level.get("attributes", {}))
        if "messageType" in level:
            attributes[MESSAGE_TYPE] = level["messageType"]
    for k, v in attributes.items():
        allowed = ATTRIBUTE_VALUES.get(k)
        if allowed is not None and v not in allowed:
            raise ValueError(f"attribute {k} = {v!r} must be one of {', '.join(allowed)}")
    return TopicConfig(name, **values, attributes=attributes or NO_ATTRIBUTES)


_GROUP_ATTRS = {key: attr for attr, (key, _) in SCALARS.items()}


def group_config(name: str, levels: list[dict[str, Any]]) -> SubscriptionGroupConfig:
    values: dict[str, Any] = {}
    attributes: dict[str, str] = {}
    for level in levels:
        for key, value in level.items():
            if key in _GROUP_ATTRS:
                values[_GROUP_ATTRS[key]] = value
            elif key == "groupRetryPolicy":
                values["group_retry_policy"] = GroupRetryPolicy.from_json(value)
        attributes.update(level.get("attributes", {}))
    for k, v in attributes.items():
        if problem := attribute_value_problem(k, v):
            raise ValueError(problem)
    return SubscriptionGroupConfig(name, **values, attributes=attributes)
