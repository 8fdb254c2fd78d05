"""A live cluster as a topology file: the inverse of ``plan``, so that planning the written file against the
cluster it came from reports no changes.

Per topic and group, the settings that differ from the defaults (the file's settings default to what a new
topic or group gets); ``brokers`` when it is not on every master. A topic whose brokers disagree (queue counts,
permission) cannot be written as one entry: the first broker's settings are written and a warning names it (the
plan then shows the others' update, and ``doctor`` reports the disagreement).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mqadmin.admin import groups as group_ops
from mqadmin.admin import topics as topic_ops
from mqadmin.model.group import SCALARS, SubscriptionGroupConfig
from mqadmin.model.names import group_problem, shown, topic_problem
from mqadmin.model.order import parse_order_conf
from mqadmin.model.topic import TopicConfig
from mqadmin.topology.live import BrokerState, ClusterState, is_managed_group
from mqadmin.topology.model import MESSAGE_TYPE


@dataclass(slots=True)
class Export:
    doc: dict[str, Any] = field(default_factory=dict)
    topics: int = 0
    groups: int = 0
    warnings: list[str] = field(default_factory=list)

    def toml(self) -> str:
        import tomli_w

        return tomli_w.dumps(self.doc)


def export_clusters(states: list[ClusterState], namesrv: dict[str, str] | None = None) -> Export:
    """The topology of the clusters read (keys: the cluster names); ``namesrv`` (cluster → ``-n`` value) is
    written into the file when given."""
    out = Export({"clusters": {}, "topics": {}, "groups": {}})
    per_topic: dict[str, dict[str, Any]] = {}
    per_group: dict[str, dict[str, Any]] = {}
    for state in states:
        entry: dict[str, Any] = {}
        if namesrv and state.cluster in namesrv:
            entry["namesrv"] = namesrv[state.cluster]
        out.doc["clusters"][state.cluster] = entry
        brokers = [b for b in state.brokers if b.ok]
        if static := sorted({t for b in brokers for t in b.static_topics}):
            out.warnings.append(
                f"static topics of {state.cluster} not written (updateStaticTopic manages them): {', '.join(static)}"
            )
        topics = {t for b in brokers for t in b.topics or {} if state.is_managed_topic(t)}
        for name in sorted(_writable(out, state.cluster, topics, topic_problem)):
            per_topic.setdefault(name, {})[state.cluster] = _topic(out, state, brokers, name)
        groups = {g for b in brokers for g in b.groups or {} if is_managed_group(g)}
        for name in sorted(_writable(out, state.cluster, groups, group_problem)):
            per_group.setdefault(name, {})[state.cluster] = _group(out, state, brokers, name)
    masters = {s.cluster: sorted(b.name for b in s.brokers) for s in states}
    out.doc["topics"] = {n: _merge(per, masters) for n, per in sorted(per_topic.items())}
    out.doc["groups"] = {n: _merge(per, masters) for n, per in sorted(per_group.items())}
    out.topics, out.groups = len(per_topic), len(per_group)
    return out


def _writable(out: Export, cluster: str, names: set[str], problem: Callable[[str], str | None]) -> set[str]:
    """The names a topology file can hold; a broker may keep one Apache's rules refuse (an old broker's, one
    written by hand), which is left out with a warning instead of making a file that plan refuses to read."""
    refused = {name: why for name in names if (why := problem(name))}
    out.warnings += [f"{shown(name)} of {cluster} not written: {why}" for name, why in sorted(refused.items())]
    return names - set(refused)


def _merge(per_cluster: dict[str, dict[str, Any]], masters: dict[str, list[str]]) -> dict[str, Any]:
    """One entry for every cluster holding it: the settings of the first, overrides for the others' differences
    (``brokers`` included) and ``clusters`` when not on all of them."""
    first, *rest = per_cluster
    entry = dict(per_cluster[first])
    overrides = {}
    for c in rest:
        other = per_cluster[c]
        diff = {k: v for k, v in other.items() if entry.get(k) != v}
        diff.update({k: masters[c] if k == "brokers" else _default_of(k) for k in entry if k not in other})
        if diff:
            overrides[c] = diff
    if len(per_cluster) != len(masters):
        entry["clusters"] = list(per_cluster)
    if overrides:
        entry["overrides"] = overrides
    return entry


def _default_of(key: str) -> Any:
    """The value a setting has when not written (for an override that must undo the first cluster's)."""
    topic = TopicConfig("_")
    defaults = {
        "readQueueNums": topic.read_queue_nums,
        "writeQueueNums": topic.write_queue_nums,
        "queueNums": topic.write_queue_nums,
        "perm": topic.perm,
        "order": topic.order,
        "attributes": {},
    }
    if key in defaults:
        return defaults[key]
    return SubscriptionGroupConfig("_").to_json().get(key)


def _placement(state: ClusterState, holders: list[BrokerState]) -> list[str] | None:
    names = sorted(b.name for b in holders)
    return None if names == sorted(b.name for b in state.brokers) else names


def _topic(out: Export, state: ClusterState, brokers: list[BrokerState], name: str) -> dict[str, Any]:
    holders = [b for b in brokers if b.topics and name in b.topics]
    configs = {b.name: _topic_settings(state, b, name) for b in holders}
    chosen = configs[holders[0].name]
    if len({repr(sorted(c.items())) for c in configs.values()}) > 1:
        shown = "; ".join(f"{b} {_text(c)}" for b, c in configs.items())
        out.warnings.append(
            f"topic {name} differs between the brokers of {state.cluster} ({shown}); written with {holders[0].name}'s"
        )
    entry = dict(chosen)
    if (placed := _placement(state, holders)) is not None:
        entry["brokers"] = placed
    return entry


def _topic_settings(state: ClusterState, b: BrokerState, name: str) -> dict[str, Any]:
    assert b.topics is not None
    cfg, default = b.topics[name], TopicConfig(name)
    kept = topic_ops.kept_fields(b.version)
    out: dict[str, Any] = {}
    if cfg.read_queue_nums == cfg.write_queue_nums:
        if cfg.read_queue_nums != default.read_queue_nums:
            out["queueNums"] = cfg.read_queue_nums
    else:
        out["readQueueNums"], out["writeQueueNums"] = cfg.read_queue_nums, cfg.write_queue_nums
    if cfg.perm != default.perm:
        out["perm"] = cfg.perm
    ordered = cfg.order if "order" in kept else b.name in parse_order_conf((state.order_conf or {}).get(name, ""))
    if ordered:
        out["order"] = True
    attrs = dict(cfg.attributes) if "attributes" in kept else {}
    if MESSAGE_TYPE in attrs:
        out["messageType"] = attrs.pop(MESSAGE_TYPE)
    if attrs:
        out["attributes"] = dict(sorted(attrs.items()))
    return out


def _group(out: Export, state: ClusterState, brokers: list[BrokerState], name: str) -> dict[str, Any]:
    holders = [b for b in brokers if b.groups and name in b.groups]
    configs = {b.name: _group_settings(b, name) for b in holders}
    chosen = configs[holders[0].name]
    if len({repr(sorted(c.items())) for c in configs.values()}) > 1:
        shown = "; ".join(f"{b} {_text(c)}" for b, c in configs.items())
        out.warnings.append(
            f"group {name} differs between the brokers of {state.cluster} ({shown}); written with {holders[0].name}'s"
        )
    entry = dict(chosen)
    if (placed := _placement(state, holders)) is not None:
        entry["brokers"] = placed
    return entry


def _group_settings(b: BrokerState, name: str) -> dict[str, Any]:
    assert b.groups is not None
    cfg, default = b.groups[name], SubscriptionGroupConfig(name)
    out: dict[str, Any] = {}
    for attr in group_ops.kept_fields(b.version):
        value = getattr(cfg, attr)
        if value == getattr(default, attr):
            continue
        if attr in SCALARS:
            out[SCALARS[attr][0]] = value
        elif attr == "group_retry_policy":
            out["groupRetryPolicy"] = value.to_json()
        else:
            out["attributes"] = dict(sorted(value.items()))
    return out


def _text(settings: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in settings.items()) or "defaults"
