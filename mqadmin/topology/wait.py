"""Conditions a CI job waits for: enough writable masters, a topic routable everywhere, a consumer online.

Each condition is checked against the live cluster and answers (met, detail); nothing that fails while
checking (a name server not up yet, a broker restarting) is an error, only a detail: the caller polls until
every condition is met or its deadline passes.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from mqadmin.admin.errors import ResponseError, reason_of
from mqadmin.model.route import ClusterInfo
from mqadmin.model.rpc import namesrv as ns_rpc
from mqadmin.model.topic import PERM_WRITE
from mqadmin.topology.live import FAILURES, online_consumers
from mqadmin.wire.codes import ResponseCode

if TYPE_CHECKING:
    from mqadmin.admin.client import AdminClient


@dataclass(frozen=True, slots=True)
class Check:
    met: bool
    detail: str


class Condition(Protocol):
    @property
    def kind(self) -> str: ...

    @property
    def name(self) -> str: ...

    async def check(self, admin: AdminClient) -> Check: ...


def masters_of(info: ClusterInfo, cluster: str | None) -> dict[str, str]:
    """Broker name → master address, of one cluster or of every cluster."""
    brokers = info.brokers_of(cluster) if cluster else list(info.brokers.values())
    return {b.broker_name: b.master_addr for b in brokers if b.master_addr}


async def broker_writable(admin: AdminClient, addr: str) -> bool:
    """The broker answers and its brokerPermission has the write bit."""
    props = await admin.broker_config(addr)
    perm = props.get("brokerPermission", "6")
    return not perm.lstrip("-").isdigit() or bool(int(perm) & PERM_WRITE)


@dataclass(frozen=True, slots=True)
class WritableMasters:
    count: int
    cluster: str | None
    kind: str = "masters"

    @property
    def name(self) -> str:
        return self.cluster or "(every cluster)"

    async def check(self, admin: AdminClient) -> Check:
        info = await admin.cluster_info()
        if self.cluster and self.cluster not in info.clusters:
            return Check(False, f"no cluster {self.cluster!r} registered yet")
        found = masters_of(info, self.cluster)

        async def one(addr: str) -> bool:
            try:
                return await broker_writable(admin, addr)
            except FAILURES:
                return False

        ok = await asyncio.gather(*(one(a) for a in found.values()))
        writable = sorted(n for n, yes in zip(found, ok, strict=True) if yes)
        return Check(
            len(writable) >= self.count,
            f"{len(writable)} of {self.count} writable masters ({', '.join(writable) or 'none'})",
        )


@dataclass(frozen=True, slots=True)
class TopicRoutable:
    """The topic's route on every name server, with writable queues on every master (of the cluster, or all)."""

    name: str
    cluster: str | None
    kind: str = "topic"

    async def check(self, admin: AdminClient) -> Check:
        info = await admin.cluster_info()
        wanted = set(masters_of(info, self.cluster))
        if not wanted:
            return Check(False, "no master registered yet")
        header = ns_rpc.RouteHeader(topic=self.name, accept_standard_json_only=True)

        async def at(addr: str) -> set[str] | str:
            try:
                route = (await admin.request(addr, ns_rpc.GET_ROUTEINFO_BY_TOPIC, header)).body
            except ResponseError as e:
                return "no route" if e.code == ResponseCode.TOPIC_NOT_EXIST else reason_of(e)
            except FAILURES as e:
                return reason_of(e)
            queues = route.queue_datas if route else []
            return {q.broker_name for q in queues if q.write_queue_nums > 0 and q.perm & PERM_WRITE}

        views = await asyncio.gather(*(at(a) for a in admin.namesrv.addrs))
        short = []
        for addr, seen in zip(admin.namesrv.addrs, views, strict=True):
            if isinstance(seen, str):
                short.append(f"{addr}: {seen}")
            elif missing := sorted(wanted - seen):
                short.append(f"{addr}: no writable queues on {', '.join(missing)}")
        n = len(admin.namesrv.addrs)
        if short:
            return Check(False, f"routable on {n - len(short)} of {n} name servers; {'; '.join(short)}")
        return Check(True, f"routable on {n} name server(s), queues on {len(wanted)} master(s)")


@dataclass(frozen=True, slots=True)
class ConsumerOnline:
    name: str
    cluster: str | None
    kind: str = "group"

    async def check(self, admin: AdminClient) -> Check:
        info = await admin.cluster_info()
        found = masters_of(info, self.cluster)

        async def one(addr: str) -> int:
            try:
                return await online_consumers(admin, addr, self.name)
            except FAILURES:
                return 0

        counts = await asyncio.gather(*(one(a) for a in found.values()))
        return Check(any(counts), f"{max(counts, default=0)} consumer(s) online")


async def check_all(admin: AdminClient, conditions: list[Condition]) -> list[Check]:
    async def one(c: Condition) -> Check:
        try:
            return await c.check(admin)
        except FAILURES as e:
            return Check(False, reason_of(e))

    return list(await asyncio.gather(*(one(c) for c in conditions)))
