"""Collecting a fleet's metadata concurrently into an export directory.

Per source (a set of name servers): cluster info (106) and the ORDER_TOPIC_CONFIG KV list (219);
per master broker: its config (26, for ``brokerPermission``), every topic config (21), every
subscription group (201), and consume stats per group (208). Every request goes through one
semaphore, so at most ``concurrency`` requests are in flight across the whole fleet.

Failures are recorded, never fatal: a source whose name servers do not answer, a broker that is
down, one group whose stats fail. The manifest says what was collected and what was not.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from mqadmin.admin.client import AdminClient
from mqadmin.admin.errors import AdminError, reason_of
from mqadmin.admin.results import overall_status
from mqadmin.fleet.fleetfile import Source
from mqadmin.fleet.writer import ExportWriter
from mqadmin.model.order import ORDER_TOPIC_CONFIG
from mqadmin.model.route import MASTER_ID, BrokerData
from mqadmin.model.topic import TopicConfig
from mqadmin.transport.base import Transport
from mqadmin.transport.errors import TransportError

T = TypeVar("T")

FAILURES = (AdminError, TransportError, ValueError, KeyError, TypeError)
"""What one failed request can raise: an error answer, a transport failure, or a body we cannot read."""

MAX_ERRORS_KEPT = 5


class Progress(Protocol):
    def planned(self, n: int) -> None:
        """``n`` more requests are known to be needed."""

    def finished(self) -> None:
        """One request is done (whatever its outcome)."""


class NoProgress:
    def planned(self, n: int) -> None:
        pass

    def finished(self) -> None:
        pass


# --- lag per (broker, topic) ---------------------------------------------------------------------


@dataclass(slots=True)
class Lag:
    broker_name: str
    topic: str
    lag: int = 0
    queues: int = 0


async def consume_lag(client: AdminClient, addr: str, group: str) -> list[Lag]:
    """The group's lag on one broker summed per (broker, topic), as Java's ``consumerProgress`` sums
    ``brokerOffset - consumerOffset`` over the queues."""
    stats = await client.consume_stats(addr, group)
    sums: dict[tuple[str, str], Lag] = {}
    for q in stats.queues:
        entry = sums.setdefault((q.broker_name, q.topic), Lag(q.broker_name, q.topic))
        entry.lag += q.broker_offset - q.consumer_offset
        entry.queues += 1
    return [sums[k] for k in sorted(sums)]


# --- the collection --------------------------------------------------------------------------------


@dataclass(slots=True)
class BrokerReport:
    """One broker address's line in the manifest."""

    broker_name: str
    broker_id: int | None
    addr: str | None
    role: str
    status: str = "ok"
    reason: str | None = None
    errors: list[str] = field(default_factory=list)
    error_count: int = 0
    rows: dict[str, int] = field(default_factory=dict)

    def error(self, what: str, exc: BaseException) -> None:
        self.error_count += 1
        if len(self.errors) < MAX_ERRORS_KEPT:
            self.errors.append(f"{what}: {reason_of(exc)}")

    def to_json(self) -> dict[str, Any]:
        out = {
            "broker_name": self.broker_name,
            "broker_id": self.broker_id,
            "addr": self.addr,
            "role": self.role,
            "status": self.status,
            "reason": self.reason,
            "errors": self.errors,
            "rows": self.rows,
        }
        if self.error_count > len(self.errors):
            out["errors_not_shown"] = self.error_count - len(self.errors)
        return out


class Collector:
    def __init__(
        self,
        writer: ExportWriter,
        transport: Transport,
        *,
        concurrency: int = 16,
        timeout: float = 5.0,
        progress: Progress | None = None,
    ) -> None:
        self.writer = writer
        self.transport = transport
        self.timeout = timeout
        self.progress = progress or NoProgress()
        self._sem = asyncio.Semaphore(concurrency)

    async def _limited(self, aw: Awaitable[T]) -> T:
        try:
            async with self._sem:
                return await aw
        finally:
            self.progress.finished()

    async def collect(self, sources: Sequence[Source]) -> list[dict[str, Any]]:
        """Collect every source concurrently; returns the manifest's ``sources`` list."""
        self.progress.planned(2 * len(sources))
        return list(await asyncio.gather(*(self._source(s) for s in sources)))

    async def _source(self, src: Source) -> dict[str, Any]:
        report: dict[str, Any] = {
            "source": src.name,
            "namesrv": list(src.namesrv),
            "status": "ok",
            "reason": None,
            "order_conf_ok": False,
            "clusters": [],
        }
        client = AdminClient(src.namesrv, transport=self.transport, timeout=self.timeout)
        order_task = asyncio.ensure_future(self._order_conf(client, src, report))
        try:
            info = await self._limited(client.cluster_info())
        except FAILURES as e:
            await order_task
            report.update(status="failed", reason=f"cluster info: {reason_of(e)}")
            return report
        tasks = []
        for cluster in sorted(info.clusters):
            self.writer.write("clusters", {"source": src.name, "cluster": cluster, "namesrv": src.namesrv_arg})
            brokers = sorted(info.brokers_of(cluster), key=lambda b: b.broker_name)
            tasks.append(self._cluster(client, src, cluster, brokers))
        report["clusters"] = list(await asyncio.gather(*tasks))
        await order_task
        statuses = [b["status"] for c in report["clusters"] for b in c["brokers"] if b["status"] != "skipped"]
        if not report["order_conf_ok"]:
            statuses.append("partial")
        report["status"] = overall_status(statuses) if statuses else "ok"
        if report["status"] == "failed":
            report["reason"] = "no broker could be collected"
        return report

    async def _order_conf(self, client: AdminClient, src: Source, report: dict[str, Any]) -> None:
        try:
            table = await self._limited(client.kv_list(ORDER_TOPIC_CONFIG))
        except FAILURES as e:
            report["order_conf_error"] = reason_of(e)
            return
        for topic in sorted(table):
            self.writer.write("order_conf", {"source": src.name, "topic": topic, "orderConf": table[topic]})
        report["order_conf_ok"] = True

    async def _cluster(
        self, client: AdminClient, src: Source, cluster: str, brokers: list[BrokerData]
    ) -> dict[str, Any]:
        jobs: list[Awaitable[BrokerReport]] = []
        for bd in brokers:
            if bd.master_addr is None:
                jobs.append(_done(BrokerReport(bd.broker_name, None, None, "master", "failed", "no master registered")))
            for bid, addr in sorted(bd.broker_addrs.items()):
                if bid == MASTER_ID:
                    jobs.append(self._master(client, src, cluster, bd.broker_name, addr))
                else:
                    self._broker_row(src, cluster, bd.broker_name, bid, addr, None, False, False)
                    jobs.append(_done(BrokerReport(bd.broker_name, bid, addr, "slave", "skipped")))
        reports = await asyncio.gather(*jobs)
        return {"cluster": cluster, "brokers": [r.to_json() for r in reports]}

    def _broker_row(
        self,
        src: Source,
        cluster: str,
        name: str,
        bid: int,
        addr: str,
        perm: int | None,
        topics_ok: bool,
        groups_ok: bool,
    ) -> None:
        self.writer.write(
            "brokers",
            {
                "source": src.name,
                "cluster": cluster,
                "brokerName": name,
                "brokerId": bid,
                "addr": addr,
                "role": "master" if bid == MASTER_ID else "slave",
                "brokerPermission": perm,
                "topicsOk": topics_ok,
                "groupsOk": groups_ok,
            },
        )

    async def _master(self, client: AdminClient, src: Source, cluster: str, name: str, addr: str) -> BrokerReport:
        report = BrokerReport(name, MASTER_ID, addr, "master")
        self.progress.planned(3)
        conf, topics, groups = await asyncio.gather(
            self._limited(client.broker_config(addr)),
            self._limited(client.all_topic_config(addr)),
            self._limited(client.subscription_groups(addr)),
            return_exceptions=True,
        )
        perm = None
        if isinstance(conf, BaseException):
            _reraise_unexpected(conf)
            report.error("broker config", conf)
        elif conf.get("brokerPermission", "").lstrip("-").isdigit():
            perm = int(conf["brokerPermission"])
        base = {"source": src.name, "cluster": cluster, "brokerName": name}
        if isinstance(topics, BaseException):
            _reraise_unexpected(topics)
            report.status, report.reason = "failed", f"topic configs: {reason_of(topics)}"
        else:
            topics = topics[0]
            for cfg in sorted(topics.values(), key=lambda c: c.topic_name):
                self.writer.write("topics", {**base, **_topic_row(cfg)})
            report.rows["topics"] = len(topics)
        if isinstance(groups, BaseException):
            _reraise_unexpected(groups)
            report.error("subscription groups", groups)
        else:
            groups = list(groups.values())
            for g in sorted(groups, key=lambda g: str(g["groupName"])):
                self.writer.write("groups", {**base, **_group_row(g)})
            report.rows["groups"] = len(groups)
            report.rows["consumer_lag"] = await self._lags(
                client, addr, src, cluster, [str(g["groupName"]) for g in groups], report
            )
        self._broker_row(
            src,
            cluster,
            name,
            MASTER_ID,
            addr,
            perm,
            not isinstance(topics, BaseException),
            not isinstance(groups, BaseException),
        )
        if report.status == "ok" and report.error_count:
            report.status = "partial"
        return report

    async def _lags(
        self, client: AdminClient, addr: str, src: Source, cluster: str, groups: list[str], report: BrokerReport
    ) -> int:
        self.progress.planned(len(groups))
        results = await asyncio.gather(
            *(self._limited(consume_lag(client, addr, g)) for g in sorted(groups)), return_exceptions=True
        )
        rows = 0
        for group, result in zip(sorted(groups), results, strict=True):
            if isinstance(result, BaseException):
                _reraise_unexpected(result)
                report.error(f"consume stats of {group}", result)
                continue
            for lag in result:
                self.writer.write(
                    "consumer_lag",
                    {
                        "source": src.name,
                        "cluster": cluster,
                        "brokerName": lag.broker_name,
                        "group": group,
                        "topic": lag.topic,
                        "lag": lag.lag,
                        "queues": lag.queues,
                    },
                )
                rows += 1
        return rows


def _topic_row(cfg: TopicConfig) -> dict[str, Any]:
    return {
        "topic": cfg.topic_name,
        "readQueueNums": cfg.read_queue_nums,
        "writeQueueNums": cfg.write_queue_nums,
        "perm": cfg.perm,
        "order": cfg.order,
        "topicSysFlag": cfg.topic_sys_flag,
        "topicFilterType": cfg.topic_filter_type,
        "attributes": dict(sorted(cfg.attributes.items())),
    }


def _group_row(cfg: dict[str, Any]) -> dict[str, Any]:
    return {
        "group": str(cfg["groupName"]),
        "consumeEnable": bool(cfg.get("consumeEnable", True)),
        "consumeMessageOrderly": bool(cfg.get("consumeMessageOrderly", False)),
        "consumeBroadcastEnable": bool(cfg.get("consumeBroadcastEnable", True)),
        "retryQueueNums": int(cfg.get("retryQueueNums", 1)),
        "retryMaxTimes": int(cfg.get("retryMaxTimes", 16)),
    }


def _reraise_unexpected(exc: BaseException) -> None:
    """``gather(return_exceptions=True)`` also returns bugs and cancellations: only request failures are data."""
    if not isinstance(exc, FAILURES):
        raise exc


async def _done(value: T) -> T:
    return value


def export_status(sources: list[dict[str, Any]]) -> str:
    return overall_status([s["status"] for s in sources])
