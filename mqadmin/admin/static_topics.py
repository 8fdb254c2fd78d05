"""Static topics on 5.x brokers: read every broker's logic-queue mapping of a topic, and write a plan
(``mqadmin.model.static_topic``) with UPDATE_AND_CREATE_STATIC_TOPIC (513).

Writing a plan starts with one broker alone: a broker that cannot host static topics (4.9, or mqadmin's
embedded broker) refuses the request, and ``StaticTopicsUnsupported`` is raised with nothing changed
anywhere. A remapping is written in Java's order (MQAdminUtils.remappingStaticTopic): brokers gaining
queues, brokers losing them (they stop taking writes for those queues), then the logic offset where each
moved queue continues is decided from the old leader's max offset, the gaining brokers are written again
with it, and the other brokers last.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from mqadmin.admin.batch import UNSUPPORTED
from mqadmin.admin.errors import AdminError, ResponseError, reason_of
from mqadmin.admin.fanout import Target, fan_out
from mqadmin.admin.results import Status, TargetResult
from mqadmin.admin.topics import TopicOps
from mqadmin.model.route import ClusterInfo
from mqadmin.model.rpc import static_topics as srpc
from mqadmin.model.rpc import topics as rpc
from mqadmin.model.static_topic import MappingError, StaticTopicConfig, StaticTopicPlan, block_round_up
from mqadmin.wire.codes import ResponseCode

STATIC_HINT = "static topics need RocketMQ 5.0 or later brokers"


class StaticTopicsUnsupported(AdminError):
    """A broker that cannot host static topics (it does not know the request)."""

    def __init__(self, broker: str, addr: str, error: ResponseError) -> None:
        self.broker = broker
        self.addr = addr
        super().__init__(f"{broker} ({addr}) cannot host static topics: it answered {error.describe()}")


class StaticTopicOps(TopicOps):
    async def static_topic_configs(self, topic: str, info: ClusterInfo) -> dict[str, StaticTopicConfig]:
        """Broker name → its config and mapping of ``topic``, for every broker that holds the topic (asked of
        every master the name server knows). Brokers too old to answer GET_TOPIC_CONFIG cannot hold a static
        topic and are left out."""
        targets = [Target(b.broker_name, b.master_addr) for b in info.brokers.values() if b.master_addr]

        async def one(t: Target) -> TargetResult:
            try:
                reply = await self.request(t.addr, rpc.GET_TOPIC_CONFIG, rpc.GetTopicConfigHeader(topic=topic, lo=True))
            except ResponseError as e:
                if e.code in UNSUPPORTED:
                    return TargetResult(t.name, t.addr, Status.SKIPPED)
                raise
            found = reply.body
            if reply.code == ResponseCode.TOPIC_NOT_EXIST or found is None:
                return TargetResult(t.name, t.addr, Status.NOT_FOUND)
            if found.mapping is not None and found.mapping.bname != t.name:
                raise MappingError(f"{t.name} holds the mapping of broker {found.mapping.bname}")
            return TargetResult(t.name, t.addr, Status.OK, data=found)

        out: dict[str, StaticTopicConfig] = {}
        for r in await fan_out(targets, one):
            if r.status == Status.FAILED:
                raise AdminError(f"cannot read {topic} from {r.name} ({r.addr}): {r.reason}")
            if r.status == Status.OK:
                out[r.name] = r.data
        return out

    async def write_static_plan(
        self, plan: StaticTopicPlan, info: ClusterInfo, existing: Iterable[str], *, force: bool = False
    ) -> list[TargetResult]:
        """Write every broker of a create/expand plan: the first one alone, then the rest concurrently.
        ``existing`` names the brokers that held the topic before (``updated``; the others ``created``)."""
        targets = self._plan_targets(plan, info)
        return await self._write_steps(plan, [list(targets)], set(existing), force)

    async def remap_static_topic(
        self, plan: StaticTopicPlan, info: ClusterInfo, existing: Iterable[str], *, force: bool = False
    ) -> list[TargetResult]:
        """Apply a remapping plan in Java's five steps; a failing step stops the ones after it (their
        brokers are reported ``skipped``)."""
        targets = self._plan_targets(plan, info)
        by_name = {t.name: t for t in targets}
        map_in = [by_name[b] for b in sorted(plan.map_in)]
        map_out = [by_name[b] for b in sorted(plan.map_out)]
        rest = [t for t in targets if t.name not in plan.map_in | plan.map_out]
        seen = set(existing)
        first = {r.name: r for r in await self._write_steps(plan, [map_in, map_out], seen, force)}
        if any(not r.ok or r.status == Status.SKIPPED for r in first.values()):
            first.update({t.name: _skipped(t) for t in rest})
            return [first[t.name] for t in targets]
        try:
            await self._decide_logic_offsets(plan, map_out)
        except (AdminError, MappingError) as e:
            why = f"moved queues have no logic offset yet: deciding it failed: {reason_of(e)}"
            first.update({t.name: TargetResult(t.name, t.addr, Status.FAILED, why) for t in map_in})
            first.update({t.name: _skipped(t) for t in rest})
            return [first[t.name] for t in targets]
        for r in await self._write_steps(plan, [map_in, rest], seen, force):
            if r.name not in first or not r.ok or r.status == Status.SKIPPED:
                first[r.name] = r
        return [first[t.name] for t in targets]

    def _plan_targets(self, plan: StaticTopicPlan, info: ClusterInfo) -> list[Target]:
        missing = sorted(b for b in plan.brokers if not (info.brokers.get(b) and info.brokers[b].master_addr))
        if missing:
            raise AdminError(f"no master is registered for broker {', '.join(missing)}")
        return [Target(b, info.brokers[b].master_addr or "", 0, info.brokers[b].cluster) for b in sorted(plan.brokers)]

    async def _write_steps(
        self, plan: StaticTopicPlan, steps: list[list[Target]], existing: set[str], force: bool
    ) -> list[TargetResult]:
        """Each step's brokers concurrently, the very first broker alone; stop at a step with a failure."""
        results: list[TargetResult] = []
        first = True
        for i, step in enumerate(steps):
            if not step:
                continue
            if first:
                head = [await self._write_first(plan, step[0], existing, force)]
                results += head
                first = False
                if not head[0].ok:
                    return results + [_skipped(t) for s in steps[i:] for t in s if t not in step[:1]]
                step = step[1:]
            done = await fan_out(step, lambda t: self._write_one(plan, t, existing, force))
            results += done
            if not all(r.ok for r in done):
                return results + [_skipped(t) for s in steps[i + 1 :] for t in s]
        return results

    async def _write_first(
        self, plan: StaticTopicPlan, target: Target, existing: set[str], force: bool
    ) -> TargetResult:
        """The first broker of a plan: ``StaticTopicsUnsupported`` propagates (nothing was changed anywhere),
        other failures become its row."""
        try:
            return await self._write_one(plan, target, existing, force)
        except StaticTopicsUnsupported:
            raise
        except Exception as e:
            return TargetResult.failure(target.name, target.addr, e)

    async def _write_one(self, plan: StaticTopicPlan, target: Target, existing: set[str], force: bool) -> TargetResult:
        cfg = plan.brokers[target.name]
        assert cfg.mapping is not None
        header = replace(rpc.CreateTopicHeader.of(cfg.config), attributes=None, force=force)
        try:
            await self.request(target.addr, srpc.UPDATE_AND_CREATE_STATIC_TOPIC, header, cfg.mapping)
        except ResponseError as e:
            if e.code in UNSUPPORTED:
                raise StaticTopicsUnsupported(target.name, target.addr, e) from None
            raise
        status = Status.UPDATED if target.name in existing else Status.CREATED
        existing.add(target.name)
        return TargetResult(target.name, target.addr, status, data=cfg)

    async def _decide_logic_offsets(self, plan: StaticTopicPlan, map_out: list[Target]) -> None:
        """Java's step 3: each moved queue continues, on its new broker, at the old leader's max offset
        (as a logic offset) rounded up to the next block."""
        for target in map_out:
            cfg = plan.brokers[target.name]
            assert cfg.mapping is not None
            stats = {(q.broker_name, q.queue_id): q for q in await self.topic_stats(target.addr, plan.topic)}
            for gid, items in cfg.mapping.hosted_queues.items():
                if len(items) < 2 or items[-1].logic_offset > 0:
                    continue
                new, old = items[-1], items[-2]
                found = stats.get((old.bname, old.queue_id))
                if found is None:
                    raise MappingError(f"no max offset for queue {old.queue_id} of {old.bname}")
                if found.max_offset < old.start_offset:
                    raise MappingError(f"the max offset of {old.bname}-{old.queue_id} is below its start offset")
                new.logic_offset = block_round_up(old.static_offset_strictly(found.max_offset))
                gaining = plan.brokers[new.bname].mapping
                assert gaining is not None
                gaining.hosted_queues[gid] = items


def _skipped(t: Target) -> TargetResult:
    return TargetResult(t.name, t.addr, Status.SKIPPED, "not written: an earlier step failed")
