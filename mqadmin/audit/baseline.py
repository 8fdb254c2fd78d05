"""The audit's rules in plain single-process Python.

Three uses: the benchmark's baseline against Spark, a cross-check of the Spark job (the tests demand
identical findings), and ``mqadmin audit --engine python`` where Spark is not installed. The rule
catalogue, topic classification, messages and output writers are shared with ``job.py``; only the
evaluation is written twice, once as DataFrame expressions and once as loops over dicts.

Memory: one entry per (source, cluster, topic) with a tuple per broker, streamed from the gzip files.
"""

from __future__ import annotations

import gc
import gzip
import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from mqadmin.audit.job import (
    DLQ_PREFIX,
    FINDING_COLUMNS,
    MANIFEST,
    MESSAGES,
    RETRY_PREFIX,
    RULES,
    AuditInputError,
    Params,
    attrs_text,
    check_manifests,
    conf_entry_broker,
    coverage,
    evidence_json,
    finding_sort_key,
    group_candidates,
    is_system_topic,
    median_text,
    new_summary,
    order_conf_entries,
    order_conf_sources,
    perm_letters,
    write_outputs,
    write_summary,
)

Config = tuple[str, int, int, int, bool, str]  # broker, read, write, perm, order, attributes
Key = tuple[str, str]  # source, cluster


def read_manifests(inputs: list[Path]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for root in inputs:
        path = root / MANIFEST
        try:
            out.append((str(path), json.loads(path.read_text())))
        except FileNotFoundError:
            raise AuditInputError(f"{root} has no {MANIFEST} (not an export, or the export did not finish)") from None
        except (ValueError, UnicodeDecodeError) as e:
            raise AuditInputError(f"{path} is not valid JSON ({e})") from None
    check_manifests(out)
    return out


def _rows(inputs: list[Path], manifests: list[tuple[str, dict[str, Any]]], table: str) -> Iterator[dict[str, Any]]:
    decode = json.JSONDecoder().raw_decode  # one object per line: skips loads()'s whitespace regexes
    for root, (_, m) in zip(inputs, manifests, strict=True):
        for rel in m["tables"][table]["files"]:
            with gzip.open(root / rel, "rt", encoding="utf-8") as f:
                for line in f:
                    if len(line) > 1:
                        yield decode(line)[0]


def _finding(
    source: str,
    cluster: str,
    rule: str,
    message: str,
    evidence: dict[str, Any],
    topic: str | None = None,
    broker: str | None = None,
    group: str | None = None,
) -> dict[str, Any]:
    return {
        "source": source,
        "cluster": cluster,
        "topic": topic,
        "broker": broker,
        "group": group,
        "rule": rule,
        "severity": RULES[rule][0],
        "message": message,
        "evidence": evidence_json(evidence),
    }


def _config_json(c: Config) -> dict[str, Any]:
    return {"broker": c[0], "read": c[1], "write": c[2], "perm": c[3], "order": c[4], "attributes": c[5]}


def audit_findings(
    inputs: list[Path], params: Params, manifests: list[tuple[str, dict[str, Any]]] | None = None
) -> list[dict[str, Any]]:
    """Every finding, sorted as the Spark job sorts them.

    The cyclic garbage collector is paused meanwhile: the millions of tuples built here hold no cycles,
    and its repeated scans of them would make the run grow faster than the input.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        manifests = manifests if manifests is not None else read_manifests(inputs)
        return rule_findings(lambda table: _rows(inputs, manifests, table), params, order_conf_sources(manifests))
    finally:
        if enabled:
            gc.enable()


def rule_findings(
    rows: Callable[[str], Iterable[dict[str, Any]]], params: Params, conf_sources: Iterable[str]
) -> list[dict[str, Any]]:
    """Every finding of the audit's rules over the export tables ``rows(table)`` gives (rows as the export
    writes them); the order rules apply to the sources in ``conf_sources`` only. ``mqadmin doctor`` runs
    these on the rows it reads from a live cluster."""
    intern = sys.intern

    broker_names: dict[Key, set[str]] = defaultdict(set)
    source_brokers: dict[str, set[str]] = defaultdict(set)
    masters: dict[Key, set[str]] = defaultdict(set)
    writable: dict[Key, set[str]] = defaultdict(set)
    groups_ok: dict[tuple[str, str, str], bool] = {}
    for r in rows("brokers"):
        key, name = (r["source"], r["cluster"]), r["broker_name"]
        broker_names[key].add(name)
        source_brokers[r["source"]].add(name)
        is_master = r["role"] == "master"
        if is_master and r["topics_ok"]:
            masters[key].add(name)
            if r["broker_perm"] is None or r["broker_perm"] & 2:
                writable[key].add(name)
        groups_ok[(*key, name)] = groups_ok.get((*key, name), False) or bool(is_master and r["groups_ok"])
    groups_complete = {k: all(groups_ok[(*k, b)] for b in names) for k, names in broker_names.items()}

    per_topic: dict[tuple[str, str, str], list[Config]] = defaultdict(list)
    retry_like: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for r in rows("topics"):
        s, c, t, b = r["source"], r["cluster"], r["topic"], intern(r["broker_name"])
        if is_system_topic(t, c):
            if t.startswith((RETRY_PREFIX, DLQ_PREFIX)):
                retry_like[(s, c, t)].add(b)
            continue
        per_topic[(intern(s), intern(c), t)].append(
            (b, r["read_queue_nums"], r["write_queue_nums"], r["perm"], bool(r["order"]), attrs_text(r["attributes"]))
        )
    for key in [k for k in per_topic if k[2] in broker_names.get(k[:2], ())]:
        del per_topic[key]

    conf_sources = set(conf_sources)
    order_conf = {(r["source"], r["topic"]): r["order_conf"] for r in rows("order_conf")}

    out: list[dict[str, Any]] = []
    counts: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])  # topics, write queues
    for (s, c, t), configs in per_topic.items():
        configs.sort()
        for cfg in configs:
            tally = counts[(s, c, cfg[0])]
            tally[0] += 1
            tally[1] += cfg[2]
        out.extend(_topic_findings(s, c, t, configs, params, writable, broker_names, masters, source_brokers,
                                   conf_sources, order_conf))  # fmt: skip

    groups: dict[Key, set[str]] = defaultdict(set)
    for r in rows("groups"):
        groups[(r["source"], r["cluster"])].add(r["group"])
    for (s, c, t), hosts in retry_like.items():
        if not groups_complete.get((s, c), False):
            continue
        retry = t.startswith(RETRY_PREFIX)
        rest = t[len(RETRY_PREFIX if retry else DLQ_PREFIX) :]
        if any(g in groups[(s, c)] for g in group_candidates(rest)):
            continue
        rule = "ORPHAN_RETRY_TOPIC" if retry else "ORPHAN_DLQ_TOPIC"
        out.append(_finding(s, c, rule, MESSAGES[rule] % rest, {"group": rest, "brokers": sorted(hosts)}, topic=t))

    lag: dict[tuple[str, str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in rows("consumer_lag"):
        lag[(r["source"], r["cluster"], r["group"])][r["topic"]] += r["lag"]
    for (s, c, g), per in lag.items():
        total = sum(per.values())
        if total > params.lag_threshold:
            topics = [{"topic": t, "lag": n} for t, n in sorted(per.items())]
            evidence = {"lag": total, "threshold": params.lag_threshold, "topics": topics}
            msg = MESSAGES["LAG_OVER_THRESHOLD"] % (total, params.lag_threshold)
            out.append(_finding(s, c, "LAG_OVER_THRESHOLD", msg, evidence, group=g))

    out.extend(_skew_findings(masters, counts, params))
    out.sort(key=finding_sort_key)
    return out


def _topic_findings(
    s: str,
    c: str,
    t: str,
    configs: list[Config],
    params: Params,
    writable: dict[Key, set[str]],
    broker_names: dict[Key, set[str]],
    masters: dict[Key, set[str]],
    source_brokers: dict[str, set[str]],
    conf_sources: set[str],
    order_conf: dict[tuple[str, str], str],
) -> list[dict[str, Any]]:
    out = []

    def brokers() -> list[dict[str, Any]]:  # evidence, built only for a topic with a finding
        return [_config_json(x) for x in configs]

    present = [x[0] for x in configs]
    w = writable.get((s, c), set())
    missing = sorted(w - set(present))
    if missing:
        msg = MESSAGES["PLACEMENT_SUBSET"] % (len(w & set(present)), len(w), ", ".join(missing))
        out.append(
            _finding(s, c, "PLACEMENT_SUBSET", msg, {"present": present, "missing": missing, "brokers": brokers()}, t)
        )
    if len({x[1] for x in configs}) > 1 or len({x[2] for x in configs}) > 1:
        msg = MESSAGES["QUEUE_COUNT_UNEQUAL"] % ", ".join(f"{x[0]} {x[1]}/{x[2]}" for x in configs)
        out.append(_finding(s, c, "QUEUE_COUNT_UNEQUAL", msg, {"brokers": brokers()}, t))
    uneven = [x for x in configs if x[1] != x[2]]
    if uneven:
        msg = MESSAGES["READ_WRITE_MISMATCH"] % ", ".join(f"{x[0]} {x[1]}/{x[2]}" for x in uneven)
        out.append(_finding(s, c, "READ_WRITE_MISMATCH", msg, {"brokers": brokers()}, t))
    not_rw = [x for x in configs if x[3] & 6 != 6]
    if not_rw:
        msg = MESSAGES["PERM_NOT_RW"] % ", ".join(f"{x[0]} {perm_letters(x[3])}" for x in not_rw)
        out.append(_finding(s, c, "PERM_NOT_RW", msg, {"brokers": brokers()}, t))
    if s in conf_sources:
        conf = order_conf.get((s, t))
        expected = ";".join(sorted(f"{x[0]}:{x[2]}" for x in configs))
        if conf is None and any(x[4] for x in configs):
            msg = MESSAGES["ORDER_CONF_MISSING"] % expected
            out.append(_finding(s, c, "ORDER_CONF_MISSING", msg, {"expected": expected, "brokers": brokers()}, t))
        entries = order_conf_entries(conf) if conf is not None else []
        names = broker_names.get((s, c), set())
        relevant = any(x[4] for x in configs) or any(conf_entry_broker(e) in names for e in entries)
        if conf is not None and relevant:
            unseen = source_brokers.get(s, set()) - masters.get((s, c), set())
            if ";".join(sorted(e for e in entries if conf_entry_broker(e) not in unseen)) != expected:
                msg = MESSAGES["ORDER_CONF_MISMATCH"] % (conf, expected)
                other = sorted(e for e in entries if conf_entry_broker(e) and conf_entry_broker(e) not in names)
                evidence = {"order_conf": conf, "expected": expected, "other_clusters": other, "brokers": brokers()}
                out.append(_finding(s, c, "ORDER_CONF_MISMATCH", msg, evidence, t))
    return out


def _skew_findings(
    masters: dict[Key, set[str]], counts: dict[tuple[str, str, str], list[int]], params: Params
) -> list[dict[str, Any]]:
    out = []
    f = float(params.skew_factor)
    for (s, c), names in masters.items():
        if len(names) < 2:
            continue
        for index, rule in enumerate(("BROKER_TOPIC_SKEW", "BROKER_QUEUE_SKEW")):
            values = {b: counts.get((s, c, b), [0, 0])[index] for b in names}
            m = _median(list(values.values()))
            for b, n in values.items():
                x = float(n)
                if (x > m * f or x * f < m) and abs(x - m) >= params.skew_min:
                    evidence = {"count": n, "median": m, "factor": f, "min_diff": params.skew_min}
                    msg = MESSAGES[rule] % (n, median_text(m))
                    out.append(_finding(s, c, rule, msg, evidence, broker=b))
    return out


def _median(values: list[int]) -> float:
    v = sorted(values)
    mid = len(v) // 2
    return float(v[mid]) if len(v) % 2 else (v[mid - 1] + v[mid]) / 2


def write_parquet(findings: list[dict[str, Any]], path: str) -> bool:
    """``findings.parquet/part-00000.parquet`` with pyarrow, mirroring Spark's layout; False without pyarrow."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return False
    os.makedirs(path, exist_ok=True)
    for old in Path(path).glob("*.parquet"):
        old.unlink()
    table = pa.table({c: pa.array([f[c] for f in findings], pa.string()) for c in FINDING_COLUMNS})
    pq.write_table(table, os.path.join(path, "part-00000.parquet"))
    return True


def run_python(inputs: list[Path], out: str, params: Params) -> dict[str, Any]:
    started = time.monotonic()
    summary = new_summary([str(p) for p in inputs], "python", None, params)
    manifests = read_manifests(inputs)
    summary["coverage"] = coverage(manifests)
    findings = audit_findings(inputs, params, manifests)
    namesrv = {(r["source"], r["cluster"]): r["namesrv"] for r in _rows(inputs, manifests, "clusters")}
    parquet_written = write_parquet(findings, os.path.join(out, "findings.parquet"))
    summary = write_outputs(out, findings, namesrv, summary)
    if not parquet_written:
        summary["outputs"]["findings_parquet"] = None
    summary["elapsed_s"] = round(time.monotonic() - started, 3)
    write_summary(out, summary)
    return summary
