"""Choosing the brokers a command acts on (``-b`` one broker, ``-c`` every master of a cluster) and
running one operation on each concurrently, one result per target whatever happens to the others."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import NamedTuple

from mqadmin.admin.results import TargetResult
from mqadmin.model.route import BrokerData, ClusterInfo
from mqadmin.transport.gather import gather


class Target(NamedTuple):  # not a frozen dataclass: 10x cheaper to define (start-up)
    """One broker address to act on. ``addr`` is empty when the broker has no registered master."""

    name: str
    addr: str
    broker_id: int = 0
    cluster: str = ""


class NotMaster(LookupError):
    """A broker name with no master address registered (only slaves)."""


def masters(brokers: Sequence[BrokerData]) -> list[Target]:
    """The master of each broker name, sorted by name; a broker without one gets an empty address."""
    return [
        Target(b.broker_name, b.master_addr or "", 0, b.cluster) for b in sorted(brokers, key=lambda b: b.broker_name)
    ]


def every_address(brokers: Sequence[BrokerData]) -> list[Target]:
    """Every address (masters and slaves) of each broker name, sorted by name and id."""
    return [
        Target(b.broker_name, addr, bid, b.cluster)
        for b in sorted(brokers, key=lambda b: b.broker_name)
        for bid, addr in sorted(b.broker_addrs.items())
    ]


def target_of(addr: str, info: ClusterInfo) -> Target:
    """The target for a ``-b`` address: its broker name and id when the name server lists it."""
    role = info.role_of(addr)
    if role is None:
        return Target("", addr)
    bd, bid = role
    return Target(bd.broker_name, addr, bid, bd.cluster)


Operation = Callable[[Target], Awaitable[TargetResult]]


async def fan_out(targets: Sequence[Target], op: Operation) -> list[TargetResult]:
    """Run ``op`` on every target concurrently; a target that raises (or has no address) becomes a
    FAILED row with the reason. Cancellation and other BaseExceptions propagate.

    Without an event loop (a command run over ``BlockingTransport``) the targets are asked on threads of their
    own, and a single target is awaited directly (``transport.gather``)."""

    async def one(t: Target) -> TargetResult:
        if not t.addr:
            raise NotMaster("no master registered (only slaves)")
        return await op(t)

    outcomes = await gather(*(one(t) for t in targets), return_exceptions=True)
    results: list[TargetResult] = []
    for t, out in zip(targets, outcomes, strict=True):
        if isinstance(out, TargetResult):
            results.append(out)
        elif isinstance(out, Exception):
            results.append(TargetResult.failure(t.name, t.addr, out))
        else:
            raise out
    return results
