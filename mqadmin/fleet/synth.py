"""A synthetic fleet export with known defects, for the tests and the benchmark.

Deterministic: the same spec and seed give the same rows (and, with the same worker count, the same
bytes). Each cluster is generated from its own seeded random stream, so clusters can be written by
several processes in parallel, each into its own part files, without holding a table in memory.

Every cluster is healthy except for defects planted on purpose, and the planted defects are written
to ``ground_truth.jsonl`` (one line per expected finding: source, cluster, topic, broker, group,
rule). The ground truth is derived from what was planted, never by running the rules, and holds for
the audit's default parameters (lag threshold 100000, skew factor 2, skew minimum 10).

What a cluster looks like: ``brokers`` masters (each with a slave), the start-up system topics
(including ones that would trip every rule if they were not excluded: the broker-name topic on one
broker, ``rmq_sys_SYNC_BROKER_MEMBER_*`` with perm 1, BenchmarkTest with unequal queues), ``topics``
regular topics on every writable master, ``groups`` groups with their %RETRY% topics, a few %DLQ%
topics, a POP retry topic, correct order configs and small lags. Planted, when ``defects``:

* PLACEMENT_SUBSET: two topics on one broker only (the auto-create trap); one on all but one;
* QUEUE_COUNT_UNEQUAL, READ_WRITE_MISMATCH, PERM_NOT_RW: one topic each;
* ORDER_CONF_MISSING, ORDER_CONF_MISMATCH: one ordered topic each (plus a correct one);
* ORPHAN_RETRY_TOPIC, ORPHAN_DLQ_TOPIC: one each (not reported where groups could not all be read);
* LAG_OVER_THRESHOLD: one group;
* BROKER_TOPIC_SKEW + BROKER_QUEUE_SKEW: in every other cluster (with >= 3 brokers and >= 40 topics)
  one read-only master ("drained") holding a tenth of the topics; being read-only, the topics it
  lacks are not placement findings.

With ``failed_broker``, one master of the last cluster is recorded as failed in the manifest and has
no rows: nothing may be reported about it or about topics it would have held.
"""

from __future__ import annotations

import json
import math
import os
import random
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from mqadmin import __version__
from mqadmin.admin.results import overall_status
from mqadmin.files import atomic_write
from mqadmin.fleet import manifest as mf
from mqadmin.fleet.parquet import KEYS_KEY, PARQUET_KEY
from mqadmin.fleet.schema import TABLES
from mqadmin.fleet.writer import TableWriter

GROUND_TRUTH = "ground_truth.jsonl"
LAG_THRESHOLD = 100_000
QUEUE_MIX = (4, 8, 8, 16)

SYSTEM_TOPICS = (  # name, queues, perm, on every broker (False: only where the rule says)
    ("TBW102", 8, 7),
    ("SCHEDULE_TOPIC_XXXX", 18, 6),
    ("SELF_TEST_TOPIC", 1, 6),
    ("OFFSET_MOVED_EVENT", 1, 6),
    ("RMQ_SYS_TRANS_HALF_TOPIC", 1, 6),
)


@dataclass(frozen=True)
class FleetSpec:
    seed: int = 7
    sources: int = 2
    clusters_per_source: int = 2
    brokers: int = 3
    topics: int = 60
    groups: int = 6
    defects: bool = True
    failed_broker: bool = True

    def check(self) -> None:
        if min(self.sources, self.clusters_per_source, self.brokers) < 1 or self.topics < 0 or self.groups < 0:
            raise ValueError("sources, clusters per source and brokers must be >= 1; topics and groups >= 0")
        if self.defects and (self.brokers < 2 or self.topics < 20 or self.groups < 2):
            raise ValueError("planting defects needs >= 2 brokers, >= 20 topics and >= 2 groups per cluster")

    @property
    def clusters(self) -> int:
        return self.sources * self.clusters_per_source

    def rows_per_cluster(self, drained: bool) -> float:
        """About how many topics rows one cluster gets: regular topics on every master (a drained one holds
        a tenth), 11 system topics per broker, a %RETRY% topic per group per broker, a few more."""
        b, t, g = self.brokers, self.topics, self.groups
        regular = (b - 1) * t + t // 10 if drained else b * t
        return regular + 11 * b + g * b + g / 3 + 2 * b + 1

    @property
    def approx_topic_rows(self) -> int:
        drains = self.defects and self.brokers >= 3 and self.topics >= 40
        per_cluster = (self.rows_per_cluster(False) + self.rows_per_cluster(drains)) / 2
        return round(self.clusters * per_cluster)


def spec_for_rows(rows: int, seed: int = 7, brokers: int = 4, topics: int = 2000, **kw: Any) -> FleetSpec:
    """A spec of about ``rows`` topic rows (cluster x broker x topic): clusters of ``brokers`` masters and
    ``topics`` topics, two clusters per source."""
    unit = FleetSpec(seed, 1, 1, brokers, topics, max(2, topics // 20), **kw)
    clusters = max(1, round(rows / unit.approx_topic_rows))
    per_source = 2 if clusters >= 2 else 1
    return FleetSpec(
        seed=seed,
        sources=math.ceil(clusters / per_source),
        clusters_per_source=per_source,
        brokers=brokers,
        topics=topics,
        groups=unit.groups,
        **kw,
    )


def generate(out: Path, spec: FleetSpec, workers: int = 1, compresslevel: int = 1) -> dict[str, Any]:
    """Write the export (tables as part files, manifest last) and ``ground_truth.jsonl``; returns the manifest."""
    spec.check()
    out.mkdir(parents=True, exist_ok=True)
    (out / mf.MANIFEST).unlink(missing_ok=True)
    pairs = [(si, ci) for si in range(spec.sources) for ci in range(spec.clusters_per_source)]
    workers = max(1, min(workers, len(pairs)))
    chunks = [pairs[i::workers] for i in range(workers)]
    args = [(str(out), spec, part, chunk, compresslevel) for part, chunk in enumerate(chunks)]
    if workers == 1:
        results = [_write_part(*args[0])]
    else:
        with ProcessPoolExecutor(workers, mp_context=get_context("fork")) as pool:
            results = list(pool.map(_write_part, *zip(*args, strict=True)))
    manifest = mf.new_manifest({"tool": "mqadmin generateFleet", "version": __version__, "spec": asdict(spec)})
    manifest["tables"] = {t: {"files": [], "rows": 0} for t in TABLES}
    truth: list[dict[str, Any]] = []
    reports: dict[str, list[dict[str, Any]]] = {}
    for tables, cluster_reports, planted in results:
        for t, entry in tables.items():
            manifest["tables"][t]["rows"] += entry["rows"]
            for key in ("files", PARQUET_KEY):
                if key in entry:
                    manifest["tables"][t].setdefault(key, []).extend(entry[key])
            if KEYS_KEY in entry:
                manifest["tables"][t][KEYS_KEY] = entry[KEYS_KEY]
        for source, report in cluster_reports:
            reports.setdefault(source, []).append(report)
        truth.extend(planted)
    for si in range(spec.sources):
        source = _source_name(si)
        clusters = sorted(reports.get(source, []), key=lambda c: c["cluster"])
        failed = any(b["status"] == "failed" for c in clusters for b in c["brokers"])
        manifest["sources"].append(
            {
                "source": source,
                "namesrv": [_namesrv(si)],
                "status": "partial" if failed else "ok",
                "reason": None,
                "order_conf_ok": True,
                "clusters": clusters,
            }
        )
    manifest["status"] = overall_status([s["status"] for s in manifest["sources"]])
    truth.sort(key=lambda f: tuple(f[k] or "" for k in ("source", "cluster", "rule", "topic", "broker", "group")))
    atomic_write(out / GROUND_TRUTH, "".join(json.dumps(f, sort_keys=True) + "\n" for f in truth).encode())
    mf.write_manifest(out, manifest)
    return manifest


def load_ground_truth(root: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (root / GROUND_TRUTH).read_text().splitlines() if line.strip()]


def _source_name(si: int) -> str:
    return f"src-{si:03d}"


def _namesrv(si: int) -> str:
    # Loopback addresses: nothing ever connects to a synthetic fleet, and if it did it would stay local.
    return f"127.{si % 250 + 1}.255.1:9876"


def _write_part(
    root: str, spec: FleetSpec, part: int, pairs: list[tuple[int, int]], compresslevel: int
) -> tuple[dict[str, dict[str, Any]], list[tuple[str, dict[str, Any]]], list[dict[str, Any]]]:
    writers = {t: TableWriter(Path(root), t, part, compresslevel, grouped=True) for t in TABLES}  # _Cluster.topic
    reports, truth = [], []
    try:
        for si, ci in pairs:
            gen = _Cluster(spec, si, ci, writers)
            reports.append((gen.source, gen.run()))
            truth.extend(gen.truth)
    except BaseException:
        for w in writers.values():
            w.abort()
        raise
    for w in writers.values():
        w.close()
    return {t: w.entry() for t, w in writers.items()}, reports, truth


class _Cluster:
    """One cluster's rows; defects planted at indices drawn from the cluster's own random stream."""

    def __init__(self, spec: FleetSpec, si: int, ci: int, writers: dict[str, TableWriter]) -> None:
        self.spec, self.w = spec, writers
        self.rng = random.Random(f"{spec.seed}/{si}/{ci}")
        self.source = _source_name(si)
        self.cluster = "DefaultCluster" if ci == 0 else f"cluster-{ci}"
        self.prefix = f"c{ci}-"
        self.si, self.ci = si, ci
        self.brokers = [f"{self.prefix}broker-{chr(97 + b) if b < 26 else b}" for b in range(spec.brokers)]
        last = si == spec.sources - 1 and ci == spec.clusters_per_source - 1
        self.failed = self.brokers[-2] if spec.failed_broker and last and spec.brokers >= 3 else None
        self.drained = (
            self.brokers[-1]
            if spec.defects and not self.failed and (si + ci) % 2 == 0 and spec.brokers >= 3 and spec.topics >= 40
            else None
        )
        self.collected = [b for b in self.brokers if b != self.failed]
        self.writable = [b for b in self.collected if b != self.drained]
        self.truth: list[dict[str, Any]] = []
        self.topic_rows: dict[str, int] = dict.fromkeys(self.brokers, 0)

    def expect(self, rule: str, topic: str | None = None, broker: str | None = None, group: str | None = None) -> None:
        self.truth.append(
            {"source": self.source, "cluster": self.cluster, "topic": topic, "broker": broker, "group": group,
             "rule": rule}
        )  # fmt: skip

    # --- rows -----------------------------------------------------------------------------------

    def topic(
        self,
        name: str,
        hosts: list[str] | dict[str, tuple[int, int, int]],
        queues: int = 8,
        perm: int = 6,
        order: bool = False,
        attrs: str = "{}",
    ) -> None:
        """One topic on ``hosts`` (a list, or broker -> (read, write, perm) for per-broker configs)."""
        w = self.w["topics"]
        o = "true" if order else "false"
        attributes = json.loads(attrs)
        for b in hosts:
            if b == self.failed:
                continue
            r, wq, p = hosts[b] if isinstance(hosts, dict) else (queues, queues, perm)
            w.write_line(
                f'{{"source":"{self.source}","cluster":"{self.cluster}","brokerName":"{b}","topic":"{name}",'
                f'"readQueueNums":{r},"writeQueueNums":{wq},"perm":{p},"order":{o},"topicSysFlag":0,'
                f'"topicFilterType":"SINGLE_TAG","attributes":{attrs}}}',
                (self.source, self.cluster, b, name, r, wq, p, order, 0, "SINGLE_TAG", attributes),
            )
            self.topic_rows[b] += 1

    def run(self) -> dict[str, Any]:
        spec, rng = self.spec, self.rng
        self.w["clusters"].write({"source": self.source, "cluster": self.cluster, "namesrv": _namesrv(self.si)})
        for i, b in enumerate(self.brokers):
            ok = b != self.failed
            perm = 4 if b == self.drained else (None if (self.si + i) % 3 == 2 else 6)
            self.w["brokers"].write(
                {"source": self.source, "cluster": self.cluster, "brokerName": b, "brokerId": 0,
                 "addr": self._addr(i, 0), "role": "master", "brokerPermission": perm, "topicsOk": ok, "groupsOk": ok}
            )  # fmt: skip
            self.w["brokers"].write(
                {"source": self.source, "cluster": self.cluster, "brokerName": b, "brokerId": 1,
                 "addr": self._addr(i, 1), "role": "slave", "brokerPermission": None, "topicsOk": False,
                 "groupsOk": False}
            )  # fmt: skip
        self._system_topics()
        n = spec.topics
        names = [f"{self.prefix}topic-{i:06d}" for i in range(n)]
        planted = [names[i] for i in rng.sample(range(n // 10, n), 9)] if spec.defects else []
        skip = set(planted)
        for i, name in enumerate(names):
            if name not in skip:
                hosts = self.writable + ([self.drained] if self.drained and i < n // 10 else [])
                self.topic(name, hosts, QUEUE_MIX[i % len(QUEUE_MIX)])
        if planted:
            self._plant(*planted)
        self._groups(names)
        if self.drained:
            self.expect("BROKER_TOPIC_SKEW", broker=self.drained)
            self.expect("BROKER_QUEUE_SKEW", broker=self.drained)
        return self._report()

    def _addr(self, broker_index: int, broker_id: int) -> str:
        return f"127.{self.si % 250 + 1}.{self.ci % 250}.{broker_index % 250 + 1}:{10911 + 100 * broker_id}"

    def _system_topics(self) -> None:
        for name, q, p in SYSTEM_TOPICS:
            self.topic(name, self.collected, q, p)
        self.topic(self.cluster, self.collected, 16, 7)
        self.topic(f"{self.cluster}_REPLY_TOPIC", self.collected, 1, 6)
        self.topic(f"rmq_sys_REVIVE_LOG_{self.cluster}", self.collected, 8, 6)
        benchmark = {b: (1024, 1024, 6) if i == 0 else (8, 8, 6) for i, b in enumerate(self.collected)}
        self.topic("BenchmarkTest", benchmark)
        for b in self.collected:
            self.topic(b, [b], 1, 7)
            self.topic(f"rmq_sys_SYNC_BROKER_MEMBER_{b}", [b], 1, 1)

    def _plant(self, trap1: str, trap2: str, subset: str, queues: str, rw: str, perm: str, omiss: str,
               omism: str, ook: str) -> None:  # fmt: skip
        rng, wr = self.rng, self.writable
        if len(wr) >= 2:
            for t in (trap1, trap2):
                self.topic(t, [rng.choice(wr)], 4, 6)
                self.expect("PLACEMENT_SUBSET", t)
        else:
            self.topic(trap1, wr)
            self.topic(trap2, wr)
        if len(wr) >= 3:
            self.topic(subset, rng.sample(wr, len(wr) - 1), 8)
            self.expect("PLACEMENT_SUBSET", subset)
        else:
            self.topic(subset, wr)
        odd = rng.choice(wr)
        self.topic(queues, {b: (16, 16, 6) if b == odd else (8, 8, 6) for b in wr})
        self.expect("QUEUE_COUNT_UNEQUAL", queues)
        self.topic(rw, {b: (8, 4, 6) for b in wr})
        self.expect("READ_WRITE_MISMATCH", rw)
        odd = rng.choice(wr)
        self.topic(perm, {b: (8, 8, 4) if b == odd else (8, 8, 6) for b in wr})
        self.expect("PERM_NOT_RW", perm)
        fifo = '{"message.type":"FIFO"}'
        for t in (omiss, omism, ook):
            self.topic(t, wr, 8, 6, order=True, attrs=fifo)
        self.expect("ORDER_CONF_MISSING", omiss)
        entries = [f"{b}:8" for b in wr]
        rng.shuffle(entries)  # order in the conf does not matter
        self._order_conf(ook, " ; ".join(entries))
        wrong = [f"{b}:{4 if i == 0 else 8}" for i, b in enumerate(wr)]
        self._order_conf(omism, ";".join(wrong))
        self.expect("ORDER_CONF_MISMATCH", omism)

    def _order_conf(self, topic: str, value: str) -> None:
        self.w["order_conf"].write({"source": self.source, "topic": topic, "orderConf": value})

    def _groups(self, names: list[str]) -> None:
        spec, rng = self.spec, self.rng
        groups = [f"{self.prefix}group-{g:03d}" for g in range(spec.groups)]
        lagged = groups[1] if spec.defects else None
        for b in self.collected:
            for g in groups:
                self.w["groups"].write(
                    {"source": self.source, "cluster": self.cluster, "brokerName": b, "group": g,
                     "consumeEnable": True, "consumeMessageOrderly": False, "consumeBroadcastEnable": False,
                     "retryQueueNums": 1, "retryMaxTimes": 16}
                )  # fmt: skip
        for i, g in enumerate(groups):
            self.topic(f"%RETRY%{g}", self.collected, 1, 6)
            if i % 3 == 0:
                self.topic(f"%DLQ%{g}", [self.collected[0]], 1, 6)
            if not names:
                continue
            consumed = names[(i * 7) % len(names)]
            for b in self.writable:
                lag = 3 * LAG_THRESHOLD if g == lagged else rng.randrange(0, 1000)
                for topic, n in ((consumed, lag), (f"%RETRY%{g}", 0)):
                    self.w["consumer_lag"].write(
                        {"source": self.source, "cluster": self.cluster, "brokerName": b, "group": g,
                         "topic": topic, "lag": n, "queues": 8 if n else 1}
                    )  # fmt: skip
        if groups and names:
            self.topic(f"%RETRY%{groups[0]}_{names[0]}", self.collected, 1, 6)  # POP retry topic, group exists
        if lagged:
            self.expect("LAG_OVER_THRESHOLD", group=lagged)
        if spec.defects:
            ghost = f"{self.prefix}ghost-group"
            self.topic(f"%RETRY%{ghost}", self.collected, 1, 6)
            self.topic(f"%DLQ%{ghost}", [self.collected[-1]], 1, 6)
            if not self.failed:  # groups of a failed master are unknown: orphans cannot be told
                self.expect("ORPHAN_RETRY_TOPIC", f"%RETRY%{ghost}")
                self.expect("ORPHAN_DLQ_TOPIC", f"%DLQ%{ghost}")

    def _report(self) -> dict[str, Any]:
        brokers = []
        for i, b in enumerate(self.brokers):
            failed = b == self.failed
            brokers.append(
                {"broker_name": b, "broker_id": 0, "addr": self._addr(i, 0), "role": "master",
                 "status": "failed" if failed else "ok",
                 "reason": "synthetic: planted collection failure" if failed else None, "errors": [],
                 "rows": {} if failed else {"topics": self.topic_rows[b]}}
            )  # fmt: skip
            brokers.append(
                {"broker_name": b, "broker_id": 1, "addr": self._addr(i, 1), "role": "slave", "status": "skipped",
                 "reason": None, "errors": [], "rows": {}}
            )  # fmt: skip
        return {"cluster": self.cluster, "brokers": brokers}


def default_workers() -> int:
    return max(1, min(8, os.cpu_count() or 1))
