"""The plan: what the clusters hold compared with what the topology file says, item by item.

An item is one topic or group on one broker, or one topic's orderTopicConf on the name servers: ``create``,
``update`` (old → new per field), ``delete`` (only with ``prune``) or ``extra`` (on the cluster, not in the
file, left alone). Only the fields a broker of that version stores are compared (4.9 keeps no ``order`` and no
attributes), so a plan made right after an apply has nothing to do. System topics, retry and dead-letter
topics and system groups are never items; a group with consumers online is never deleted.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from mqadmin.admin import groups as group_ops
from mqadmin.admin import topics as topic_ops
from mqadmin.admin.errors import reason_of
from mqadmin.model.group import JSON_NAMES, SubscriptionGroupConfig
from mqadmin.model.order import format_order_conf, parse_order_conf
from mqadmin.model.topic import TopicConfig
from mqadmin.topology.live import FAILURES, BrokerState, ClusterState, is_managed_group, online_consumers, read_cluster
from mqadmin.topology.model import ClusterSpec, GroupSpec, TopicSpec, Topology

if TYPE_CHECKING:
    from mqadmin.admin.client import AdminClient

NAMESRV = "namesrv"
PLAN_FORMAT = "mqadmin-plan"
PLAN_VERSION = 1


class Kind(StrEnum):
    TOPIC = "topic"
    GROUP = "group"
    ORDER_CONF = "orderConf"


class Action(StrEnum):
    CREATE = "create"
    UPDATE = "update"
    DELETE = "delete"
    EXTRA = "extra"


CHANGES = (Action.CREATE, Action.UPDATE, Action.DELETE)


@dataclass(slots=True)
class Item:
    cluster: str
    """The cluster's key in the topology file."""
    kind: Kind
    name: str
    broker: str
    """The broker's name, or ``namesrv`` for an orderTopicConf."""
    addr: str
    action: Action
    changes: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    wanted: Any = None
    """What to write: a TopicConfig, a SubscriptionGroupConfig or an orderTopicConf value (None to delete)."""
    current: Any = None
    version: int = 0
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "cluster": self.cluster,
            "kind": str(self.kind),
            "name": self.name,
            "broker": self.broker,
            "addr": self.addr,
            "action": str(self.action),
            "changes": {k: {"old": old, "new": new} for k, (old, new) in self.changes.items()},
            "note": self.note,
        }


@dataclass(slots=True)
class ClusterPlan:
    spec: ClusterSpec
    state: ClusterState
    items: list[Item] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """What keeps the plan of this cluster from being complete (a broker not read, a broker not found)."""

    def to_json(self) -> dict[str, Any]:
        s = self.state
        return {
            "cluster": self.spec.key,
            "clusterName": self.spec.cluster,
            "namesrv": ";".join(s.namesrv),
            "status": "failed" if s.error else "ok",
            "reason": s.error,
            "brokers": [
                {
                    "name": b.name,
                    "addr": b.addr,
                    "version": b.version_name,
                    "status": "failed" if b.error else "ok",
                    "reason": b.error,
                }
                for b in s.brokers
            ],
            "problems": list(self.problems),
        }


@dataclass(slots=True)
class Plan:
    topology: Topology
    prune: bool
    clusters: list[ClusterPlan]

    @property
    def items(self) -> list[Item]:
        return [i for c in self.clusters for i in c.items]

    @property
    def changes(self) -> list[Item]:
        return list(self.iter_changes())

    def iter_changes(self) -> Iterator[Item]:
        return (i for c in self.clusters for i in c.items if i.action in CHANGES)

    @property
    def complete(self) -> bool:
        return not any(c.problems for c in self.clusters)

    def summary(self) -> dict[str, int]:
        counts = Counter(i.action for c in self.clusters for i in c.items)
        return {str(a): counts[a] for a in Action}

    def outcome(self) -> str:
        if not self.complete:
            return "failed"
        return "changes pending" if self.changes else "no changes"

    def json_doc(self) -> dict[str, Any]:
        """The JSON document with its items as an iterator (``print_json_stream`` writes them one by one)."""
        return {
            "topology": self.topology.source,
            "prune": self.prune,
            "clusters": [c.to_json() for c in self.clusters],
            "items": (i.to_json() for c in self.clusters for i in c.items),
            "summary": self.summary(),
            "outcome": self.outcome(),
        }

    def to_json(self) -> dict[str, Any]:
        doc = self.json_doc()
        return {**doc, "items": list(doc["items"])}

    def saved(self) -> dict[str, Any]:
        """The plan as a file ``apply --plan`` takes: the document (items as an iterator) plus the topology it was
        made from."""
        return {"format": PLAN_FORMAT, "version": PLAN_VERSION, **self.json_doc(), "topologyText": self.topology.text}


# --- making a plan -------------------------------------------------------------------------------------------

ClientFor = Callable[[ClusterSpec], "AdminClient"]


async def make_plan(topology: Topology, client_for: ClientFor, *, prune: bool = False, limit: int = 16) -> Plan:
    """Read every cluster of the topology concurrently and compare; ``limit`` bounds the consumer look-ups
    made for groups that ``prune`` would delete."""
    sem = asyncio.Semaphore(limit)

    async def one(spec: ClusterSpec) -> ClusterPlan:
        admin = client_for(spec)
        state = await read_cluster(admin, spec.cluster)
        online = await _online(admin, spec, state, sem) if prune else {}
        return plan_cluster(spec, state, prune=prune, online=online)

    return Plan(topology, prune, list(await asyncio.gather(*(one(s) for s in topology.clusters.values()))))


async def _online(
    admin: AdminClient, spec: ClusterSpec, state: ClusterState, sem: asyncio.Semaphore
) -> dict[tuple[str, str], int | str]:
    """(broker, group) → consumers online (or why it could not be told) for each group prune would delete."""
    asks = [
        (b, g)
        for b in state.brokers
        if b.groups is not None
        for g in b.groups
        if is_managed_group(g) and not _placed(spec.groups.get(g), b.name)
    ]

    async def ask(b: BrokerState, group: str) -> int | str:
        async with sem:
            try:
                return await online_consumers(admin, b.addr, group)
            except FAILURES as e:
                return reason_of(e)

    answers = await asyncio.gather(*(ask(b, g) for b, g in asks))
    return {(b.name, g): n for (b, g), n in zip(asks, answers, strict=True)}


def _placed(spec: TopicSpec | GroupSpec | None, broker: str) -> bool:
    """Whether the file puts this topic or group on ``broker``."""
    return spec is not None and (spec.brokers is None or broker in spec.brokers)


def plan_cluster(
    spec: ClusterSpec,
    state: ClusterState,
    *,
    prune: bool = False,
    online: dict[tuple[str, str], int | str] | None = None,
) -> ClusterPlan:
    """The items of one cluster (pure: from what was read)."""
    plan = ClusterPlan(spec, state)
    if state.error:
        plan.problems.append(f"cluster {spec.cluster!r} could not be read: {state.error}")
        return plan
    named = {b for t in spec.topics.values() for b in t.brokers or ()} | {
        b for g in spec.groups.values() for b in g.brokers or ()
    }
    for missing in sorted(named - state.broker_names):
        plan.problems.append(f"the file places topics or groups on {missing!r}, which {spec.cluster!r} does not have")
    for b in state.brokers:
        if b.error:
            plan.problems.append(f"{b.name} ({b.addr}) could not be read: {b.error}")
            continue
        plan.items += _topic_items(spec.key, b, spec.topics, state, prune)
        plan.items += _group_items(spec.key, b, spec.groups, prune, online or {})
    if not plan.problems:  # an orderTopicConf names every broker: only from a complete view
        plan.items += _order_conf_items(spec, state, plan)
    return plan


def _topic_items(cluster: str, b: BrokerState, wanted: dict[str, TopicSpec], state: ClusterState, prune: bool):
    """The broker's topic items: each topic of the file placed on it (``wanted``, in name order), then what it
    holds and the file does not place there. Names are sorted, nothing else of 100,000 topics is copied."""
    assert b.topics is not None
    items: list[Item] = []
    shapes: dict[Any, dict[str, tuple[Any, Any]]] = {}
    """The changes of new topics, one dict per shape: 100,000 new topics of one shape share one (never changed)."""
    for name in sorted(wanted):
        if not _placed(wanted[name], b.name):
            continue
        cfg = wanted[name].config
        current = b.topics.get(name)
        base = Item(cluster, Kind.TOPIC, name, b.name, b.addr, Action.CREATE, version=b.version, current=current)
        if current is None:
            base.wanted = cfg
            changes = _created(cfg, TopicConfig(name), topic_ops.kept_fields(b.version), topic_ops.JSON_NAMES)
            try:
                base.changes = shapes.setdefault(tuple(changes.items()), changes)
            except TypeError:  # a value that cannot be a key (attributes): its own dict
                base.changes = changes
            items.append(base)
            continue
        target = current.with_(
            read_queue_nums=cfg.read_queue_nums,
            write_queue_nums=cfg.write_queue_nums,
            perm=cfg.perm,
            order=cfg.order,
            attributes=dict(cfg.attributes),
        )
        diff = topic_ops.changes_between(current, target, b.version)
        if diff:
            base.action, base.wanted, base.changes = Action.UPDATE, target, diff
            items.append(base)
    for name in sorted(n for n in b.topics if not _placed(wanted.get(n), b.name)):
        if state.is_managed_topic(name):
            action = Action.DELETE if prune else Action.EXTRA
            items.append(
                Item(cluster, Kind.TOPIC, name, b.name, b.addr, action, current=b.topics[name], version=b.version)
            )
    return items


def _group_items(
    cluster: str, b: BrokerState, wanted: dict[str, GroupSpec], prune: bool, online: dict[Any, Any]
) -> list[Item]:
    assert b.groups is not None
    items: list[Item] = []
    for name in sorted(wanted):
        if not _placed(wanted[name], b.name):
            continue
        cfg = wanted[name].config
        current = b.groups.get(name)
        base = Item(cluster, Kind.GROUP, name, b.name, b.addr, Action.CREATE, version=b.version, current=current)
        if current is None:
            base.wanted = cfg
            default = SubscriptionGroupConfig(name)
            kept = [n for n in group_ops.kept_fields(b.version) if getattr(cfg, n) != getattr(default, n)]
            base.changes = {JSON_NAMES[n]: (None, group_ops.change_value(getattr(cfg, n))) for n in kept}
            items.append(base)
            continue
        target = cfg.with_(extra=current.extra)
        diff = group_ops.changes_between(current, target, b.version)
        if diff:
            base.action, base.wanted, base.changes = Action.UPDATE, target, diff
            items.append(base)
    for name in sorted(n for n in b.groups if not _placed(wanted.get(n), b.name)):
        if not is_managed_group(name):
            continue
        item = Item(cluster, Kind.GROUP, name, b.name, b.addr, Action.EXTRA, current=b.groups[name], version=b.version)
        if prune:
            count = online.get((b.name, name), 0)
            if isinstance(count, str):
                item.note = f"not deleted: whether consumers are online could not be told ({count})"
            elif count:
                item.note = f"not deleted: {count} consumer(s) online"
            else:
                item.action = Action.DELETE
        items.append(item)
    return items


def _order_conf_items(spec: ClusterSpec, state: ClusterState, plan: ClusterPlan) -> list[Item]:
    """orderTopicConf of each topic of the file: ``broker:writeQueueNums`` of this cluster's brokers that hold it
    when it is ordered (none when not), entries naming other clusters' brokers kept."""
    relevant = {n: t for n, t in spec.topics.items() if t.config.order or n in (state.order_conf or {})}
    if not relevant:
        return []
    if state.order_conf is None:
        plan.problems.append(f"the name servers' orderTopicConf could not be read: {state.order_conf_error}")
        return []
    masters = sorted(b.name for b in state.brokers)
    items = []
    for name, t in sorted(relevant.items()):
        current = state.order_conf.get(name)
        entries = parse_order_conf(current or "")
        kept = {b: n for b, n in entries.items() if b not in state.broker_names}
        ours = {b: t.config.write_queue_nums for b in masters if t.brokers is None or b in t.brokers}
        wanted = {**kept, **(ours if t.config.order else {})}
        if current is not None and entries == wanted:
            continue
        value = format_order_conf(wanted) or None
        if current is None and value is None:
            continue
        action = Action.CREATE if current is None else Action.DELETE if value is None else Action.UPDATE
        addr = ";".join(state.namesrv)
        items.append(
            Item(
                spec.key, Kind.ORDER_CONF, name, NAMESRV, addr, action, {"orderConf": (current, value)}, value, current
            )
        )
    return items


def _created(cfg: Any, default: Any, kept: list[str], names: dict[str, str]) -> dict[str, tuple[Any, Any]]:
    """A new topic's fields as changes from nothing: queue counts and permission always, the rest when not the
    default."""
    always = ("read_queue_nums", "write_queue_nums", "perm")
    return {names[n]: (None, getattr(cfg, n)) for n in kept if n in always or getattr(cfg, n) != getattr(default, n)}
