"""Carrying out a plan: every change of every broker, brokers concurrently, at most ``concurrency`` requests
in flight in all, one result per item.

Per broker, topics are written in batches with UPDATE_AND_CREATE_TOPIC_LIST (18) where the broker has it
(5.3.0+), else one UPDATE_AND_CREATE_TOPIC (17) each; groups likewise with UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST
(225, 5.3.1+) or one request (200) each; a refused batch is sent again item by item (the rule of
``mqadmin.admin.batch``). A broker that does not answer a request gets no more: its remaining items fail at once
("not sent"), so a hung broker costs one timeout and the others finish. Topic deletions
remove the route from the name servers once no broker of the cluster holds the topic; an orderTopicConf is
written once its topic is in place on every broker of the cluster.

``mqadmin.admin.topics`` writes one topic at a time (the imperative commands); this module batches the many
writes of a plan and needs no read of its own (the plan has read every broker).
"""

from __future__ import annotations

import asyncio
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from mqadmin.admin.batch import NotSent, write_many
from mqadmin.admin.errors import reason_of
from mqadmin.admin.results import NOT_DONE, Status, failure_status
from mqadmin.model.group import GroupWrite
from mqadmin.model.order import ORDER_TOPIC_CONFIG
from mqadmin.model.rpc import groups as group_rpc
from mqadmin.model.rpc import namesrv as ns_rpc
from mqadmin.model.rpc import topics as topic_rpc
from mqadmin.model.topic import attribute_ops
from mqadmin.model.topic_batch import attribute_changes, list_entry
from mqadmin.topology.live import FAILURES
from mqadmin.topology.model import ClusterSpec
from mqadmin.topology.plan import Action, ClusterPlan, Item, Kind, Plan
from mqadmin.transport.errors import Interrupted, TransportError

if TYPE_CHECKING:
    from mqadmin.admin.client import AdminClient

BATCH_SIZE = 500
CONCURRENCY = 16
_DONE = {Action.CREATE: Status.CREATED, Action.UPDATE: Status.UPDATED, Action.DELETE: Status.DELETED}


class Progress(Protocol):
    def advance(self, n: int) -> None:
        """``n`` more items are finished (done or failed)."""


class NoProgress:
    def advance(self, n: int) -> None:
        pass


def done_status(item: Item) -> Status:
    """What an item done as planned reports: created, updated or deleted; an orderTopicConf set is written."""
    if item.kind == Kind.ORDER_CONF and item.action != Action.DELETE:
        return Status.WRITTEN
    return _DONE[item.action]


class Results:
    """What apply did to each change of a plan. Done as planned is the rule and is not held: only the other
    outcomes (failed, not sent) and their reasons are, by ``id`` of the item (the plan holds every item while
    its results are used), so 100,000 items done cost nothing beyond the plan's items."""

    __slots__ = ("plan", "_other", "_reasons", "_reported")

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self._other: dict[int, tuple[Status, str | None]] = {}
        self._reasons: dict[str, str] = {}  # each text once: a broker that stops answering fails all with one
        self._reported: set[int] = set()  # an item nothing reported on is never taken for done

    def set(self, item: Item, status: Status, reason: str | None = None) -> None:
        self._reported.add(id(item))
        if reason is None and status == done_status(item):
            self._other.pop(id(item), None)
        else:
            self._other[id(item)] = (status, reason and self._reasons.setdefault(reason, reason))

    def of(self, item: Item) -> tuple[Status, str | None]:
        """The item's status and the reason it was not done (None when it was)."""
        if id(item) not in self._reported:
            return Status.NOT_SENT, "no result: apply stopped before it was sent"
        return self._other.get(id(item)) or (done_status(item), None)

    def ok(self, item: Item) -> bool:
        return self.of(item)[0] not in NOT_DONE

    def __iter__(self) -> Iterator[tuple[Item, Status, str | None]]:
        """(item, status, reason) of each change, in the plan's order."""
        for item in self.plan.iter_changes():
            yield (item, *self.of(item))

    def counts(self) -> Counter[Status]:
        return Counter(status for _, status, _ in self)

    def to_json(self) -> Iterator[dict[str, Any]]:
        """Each change's JSON (``ItemResultDoc``), one at a time."""
        for item, status, reason in self:
            yield {**item.to_json(), "status": str(status), "reason": reason}


# --- running -------------------------------------------------------------------------------------------------


class _Broker:
    """One broker's writes: shared in-flight limit, and no more requests once it has failed to answer."""

    def __init__(self, admin: AdminClient, addr: str, sem: asyncio.Semaphore) -> None:
        self.admin, self.addr, self.sem = admin, addr, sem
        self.dead: str | None = None

    async def request(self, rpc: Any, header: Any = None, body: Any = None) -> None:
        if self.dead:
            raise NotSent(self.dead)
        async with self.sem:
            if self.dead:
                raise NotSent(self.dead)
            try:
                await self.admin.request(self.addr, rpc, header, body)
            except Interrupted:
                raise  # held back, not a broker that failed to answer
            except TransportError as e:
                self.dead = self.dead or reason_of(e)
                raise


async def apply_plan(
    plan: Plan,
    client_for: Callable[[ClusterSpec], AdminClient],
    *,
    concurrency: int = CONCURRENCY,
    batch_size: int = BATCH_SIZE,
    progress: Progress | None = None,
) -> Results:
    """Carry out every change of ``plan``: a result for each."""
    sem = asyncio.Semaphore(concurrency)
    run = _Run(Results(plan), sem, batch_size, progress or NoProgress())
    await asyncio.gather(*(run.cluster(c, client_for(c.spec)) for c in plan.clusters))
    return run.results


class _Run:
    def __init__(self, results: Results, sem: asyncio.Semaphore, batch_size: int, progress: Progress) -> None:
        self.results, self.sem, self.batch_size, self.progress = results, sem, batch_size, progress

    def done(self, item: Item, status: Status, reason: str | None = None) -> None:
        self.results.set(item, status, reason)
        self.progress.advance(1)

    async def cluster(self, cp: ClusterPlan, admin: AdminClient) -> None:
        per_broker: dict[str, list[Item]] = defaultdict(list)
        conf: list[Item] = []
        for item in cp.items:
            if item.action in _DONE:
                (conf if item.kind == Kind.ORDER_CONF else per_broker[item.addr]).append(item)
        await asyncio.gather(
            *(self.broker(_Broker(admin, addr, self.sem), items) for addr, items in per_broker.items())
        )
        await self.routes(cp, admin)
        await self.order_confs(cp, admin, conf)

    async def broker(self, b: _Broker, items: list[Item]) -> None:
        writes = {k: [i for i in items if i.kind == k and i.action != Action.DELETE] for k in (Kind.TOPIC, Kind.GROUP)}
        deletes = [i for i in items if i.action == Action.DELETE]
        await asyncio.gather(
            self.topic_writes(b, writes[Kind.TOPIC]),
            self.group_writes(b, writes[Kind.GROUP]),
            *(self.delete(b, i) for i in deletes),
        )

    async def each(self, items: list[Item], send: Callable[[Item], Awaitable[None]]) -> None:
        async def one(item: Item) -> None:
            try:
                await send(item)
            except (*FAILURES, NotSent) as e:
                self.done(item, failure_status(e), reason_of(e))
            else:
                self.done(item, done_status(item))

        await asyncio.gather(*(one(i) for i in items))

    async def batched(
        self, b: _Broker, items: list[Item], rpc: Any, entry: Callable[[Item], Any], alone: Callable[[Item], Any]
    ) -> None:
        """Items in batches of the list request ``rpc`` (``mqadmin.admin.batch``), each with its result."""
        if not items:
            return
        done = await write_many(
            b.admin, b.addr, items[0].version, rpc, items,
            entry=entry, alone=alone, chunk=self.batch_size, send=b.request,
        )  # fmt: skip
        for item, error in zip(items, done, strict=True):
            if error is None:
                self.done(item, done_status(item))
            else:
                self.done(item, failure_status(error), reason_of(error))

    async def topic_writes(self, b: _Broker, items: list[Item]) -> None:
        def alone(i: Item) -> tuple[Any, None]:
            ops = attribute_changes(i.current.attributes if i.current else {}, i.wanted.attributes)
            return topic_rpc.CreateTopicHeader.of(i.wanted, attributes=attribute_ops(ops)), None

        entry = lambda i: list_entry(i.wanted, i.current)  # noqa: E731
        await self.batched(b, items, topic_rpc.UPDATE_AND_CREATE_TOPIC_LIST, entry, alone)

    async def group_writes(self, b: _Broker, items: list[Item]) -> None:
        def write(i: Item) -> GroupWrite:
            return GroupWrite(
                i.wanted, attribute_changes(i.current.attributes if i.current else {}, i.wanted.attributes)
            )

        await self.batched(
            b, items, group_rpc.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST, write, lambda i: (None, write(i))
        )

    async def delete(self, b: _Broker, item: Item) -> None:
        async def send(i: Item) -> None:
            if i.kind == Kind.TOPIC:
                await b.request(topic_rpc.DELETE_TOPIC_IN_BROKER, topic_rpc.TopicHeader(topic=i.name))
            else:
                await b.request(group_rpc.DELETE_SUBSCRIPTIONGROUP, group_rpc.DeleteGroupHeader(group_name=i.name))

        await self.each([item], send)

    async def routes(self, cp: ClusterPlan, admin: AdminClient) -> None:
        """Remove from the name servers the route of each topic now deleted from every broker of the cluster that
        held it, unless the file keeps it on another broker of the cluster."""
        deleted: dict[str, list[Item]] = defaultdict(list)
        for i in cp.items:
            if i.kind == Kind.TOPIC and i.action == Action.DELETE:
                deleted[i.name].append(i)
        for name, items in sorted(deleted.items()):
            if cp.problems or name in cp.spec.topics or not all(self.results.ok(i) for i in items):
                continue
            header = ns_rpc.DeleteTopicHeader(topic=name, cluster_name=cp.spec.cluster)
            answers = await admin.request_every_namesrv(ns_rpc.DELETE_TOPIC_IN_NAMESRV, header, Status.DELETED)
            if failed := [a for a in answers if not a.ok]:
                why = "; ".join(f"{a.addr}: {a.reason}" for a in failed)
                for i in items:
                    self.results.set(i, Status.FAILED, f"deleted from the broker; route kept: {why}")

    async def order_confs(self, cp: ClusterPlan, admin: AdminClient, items: list[Item]) -> None:
        for item in items:
            topic_items = [i for i in cp.items if i.kind == Kind.TOPIC and i.name == item.name and i.action in _DONE]
            if any(self.results.of(i)[0] == Status.NOT_SENT for i in topic_items):
                self.done(item, Status.NOT_SENT, "not written: its topic was not sent to every broker (interrupted)")
                continue
            if failed := [i.broker for i in topic_items if not self.results.ok(i)]:
                self.done(item, Status.FAILED, f"not written: the topic failed on {', '.join(failed)}")
                continue
            if item.wanted is None:
                answers = await admin.delete_kv_config(ORDER_TOPIC_CONFIG, item.name)
            else:
                answers = await admin.put_kv_config(ORDER_TOPIC_CONFIG, item.name, item.wanted)
            failed_ns = [a for a in answers if not a.ok]
            if failed_ns:
                held = all(a.status == Status.NOT_SENT for a in failed_ns)
                why = "; ".join(f"{a.addr}: {a.reason}" for a in failed_ns)
                self.done(item, Status.NOT_SENT if held else Status.FAILED, why)
            else:
                self.done(item, done_status(item))
