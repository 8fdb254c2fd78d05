"""Static topics (RocketMQ 5.x logic queues): a fixed number of global queues, each hosted by one broker's
physical queue at a time, and the plans that create, expand or move them.

The bodies are Apache's ``TopicQueueMappingInfo`` / ``TopicQueueMappingDetail`` / ``LogicQueueMappingItem``
/ ``TopicConfigAndQueueMapping``; the planning follows ``TopicQueueMappingUtils`` (createTopicConfigMapping,
remappingStaticTopic and their consistency checks), so a plan made here is one a Java broker accepts.
A plan is pure data: ``mqadmin.admin.static_topics`` reads the current state and sends the plan.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from mqadmin.model.topic import TopicConfig

GLOBAL_SCOPE = "__global__"
MOCK_BROKER_PREFIX = "__syslo__"
BLOCK_SEQ_SIZE = 10000
"""Java's DEFAULT_BLOCK_SEQ_SIZE: a remapped queue's logic offset is rounded up to a multiple of this."""


class MappingError(ValueError):
    """The current mapping (or a requested change) is inconsistent; the message says where."""


def mock_broker_name(scope: str) -> str:
    """The broker name clients see for a static topic's logic queues (``__syslo__global__``)."""
    return MOCK_BROKER_PREFIX + (scope[2:] if scope == GLOBAL_SCOPE else scope)


@dataclass(slots=True)
class LogicQueueMappingItem:
    """One generation of a logic queue: which broker's physical queue holds it from which logic offset."""

    gen: int
    queue_id: int
    bname: str
    logic_offset: int
    start_offset: int = 0
    end_offset: int = -1
    time_of_start: int = -1
    time_of_end: int = -1

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> LogicQueueMappingItem:
        return cls(
            gen=int(obj.get("gen", 0)),
            queue_id=int(obj.get("queueId", 0)),
            bname=str(obj.get("bname") or ""),
            logic_offset=int(obj.get("logicOffset", 0)),
            start_offset=int(obj.get("startOffset", 0)),
            end_offset=int(obj.get("endOffset", -1)),
            time_of_start=int(obj.get("timeOfStart", -1)),
            time_of_end=int(obj.get("timeOfEnd", -1)),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "bname": self.bname,
            "endOffset": self.end_offset,
            "gen": self.gen,
            "logicOffset": self.logic_offset,
            "queueId": self.queue_id,
            "startOffset": self.start_offset,
            "timeOfEnd": self.time_of_end,
            "timeOfStart": self.time_of_start,
        }

    def static_offset_strictly(self, physical_offset: int) -> int:
        """The logic offset of a physical offset of this item (Java computeStaticQueueOffsetStrictly)."""
        if physical_offset < self.start_offset:
            return self.logic_offset
        return self.logic_offset + physical_offset - self.start_offset

    def static_offset_loosely(self, physical_offset: int) -> int:
        """As ``static_offset_strictly``, bounded by a decided end (Java computeStaticQueueOffsetLoosely); -1
        while the item's logic offset is undecided."""
        if self.logic_offset < 0:
            return -1
        if self.start_offset <= self.end_offset < physical_offset:
            return self.logic_offset + self.end_offset - self.start_offset
        return self.static_offset_strictly(physical_offset)

    def physical_offset(self, logic_offset: int) -> int:
        """The offset in this item's physical queue of a logic offset (Java computePhysicalQueueOffset)."""
        return logic_offset - self.logic_offset + self.start_offset

    @property
    def offset_delta(self) -> int:
        """What a client adds to the queue offsets of the messages pulled from this item (Apache's offsetDelta)."""
        return self.logic_offset - self.start_offset

    @property
    def logic_offset_decided(self) -> bool:
        return self.logic_offset >= 0

    @property
    def end_offset_decided(self) -> bool:
        return self.end_offset > self.start_offset

    def max_static_offset(self) -> int:
        if self.end_offset >= self.start_offset:
            return self.logic_offset + self.end_offset - self.start_offset
        return self.logic_offset


@dataclass(slots=True)
class TopicQueueMappingInfo:
    """What a broker registers with the name server for a static topic (routes carry it)."""

    topic: str
    total_queues: int
    bname: str
    epoch: int
    scope: str = GLOBAL_SCOPE
    dirty: bool = False
    curr_id_map: dict[int, int] = field(default_factory=dict)
    """Logic queue id → this broker's physical queue id, for the queues it leads now."""

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> TopicQueueMappingInfo:
        return cls(
            topic=str(obj.get("topic") or ""),
            total_queues=int(obj.get("totalQueues", 0)),
            bname=str(obj.get("bname") or ""),
            epoch=int(obj.get("epoch", 0)),
            scope=str(obj.get("scope") or GLOBAL_SCOPE),
            dirty=bool(obj.get("dirty", False)),
            curr_id_map={int(k): int(v) for k, v in (obj.get("currIdMap") or {}).items()},
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "bname": self.bname,
            "currIdMap": {str(k): v for k, v in sorted(self.curr_id_map.items())},
            "dirty": self.dirty,
            "epoch": self.epoch,
            "scope": self.scope,
            "topic": self.topic,
            "totalQueues": self.total_queues,
        }


@dataclass(slots=True)
class TopicQueueMappingDetail:
    """A broker's full mapping of a static topic: every logic queue it hosts (led now or before), each with
    its generations, oldest first."""

    topic: str
    total_queues: int
    bname: str
    epoch: int
    scope: str = GLOBAL_SCOPE
    dirty: bool = False
    hosted_queues: dict[int, list[LogicQueueMappingItem]] = field(default_factory=dict)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> TopicQueueMappingDetail:
        info = TopicQueueMappingInfo.from_json(obj)
        hosted = {
            int(k): [LogicQueueMappingItem.from_json(i) for i in items]
            for k, items in (obj.get("hostedQueues") or {}).items()
        }
        return cls(info.topic, info.total_queues, info.bname, info.epoch, info.scope, info.dirty, hosted)

    def leader_ids(self) -> dict[int, int]:
        """Logic queue id → physical queue id of the queues whose newest generation is on this broker."""
        return {gid: items[-1].queue_id for gid, items in self.hosted_queues.items() if items[-1].bname == self.bname}

    def info(self) -> TopicQueueMappingInfo:
        """What this broker registers of the mapping with the name servers (its current leaders only)."""
        return TopicQueueMappingInfo(
            self.topic, self.total_queues, self.bname, self.epoch, self.scope, self.dirty, self.leader_ids()
        )

    def to_json(self) -> dict[str, Any]:
        return {
            **self.info().to_json(),
            "hostedQueues": {str(k): [i.to_json() for i in v] for k, v in sorted(self.hosted_queues.items())},
        }


@dataclass(slots=True)
class StaticTopicConfig:
    """Apache's TopicConfigAndQueueMapping: a broker's topic config and its mapping (None for a topic
    that is not static)."""

    config: TopicConfig
    mapping: TopicQueueMappingDetail | None = None

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> StaticTopicConfig:
        detail = obj.get("mappingDetail")
        return cls(TopicConfig.from_json(dict(obj)), TopicQueueMappingDetail.from_json(detail) if detail else None)

    def to_json(self) -> dict[str, Any]:
        out = self.config.to_json()
        if self.mapping is not None:  # a normal topic's answer has no mappingDetail (fastjson leaves nulls out)
            out["mappingDetail"] = self.mapping.to_json()
        return out


@dataclass(slots=True)
class MappingOne:
    """One logic queue as the leading broker sees it: its id and generations."""

    global_id: int
    bname: str
    items: list[LogicQueueMappingItem]


@dataclass(slots=True)
class StaticTopicPlan:
    """What to write to each broker (Apache's TopicRemappingDetailWrapper)."""

    topic: str
    epoch: int
    brokers: dict[str, StaticTopicConfig]
    map_in: set[str] = field(default_factory=set)
    map_out: set[str] = field(default_factory=set)

    def leaders(self) -> dict[int, str]:
        """Logic queue id → the broker that leads it under this plan."""
        return {gid: one.bname for gid, one in build_mapping_items(self.details(), replace=False).items()}

    def details(self) -> list[TopicQueueMappingDetail]:
        return [c.mapping for c in self.brokers.values() if c.mapping is not None]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> StaticTopicPlan:
        """A TopicRemappingDetailWrapper document (as Java's tools and ``to_json`` write it)."""
        brokers = {str(b): StaticTopicConfig.from_json(c) for b, c in (obj.get("brokerConfigMap") or {}).items()}
        return cls(
            topic=str(obj.get("topic") or ""),
            epoch=int(obj.get("epoch", 0)),
            brokers=brokers,
            map_in={str(b) for b in obj.get("brokerToMapIn") or []},
            map_out={str(b) for b in obj.get("brokerToMapOut") or []},
        )

    def check(self, topic: str) -> None:
        """The plan is complete and consistent for ``topic`` (MappingError otherwise)."""
        _check_all(topic, self.brokers)

    def to_json(self) -> dict[str, Any]:
        return {
            "brokerConfigMap": {b: c.to_json() for b, c in sorted(self.brokers.items())},
            "brokerToMapIn": sorted(self.map_in),
            "brokerToMapOut": sorted(self.map_out),
            "epoch": self.epoch,
            "topic": self.topic,
            "type": "REMAPPING" if self.map_in or self.map_out else "CREATE_OR_UPDATE",
        }


# --- consistency checks (TopicQueueMappingUtils) ---------------------------------------------------


def check_epoch_and_total(topic: str, brokers: Mapping[str, StaticTopicConfig]) -> tuple[int, int]:
    """Every broker's mapping names this topic and broker, is clean, and agrees on scope, epoch and total
    queues; returns (epoch, total queues)."""
    epoch = total = -1
    scope: str | None = None
    for broker, cfg in sorted(brokers.items()):
        detail = cfg.mapping
        if detail is None:
            raise MappingError(f"{topic} on {broker} is not a static topic (it has no logic-queue mapping)")
        if detail.bname != broker:
            raise MappingError(f"the mapping on {broker} names broker {detail.bname}")
        if detail.dirty:
            raise MappingError(f"the mapping on {broker} is dirty")
        if detail.topic != topic or cfg.config.topic_name != topic:
            raise MappingError(f"the mapping on {broker} is for topic {detail.topic}")
        if scope is not None and detail.scope != scope:
            raise MappingError(f"scope does not match: {detail.scope} != {scope} on {broker}")
        if epoch != -1 and detail.epoch != epoch:
            raise MappingError(f"epoch does not match: {epoch} != {detail.epoch} on {broker}")
        if total != -1 and detail.total_queues != total:
            raise MappingError(f"total queue number does not match: {total} != {detail.total_queues} on {broker}")
        scope, epoch, total = detail.scope, detail.epoch, detail.total_queues
    return epoch, total


def check_item_offsets(items: list[LogicQueueMappingItem]) -> None:
    """Generations grow, logic offsets grow, only the newest item may have an undecided (-1) logic offset."""
    last_gen = last_offset = -1
    for i in range(len(items) - 1, -1, -1):
        item = items[i]
        if item.start_offset < 0 or item.gen < 0 or item.queue_id < 0:
            raise MappingError(f"negative field in {item}")
        if len(items) >= 2 and i <= len(items) - 2 and item.logic_offset < 0:
            raise MappingError(f"an older generation has a negative logic offset: {item}")
        if last_gen != -1 and item.gen >= last_gen:
            raise MappingError(f"generations do not increase: {item}")
        if item.end_offset != -1 and item.end_offset < item.start_offset:
            raise MappingError(f"end offset before start offset: {item}")
        if (
            last_offset != -1
            and item.logic_offset != -1
            and (item.logic_offset >= last_offset or item.max_static_offset() >= last_offset)
        ):
            raise MappingError(f"logic offsets do not increase: {item}")
        last_gen, last_offset = item.gen, item.logic_offset


def build_mapping_items(
    details: Iterable[TopicQueueMappingDetail], *, replace: bool, check_complete: bool = False
) -> dict[int, MappingOne]:
    """Logic queue id → its leader's view, newest epoch first; with ``check_complete`` every id below the
    total must be led by exactly one broker."""
    ordered = sorted(details, key=lambda d: d.epoch, reverse=True)
    total = 0
    out: dict[int, MappingOne] = {}
    for detail in ordered:
        total = max(total, detail.total_queues)
        for gid, items in detail.hosted_queues.items():
            check_item_offsets(items)
            if not items or items[-1].bname != detail.bname:
                continue
            if gid in out:
                if not replace:
                    raise MappingError(f"logic queue {gid} is led by both {out[gid].bname} and {detail.bname}")
                continue
            out[gid] = MappingOne(gid, detail.bname, items)
    if check_complete:
        if total != len(out):
            raise MappingError(f"the total queue number {total} does not match the {len(out)} hosted logic queues")
        missing = [i for i in range(total) if i not in out]
        if missing:
            raise MappingError(f"logic queue {missing[0]} is not hosted by any broker")
    check_no_shared_physical_queue(out.values())
    return out


def check_no_shared_physical_queue(ones: Iterable[MappingOne]) -> None:
    seen: dict[tuple[str, int], int] = {}
    for one in ones:
        for item in one.items:
            key = (item.bname, item.queue_id)
            if key in seen and seen[key] != one.global_id:
                where = f"{item.bname}-{item.queue_id}"
                raise MappingError(f"logic queues {one.global_id} and {seen[key]} share the physical queue {where}")
            seen[key] = one.global_id


def check_physical_queues(brokers: Mapping[str, StaticTopicConfig]) -> None:
    """Each item's physical queue starts at offset 0 and exists on its broker (below its write queues)."""
    for cfg in brokers.values():
        if cfg.config.read_queue_nums < cfg.config.write_queue_nums:
            raise MappingError(f"{cfg.config.topic_name} has fewer read than write queues")
        assert cfg.mapping is not None
        for items in cfg.mapping.hosted_queues.values():
            for item in items:
                if item.start_offset != 0:
                    raise MappingError(f"physical queue {item.bname}-{item.queue_id} does not start at offset 0")
                host = brokers.get(item.bname)
                if host is None:
                    raise MappingError(f"the mapping names broker {item.bname}, which has no config for the topic")
                if item.queue_id >= host.config.write_queue_nums:
                    raise MappingError(f"physical queue {item.bname}-{item.queue_id} is beyond its write queues")


def _check_all(topic: str, brokers: Mapping[str, StaticTopicConfig]) -> tuple[int, int, dict[int, MappingOne]]:
    epoch, total = check_epoch_and_total(topic, brokers)
    ones = build_mapping_items([c.mapping for c in brokers.values() if c.mapping], replace=False, check_complete=True)
    check_physical_queues(brokers)
    return epoch, total, ones


def merge_mapping(
    old: TopicQueueMappingDetail | None, new: TopicQueueMappingDetail, *, force: bool
) -> TopicQueueMappingDetail:
    """The mapping a broker keeps when it is sent ``new`` while holding ``old`` (Apache's
    TopicQueueMappingManager.updateTopicQueueMapping): the items' offsets are checked; with ``force`` the old
    queues missing from ``new`` are kept; else an older epoch or another scope is refused, and so is, at the
    same epoch, a queue left out or a different leader. Raises MappingError with Apache's message."""
    for items in new.hosted_queues.values():
        check_item_offsets(items)
    if old is None:
        return new
    hosted = dict(new.hosted_queues)
    if not force:
        if new.epoch < old.epoch:
            raise MappingError(f"Can't accept data with small epoch {new.epoch} < {old.epoch}")
        if new.scope != old.scope:
            raise MappingError(f"Can't accept data with unmatched scope {new.scope} != {old.scope}")
    same_epoch = new.epoch == old.epoch
    for gid, old_items in old.hosted_queues.items():
        new_items = hosted.get(gid)
        if new_items is None:
            if same_epoch and not force:
                raise MappingError("Cannot accept equal epoch with null data")
            hosted[gid] = old_items
        elif not force and same_epoch and old_items:
            if not new_items:
                raise MappingError("The new item list is null or empty")
            a, b = old_items[-1], new_items[-1]
            if (a.gen, a.bname, a.queue_id, a.start_offset) != (b.gen, b.bname, b.queue_id, b.start_offset):
                raise MappingError("The new leader is different but epoch equal")
    return replace(new, hosted_queues=hosted)


# --- allocation --------------------------------------------------------------------------------------


class _Allocator:
    """Give each new logic queue to a broker that has the fewest (Java's MappingAllocator): ties are broken
    at random for a new mapping, or by the fewest queues held before for a remapping."""

    def __init__(self, id_to_broker: dict[int, str], counts: dict[str, int], before: dict[str, int] | None) -> None:
        self.id_to_broker = dict(id_to_broker)
        self.counts = dict(counts)
        self.before = before
        self._least: list[str] = []
        self._index = 0

    def _refresh(self) -> None:
        low = min(self.counts.values())
        self._least = sorted(b for b, n in self.counts.items() if n == low)
        if before := self.before:
            self._least.sort(key=lambda b: before.get(b, 0))
        else:
            random.shuffle(self._least)
        self._index = len(self._least) - 1

    def _next(self) -> str:
        if not self._least:
            self._refresh()
        return self._least.pop(self._index % len(self._least))

    def up_to(self, total: int) -> None:
        for i in range(len(self.id_to_broker), total):
            broker = self._next()
            self.counts[broker] = self.counts.get(broker, 0) + 1
            self.id_to_broker[i] = broker


def _new_epoch(old_epoch: int) -> int:
    return max(old_epoch + 1000, int(time.time() * 1000))


def plan_create_or_expand(
    topic: str, total: int, targets: set[str], current: Mapping[str, StaticTopicConfig]
) -> StaticTopicPlan:
    """Create the static topic with ``total`` logic queues spread over ``targets``, or add queues up to
    ``total``: existing queues stay where they are, and brokers that hold the topic count as targets."""
    brokers = {b: _copy(c) for b, c in current.items()}
    targets = targets | set(brokers)
    ones: dict[int, MappingOne] = {}
    epoch = int(time.time() * 1000)
    if brokers:
        epoch, _, ones = _check_all(topic, brokers)
    if total < len(ones):
        raise MappingError(f"a static topic cannot shrink: it has {len(ones)} queues, {total} were asked")
    if total == len(ones):
        raise MappingError(f"{topic} already has {total} queues: nothing to do")
    counts = dict.fromkeys(targets, 0)
    for one in ones.values():
        counts[one.bname] = counts.get(one.bname, 0) + 1
    allocator = _Allocator({gid: one.bname for gid, one in ones.items()}, counts, None)
    allocator.up_to(total)
    new_epoch = _new_epoch(epoch)
    for gid, broker in sorted(allocator.id_to_broker.items()):
        if gid in ones:
            continue
        cfg = brokers.get(broker)
        if cfg is None:
            cfg = brokers[broker] = StaticTopicConfig(
                TopicConfig(topic, 0, 0), TopicQueueMappingDetail(topic, 0, broker, int(time.time() * 1000))
            )
        cfg.config = cfg.config.with_(
            read_queue_nums=cfg.config.read_queue_nums + 1, write_queue_nums=cfg.config.write_queue_nums + 1
        )
        assert cfg.mapping is not None
        cfg.mapping.hosted_queues[gid] = [LogicQueueMappingItem(0, cfg.config.write_queue_nums - 1, broker, 0)]
    return _finish(topic, brokers, new_epoch, total, set(), set())


def plan_remapping(topic: str, targets: set[str], current: Mapping[str, StaticTopicConfig]) -> StaticTopicPlan:
    """Move logic queues so that they are spread evenly over ``targets``; a broker either gains queues
    (map in) or loses them (map out), never both. A moved queue gets a new generation on its new broker
    whose logic offset is decided when the plan is applied (after the old leader stops taking writes)."""
    brokers = {b: _copy(c) for b, c in current.items()}
    epoch, total, ones = _check_all(topic, brokers)
    before: dict[str, int] = {}
    for one in ones.values():
        before[one.bname] = before.get(one.bname, 0) + 1
    allocator = _Allocator({}, dict.fromkeys(targets, 0), before)
    allocator.up_to(total)
    expected = dict(allocator.counts)
    waiting: list[int] = []
    leaders: dict[int, str] = {}
    for gid in sorted(ones):
        broker = ones[gid].bname
        if expected.get(broker, 0) > 0:
            leaders[gid] = broker
            expected[broker] -= 1
        else:
            waiting.append(gid)
            if broker in expected:
                del expected[broker]
    for broker, n in expected.items():
        for _ in range(n):
            leaders[waiting.pop(0)] = broker
    new_epoch = _new_epoch(epoch)
    map_in: set[str] = set()
    map_out: set[str] = set()
    for gid, broker in sorted(leaders.items()):
        one = ones[gid]
        if one.bname == broker:
            continue
        map_in.add(broker)
        map_out.add(one.bname)
        cfg = brokers.get(broker)
        if cfg is None:
            cfg = brokers[broker] = StaticTopicConfig(
                TopicConfig(topic, 0, 0), TopicQueueMappingDetail(topic, total, broker, new_epoch)
            )
        cfg.config = cfg.config.with_(
            read_queue_nums=cfg.config.read_queue_nums + 1, write_queue_nums=cfg.config.write_queue_nums + 1
        )
        items = [*one.items, LogicQueueMappingItem(one.items[-1].gen + 1, cfg.config.write_queue_nums - 1, broker, -1)]
        source = brokers[one.bname].mapping
        assert cfg.mapping is not None and source is not None
        cfg.mapping.hosted_queues[gid] = items
        source.hosted_queues[gid] = items
    plan = _finish(topic, brokers, new_epoch, total, map_in, map_out)
    stray = {gid: b for gid, b in plan.leaders().items() if b not in targets}
    if stray:
        raise MappingError(f"logic queue {min(stray)} would stay on {stray[min(stray)]}, not a target broker")
    return plan


def _finish(
    topic: str, brokers: dict[str, StaticTopicConfig], epoch: int, total: int, map_in: set[str], map_out: set[str]
) -> StaticTopicPlan:
    for cfg in brokers.values():
        assert cfg.mapping is not None
        cfg.mapping.epoch = epoch
        cfg.mapping.total_queues = total
    _check_all(topic, brokers)
    return StaticTopicPlan(topic, epoch, brokers, map_in, map_out)


def complete_with_cluster_peers(plan: StaticTopicPlan, peers: Iterable[str]) -> None:
    """Give every other broker of the plan's clusters an empty mapping (0 queues), as Java's
    completeNoTargetBrokers does, so each broker of those clusters knows the topic's epoch and total."""
    for broker in sorted(set(peers) - set(plan.brokers)):
        plan.brokers[broker] = StaticTopicConfig(
            TopicConfig(plan.topic, 0, 0), TopicQueueMappingDetail(plan.topic, _total(plan), broker, plan.epoch)
        )


def _total(plan: StaticTopicPlan) -> int:
    return next(c.mapping.total_queues for c in plan.brokers.values() if c.mapping is not None)


def block_round_up(offset: int, block: int = BLOCK_SEQ_SIZE) -> int:
    """The next block boundary at least half a block above ``offset`` (Java blockSeqRoundUp)."""
    num, left = divmod(offset, block)
    return (num + 1) * block if left < block // 2 else (num + 2) * block


def _copy(cfg: StaticTopicConfig) -> StaticTopicConfig:
    if cfg.mapping is None:
        return StaticTopicConfig(cfg.config, None)
    hosted = {gid: [replace(i) for i in items] for gid, items in cfg.mapping.hosted_queues.items()}
    return StaticTopicConfig(cfg.config, replace(cfg.mapping, hosted_queues=hosted))
