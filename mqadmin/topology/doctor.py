"""``mqadmin doctor``: the fleet audit's rules and the brokers' own pitfalls, on one live cluster, without Spark.

The cluster is read with the fleet export's collector into memory (the same rows ``exportMetadata`` writes) and
the audit's rules run on them (``mqadmin.audit.baseline.rule_findings``: one definition of each rule, shared with
``mqadmin audit``). The rules below need what an export does not hold (the brokers' settings, versions and
replication offsets) and exist only here. Every finding carries its severity, its evidence and the fix.
"""

from __future__ import annotations

import asyncio
import json
import shlex
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mqadmin.admin.errors import reason_of
from mqadmin.audit import job
from mqadmin.audit.baseline import rule_findings
from mqadmin.fleet.collect import Collector
from mqadmin.fleet.fleetfile import Source
from mqadmin.model.route import MASTER_ID
from mqadmin.model.rpc import namesrv as ns_rpc
from mqadmin.model.topic import PERM_INHERIT, PERM_WRITE
from mqadmin.topology.live import FAILURES

if TYPE_CHECKING:
    from mqadmin.admin.client import AdminClient

HIGH, MEDIUM, LOW = job.HIGH, job.MEDIUM, job.LOW
SOURCE = "live"
AUTO_CREATE_TOPIC = "TBW102"
SLAVE_BEHIND_BYTES = 256 * 1024 * 1024
"""Java's haMaxGapNotInSync default: a slave further behind is not in sync."""

LIVE_RULES: dict[str, tuple[str, str]] = {
    "AUTO_CREATE_TOPIC_ENABLED": (HIGH, "autoCreateTopicEnable is on: a send to an unknown topic creates it here"),
    "BROKER_WRITE_WIPED": (HIGH, "a master's write permission is wiped: producers cannot send to it"),
    "TBW102_MISSING": (MEDIUM, "autoCreateTopicEnable is on but TBW102 cannot be inherited from"),
    "TBW102_LEFT_OVER": (LOW, "TBW102 still inheritable while autoCreateTopicEnable is off"),
    "VERSION_SKEW": (MEDIUM, "brokers of the cluster run different RocketMQ versions"),
    "SLAVE_BEHIND": (MEDIUM, "a slave's commit log is far behind its master's"),
}
"""The rules only a live cluster can be checked for; the others are the audit's (``job.RULES``)."""

SEVERITIES = (HIGH, MEDIUM, LOW)


@dataclass(frozen=True)
class Params:
    audit: job.Params = field(default_factory=job.Params)
    slave_behind_bytes: int = SLAVE_BEHIND_BYTES


@dataclass(slots=True)
class Finding:
    rule: str
    severity: str
    cluster: str
    message: str
    evidence: dict[str, Any]
    fix: str
    """The command that fixes it; where no command can, the step to take."""
    topic: str | None = None
    broker: str | None = None
    group: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "cluster": self.cluster,
            "broker": self.broker,
            "topic": self.topic,
            "group": self.group,
            "message": self.message,
            "evidence": self.evidence,
            "fix": self.fix,
        }


@dataclass(slots=True)
class Report:
    findings: list[Finding]
    clusters: list[str]
    unread: list[str]
    """What could not be read (a broker down, a request refused): its rules were not checked."""

    @property
    def worst(self) -> str | None:
        return next((s for s in SEVERITIES if any(f.severity == s for f in self.findings)), None)

    def counts(self) -> dict[str, int]:
        return {s: sum(f.severity == s for f in self.findings) for s in SEVERITIES}


class _Rows:
    """The export tables, kept in memory (the collector's writer)."""

    def __init__(self) -> None:
        self.tables: dict[str, list[dict[str, Any]]] = defaultdict(list)

    def write(self, table: str, row: dict[str, Any]) -> None:
        self.tables[table].append(row)

    def of(self, table: str, clusters: Iterable[str] | None = None) -> list[dict[str, Any]]:
        rows = self.tables.get(table, [])
        if clusters is None or table == "order_conf":
            return rows
        keep = set(clusters)
        return [r for r in rows if r["cluster"] in keep]


async def diagnose(admin: AdminClient, cluster: str | None, params: Params, concurrency: int = 16) -> Report:
    """Every finding on ``cluster`` (every cluster the name servers know when None)."""
    known = sorted((await admin.cluster_info()).clusters)
    if cluster is not None and cluster not in known:
        raise UnknownCluster(cluster, known)
    clusters = [cluster] if cluster is not None else known
    rows = _Rows()
    collector = Collector(rows, admin.transport, concurrency=concurrency, timeout=admin.timeout)  # type: ignore[arg-type]  # _Rows: the ExportWriter part it uses
    (report,) = await collector.collect([Source(SOURCE, tuple(admin.namesrv.addrs))])
    if report["status"] == "failed" and not report["clusters"]:
        raise CollectFailed(report["reason"] or "the cluster could not be read")
    namesrv = ";".join(admin.namesrv.addrs)
    conf_sources = [SOURCE] if report["order_conf_ok"] else []
    audit = rule_findings(lambda table: rows.of(table, clusters), params.audit, conf_sources)
    findings = [_from_audit(f, namesrv) for f in audit]
    unread = _unread(report, clusters)
    if not report["order_conf_ok"]:
        unread.append(f"orderTopicConf: {report.get('order_conf_error') or 'not read'} (order rules not checked)")
    live, live_unread = await _live_findings(admin, rows, clusters, namesrv, params)
    findings += live
    unread += live_unread
    findings.sort(key=lambda f: (SEVERITIES.index(f.severity), f.cluster, f.rule, f.broker or "", f.topic or "",
                                 f.group or ""))  # fmt: skip
    return Report(findings, clusters, unread)


class CollectFailed(Exception):
    """No name server gave the cluster list."""


class UnknownCluster(LookupError):
    def __init__(self, cluster: str, known: list[str]) -> None:
        super().__init__(cluster)
        self.cluster, self.known = cluster, known


def _unread(report: dict[str, Any], clusters: list[str]) -> list[str]:
    out = []
    for c in report["clusters"]:
        if c["cluster"] not in clusters:
            continue
        for b in c["brokers"]:
            if b["status"] in ("failed", "partial"):
                why = b["reason"] or "; ".join(b["errors"])
                out.append(f"{c['cluster']}/{b['broker_name']} {b['addr'] or ''}: {why}".replace(" :", ":"))
    return out


# --- the audit's findings, with their fix -----------------------------------------------------------------


def _from_audit(f: dict[str, Any], namesrv: str) -> Finding:
    evidence = json.loads(f["evidence"])
    return Finding(
        f["rule"], f["severity"], f["cluster"], f["message"], evidence, _audit_fix(f, evidence, namesrv),
        topic=f["topic"], broker=f["broker"], group=f["group"],
    )  # fmt: skip


def _audit_fix(f: dict[str, Any], evidence: dict[str, Any], namesrv: str) -> str:
    rule, cluster = f["rule"], f["cluster"]
    if rule in job.PLAN_RULES or rule in ("READ_WRITE_MISMATCH", "PERM_NOT_RW"):
        entry = job.plan_entry([f], namesrv)
        return entry["command"] + (f"  # {entry['warning']}" if "warning" in entry else "")
    if rule in ("ORPHAN_RETRY_TOPIC", "ORPHAN_DLQ_TOPIC"):
        return _cmd("deleteTopic", "-n", namesrv, "-c", cluster, "-t", f["topic"])
    if rule == "LAG_OVER_THRESHOLD":
        return (
            f"find why the group is slow: {_cmd('consumerProgress', '-n', namesrv, '-g', f['group'])}; to drop the "
            f"backlog instead: {_cmd('skipAccumulatedMessage', '-n', namesrv, '-g', f['group'], '-t', 'TOPIC')}"
        )
    return (
        f"spread topics and queues over the cluster's masters (broker {f['broker']} holds {evidence['count']}, "
        f"median {job.median_text(evidence['median'])})"
    )


def _cmd(*argv: str) -> str:
    return shlex.join(["mqadmin", *argv])


# --- the rules only a live cluster can be checked for ---------------------------------------------------


@dataclass(slots=True)
class _Broker:
    cluster: str
    name: str
    broker_id: int
    addr: str
    config: dict[str, str] | None = None
    runtime: dict[str, str] | None = None
    error: str | None = None


async def _live_findings(
    admin: AdminClient, rows: _Rows, clusters: list[str], namesrv: str, params: Params
) -> tuple[list[Finding], list[str]]:
    brokers = [
        _Broker(r["cluster"], r["brokerName"], r["brokerId"], r["addr"])
        for r in rows.of("brokers", clusters)
        if r["addr"]
    ]

    async def read(b: _Broker) -> None:
        try:
            b.config, b.runtime = await asyncio.gather(admin.broker_config(b.addr), admin.broker_runtime_info(b.addr))
        except FAILURES as e:
            b.error = reason_of(e)

    await asyncio.gather(*(read(b) for b in brokers))
    tbw = {(r["cluster"], r["brokerName"]): r["perm"] for r in rows.of("topics", clusters)
           if r["topic"] == AUTO_CREATE_TOPIC}  # fmt: skip
    out: list[Finding] = []
    unread = [f"{b.cluster}/{b.name} {b.addr}: broker config: {b.error}" for b in brokers if b.error]
    read_ok = [b for b in brokers if not b.error]
    held: dict[tuple[str, str], list[str]] = defaultdict(list)
    for r in rows.of("topics", clusters):
        held[(r["cluster"], r["brokerName"])].append(r["topic"])
    routed = []
    for b in read_ok:
        if b.broker_id == MASTER_ID:
            out += _master_findings(b, tbw.get((b.cluster, b.name)), namesrv)
            topics = held.get((b.cluster, b.name), [])
            if topics:
                routed.append(_wiped_on_namesrv(admin, b, b.name if b.name in topics else min(topics), namesrv))
    for found in await asyncio.gather(*routed):
        out += found
    for c in clusters:
        members = [b for b in read_ok if b.cluster == c]
        out += _version_skew(c, members)
        out += _slaves_behind(c, members, params.slave_behind_bytes)
    return out, unread


def _live(rule: str, b: _Broker, message: str, evidence: dict[str, Any], fix: str, **kw: Any) -> Finding:
    return Finding(rule, LIVE_RULES[rule][0], b.cluster, message, evidence, fix, broker=b.name, **kw)


def _master_findings(b: _Broker, tbw_perm: int | None, namesrv: str) -> list[Finding]:
    assert b.config is not None
    out = []
    where = {"broker": b.name, "addr": b.addr}
    auto = b.config.get("autoCreateTopicEnable", "").strip().lower() == "true"
    if auto:
        out.append(_live(
            "AUTO_CREATE_TOPIC_ENABLED", b,
            "autoCreateTopicEnable=true: a producer's first send to an unknown topic creates it on this broker only",
            {**where, "autoCreateTopicEnable": b.config["autoCreateTopicEnable"]},
            _cmd("updateBrokerConfig", "-n", namesrv, "-b", b.addr, "-k", "autoCreateTopicEnable", "-v", "false"),
        ))  # fmt: skip
        if tbw_perm is None or not tbw_perm & PERM_INHERIT:
            state = "absent" if tbw_perm is None else f"perm {tbw_perm}"
            out.append(_live(
                "TBW102_MISSING", b, f"autoCreateTopicEnable=true but TBW102 is {state}: sends to new topics fail here",
                {**where, "tbw102Perm": tbw_perm},
                _cmd("updateBrokerConfig", "-n", namesrv, "-b", b.addr, "-k", "autoCreateTopicEnable", "-v", "false"),
                topic=AUTO_CREATE_TOPIC,
            ))  # fmt: skip
    elif tbw_perm is not None and tbw_perm & PERM_INHERIT:
        out.append(_live(
            "TBW102_LEFT_OVER", b,
            f"TBW102 (perm {tbw_perm}) can still be inherited from: producers of unknown topics are routed here "
            "and their sends are refused",
            {**where, "tbw102Perm": tbw_perm, "autoCreateTopicEnable": b.config.get("autoCreateTopicEnable")},
            f"delete it with Java's tool (mqadmin refuses system topics): mqadmin deleteTopic -n {namesrv} "
            f"-c {b.cluster} -t TBW102",
            topic=AUTO_CREATE_TOPIC,
        ))  # fmt: skip
    perm = b.config.get("brokerPermission", "")
    if perm.lstrip("-").isdigit() and not int(perm) & PERM_WRITE:
        out.append(_live(
            "BROKER_WRITE_WIPED", b, f"brokerPermission={perm}: the broker refuses every send",
            {**where, "brokerPermission": int(perm)},
            _cmd("updateBrokerConfig", "-n", namesrv, "-b", b.addr, "-k", "brokerPermission", "-v", "6"),
        ))  # fmt: skip
    return out


async def _wiped_on_namesrv(admin: AdminClient, b: _Broker, topic: str, namesrv: str) -> list[Finding]:
    """The name servers' routes to the master without write permission (wipeWritePerm), read from the route of
    one topic the master holds."""
    header = ns_rpc.RouteHeader(topic=topic, accept_standard_json_only=True)

    async def at(addr: str) -> int | None:
        try:
            route = (await admin.request(addr, ns_rpc.GET_ROUTEINFO_BY_TOPIC, header)).body
        except FAILURES:
            return None
        perms = [q.perm for q in (route.queue_datas if route else []) if q.broker_name == b.name]
        return perms[0] if perms else None

    seen = await asyncio.gather(*(at(a) for a in admin.namesrv.addrs))
    wiped = {a: p for a, p in zip(admin.namesrv.addrs, seen, strict=True) if p is not None and not p & PERM_WRITE}
    if not wiped:
        return []
    return [_live(
        "BROKER_WRITE_WIPED", b, f"write permission wiped on {len(wiped)} name server(s): producers skip the broker",
        {"broker": b.name, "addr": b.addr, "topic": topic, "routePerm": wiped},
        _cmd("addWritePerm", "-n", namesrv, "-b", b.name),
    )]  # fmt: skip


def _version_skew(cluster: str, members: list[_Broker]) -> list[Finding]:
    versions: dict[str, list[str]] = defaultdict(list)
    for b in members:
        assert b.runtime is not None
        if v := b.runtime.get("brokerVersionDesc"):
            versions[v].append(f"{b.name}/{b.broker_id}")
    if len(versions) < 2:
        return []
    newest = max(versions, key=_version_key)
    behind = sorted(n for v, names in versions.items() if v != newest for n in names)
    evidence = {"versions": {v: sorted(n) for v, n in sorted(versions.items())}}
    message = f"{len(versions)} versions: " + ", ".join(f"{v} on {', '.join(sorted(n))}" for v, n in
                                                         sorted(versions.items()))  # fmt: skip
    fix = f"upgrade {', '.join(behind)} to {newest} (rolling: slaves first, then their master)"
    return [Finding("VERSION_SKEW", LIVE_RULES["VERSION_SKEW"][0], cluster, message, evidence, fix)]


def _version_key(desc: str) -> tuple[int, ...]:
    """``V5_3_3`` -> (5, 3, 3); anything else sorts first."""
    parts = desc.lstrip("V").split("_")
    return tuple(int(p) for p in parts) if all(p.isdigit() for p in parts) else ()


def _slaves_behind(cluster: str, members: list[_Broker], limit: int) -> list[Finding]:
    out = []
    masters = {b.name: b for b in members if b.broker_id == MASTER_ID}
    for s in members:
        m = masters.get(s.name)
        if s.broker_id == MASTER_ID or m is None:
            continue
        assert s.runtime is not None and m.runtime is not None
        ours, theirs = _int(m.runtime.get("commitLogMaxOffset")), _int(s.runtime.get("commitLogMaxOffset"))
        if ours is None or theirs is None or ours - theirs <= limit:
            continue
        out.append(_live(
            "SLAVE_BEHIND", s, f"slave {s.broker_id} is {ours - theirs} bytes behind its master (limit {limit})",
            {"broker": s.name, "addr": s.addr, "brokerId": s.broker_id, "masterOffset": ours, "slaveOffset": theirs,
             "limit": limit},
            f"check the slave's replication and disk: {_cmd('brokerStatus', '-b', s.addr)}",
        ))  # fmt: skip
    return out


def _int(text: str | None) -> int | None:
    return int(text) if text is not None and str(text).lstrip("-").isdigit() else None
