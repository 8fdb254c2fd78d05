"""Brokers with their runtime information (GET_BROKER_RUNTIME_INFO), shared by clusterList and brokerStatus."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal, NotRequired, TypedDict

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult
    from mqadmin.model.broker_health import BrokerHealth
    from mqadmin.model.route import ClusterInfo


class TimerDoc(TypedDict):
    readBehind: int
    offsetBehind: int
    congestNum: int
    enqueueTps: float
    dequeueTps: float


class BrokerRowDoc(TypedDict):
    """One broker (master or slave) with the health figures of its runtime info (null: the broker does not
    report that figure, e.g. a 4.9 broker has no ack pool, timer or activation)."""

    cluster: str
    broker: str
    brokerId: Annotated[int, "0: the master"]
    role: Literal["master", "slave"]
    addr: str
    version: Annotated[str | None, "brokerVersionDesc, e.g. V5_3_3"]
    inTps: float | None
    outTps: float | None
    sendQueueSize: int | None
    sendQueueWaitMs: int | None
    pullQueueSize: int | None
    pullQueueWaitMs: int | None
    ackQueueSize: int | None
    ackQueueWaitMs: int | None
    timer: TimerDoc | None
    pageCacheWaitMs: int | None
    hours: Annotated[float | None, "since the earliest message still stored"]
    diskRatio: Annotated[float | None, "of the commit log's disk, 0..1"]
    activated: bool | None
    error: Annotated[str | None, "why the runtime info could not be read (null: it was)"]
    inTotalYesterday: NotRequired[Annotated[int | None, "-m: messages in yesterday"]]
    outTotalYesterday: NotRequired[Annotated[int | None, "-m: messages out yesterday"]]
    inTotalToday: NotRequired[Annotated[int | None, "-m: messages in today"]]
    outTotalToday: NotRequired[Annotated[int | None, "-m: messages out today"]]


class ClusterListDoc(TypedDict):
    brokers: list[BrokerRowDoc]


@dataclass(slots=True)
class BrokerRow:
    cluster: str
    broker: str
    broker_id: int
    addr: str
    info: dict[str, str] | None
    error: str | None
    cause: Exception | None = None
    """The failure ``error`` describes."""
    read_ms: int = field(default_factory=lambda: int(time.time() * 1000))  # when the info was read

    @property
    def health(self) -> BrokerHealth:
        from mqadmin.model.broker_health import broker_health

        return broker_health(self.info or {}, self.read_ms)

    @property
    def role(self) -> str:
        return "master" if self.broker_id == 0 else "slave"

    def to_json(self, more: bool) -> dict[str, Any]:
        info = self.info or {}
        out: dict[str, Any] = {
            "cluster": self.cluster,
            "broker": self.broker,
            "brokerId": self.broker_id,
            "role": self.role,
            "addr": self.addr,
            "version": info.get("brokerVersionDesc"),
            **self.health.to_json(),
            "error": self.error,
        }
        if more:
            out.update(_totals(info))
        return out


def _totals(info: dict[str, str]) -> dict[str, int | None]:
    """mqadmin ``clusterList -m``: messages in and out yesterday and today, from the day counters."""

    def diff(later: str, earlier: str) -> int | None:
        try:
            return int(info[later]) - int(info[earlier])
        except (KeyError, ValueError):
            return None

    return {
        "inTotalYesterday": diff("msgPutTotalTodayMorning", "msgPutTotalYesterdayMorning"),
        "outTotalYesterday": diff("msgGetTotalTodayMorning", "msgGetTotalYesterdayMorning"),
        "inTotalToday": diff("msgPutTotalTodayNow", "msgPutTotalTodayMorning"),
        "outTotalToday": diff("msgGetTotalTodayNow", "msgGetTotalTodayMorning"),
    }


async def broker_rows(admin: AdminClient, info: ClusterInfo, cluster: str | None) -> list[BrokerRow]:
    """Every broker address (masters and slaves) with its runtime info, fetched concurrently."""
    from mqadmin.admin import UnknownCluster
    from mqadmin.admin.errors import reason_of
    from mqadmin.admin.fanout import every_address
    from mqadmin.transport.gather import gather

    if cluster is not None and cluster not in info.clusters:
        raise UnknownCluster(cluster, list(info.clusters))
    targets = [
        t for c in sorted(info.clusters) if cluster is None or c == cluster for t in every_address(info.brokers_of(c))
    ]
    answers = await gather(*(admin.broker_runtime_info(t.addr) for t in targets), return_exceptions=True)
    rows = []
    for t, answer in zip(targets, answers, strict=True):
        if isinstance(answer, BaseException) and not isinstance(answer, Exception):
            raise answer
        failed = isinstance(answer, Exception)
        rows.append(
            BrokerRow(
                t.cluster,
                t.name,
                t.broker_id,
                t.addr,
                None if failed else answer,
                reason_of(answer) if failed else None,
                answer if isinstance(answer, Exception) else None,
            )
        )
    return rows


def as_results(rows: list[BrokerRow]) -> list[TargetResult]:
    from mqadmin.admin import Status, TargetResult

    return [
        TargetResult(r.broker, r.addr, Status.FAILED if r.error else Status.OK, r.error, error=r.cause) for r in rows
    ]
