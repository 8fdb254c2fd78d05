"""The audit's rules in plain single-process Python.

Three uses: the benchmark's baseline against Spark, a cross-check of the Spark job (the tests demand
identical findings), and ``mqadmin audit --engine python`` where Spark is not installed. The rule
catalogue, the rules' evaluation (``job.evaluate`` over ``job.Facts``) and the output writers are shared
with ``job.py``; only how the facts are gathered differs: here every row is streamed into them, while
Spark aggregates the tables and hands over only the rows that can hold a finding.

Memory: one entry per (source, cluster, topic) with a tuple per broker, streamed from the export's files
(the topics table's Parquet copy when there is one and pyarrow is installed, else the gzip JSON Lines).
"""

from __future__ import annotations

import gc
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from mqadmin.audit.job import (
    AUDITED_COLUMNS,
    DLQ_PREFIX,
    MANIFEST,
    RETRY_PREFIX,
    AuditInputError,
    Facts,
    Params,
    attrs_text,
    check_manifests,
    coverage,
    evaluate,
    finish_outputs,
    is_system_topic,
    manifest_from_json,
    new_summary,
    order_conf_sources,
    read_baseline,
    snake_columns,
    table_rows,
)


def read_manifests(inputs: list[Path]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for root in inputs:
        path = root / MANIFEST
        try:
            out.append((str(path), manifest_from_json(path.read_text())))
        except FileNotFoundError:
            raise AuditInputError(f"{root} has no {MANIFEST} (not an export, or the export did not finish)") from None
        except (ValueError, UnicodeDecodeError) as e:
            raise AuditInputError(f"{path} is not valid JSON ({e})") from None
    check_manifests(out)
    return out


def _rows(inputs: list[Path], manifests: list[tuple[str, dict[str, Any]]], table: str) -> Iterator[dict[str, Any]]:
    for root, (_, m) in zip(inputs, manifests, strict=True):
        yield from table_rows(root, m["tables"][table], AUDITED_COLUMNS.get(table), snake_columns(m))


def audit_findings(
    inputs: list[Path],
    params: Params,
    manifests: list[tuple[str, dict[str, Any]]] | None = None,
    facts: Facts | None = None,
) -> list[dict[str, Any]]:
    """Every finding, sorted as the Spark job sorts them; ``facts``, when given, is filled.

    The cyclic garbage collector is paused meanwhile: the millions of tuples built here hold no cycles,
    and its repeated scans of them would make the run grow faster than the input.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        manifests = manifests if manifests is not None else read_manifests(inputs)
        return rule_findings(
            lambda table: _rows(inputs, manifests, table), params, order_conf_sources(manifests), facts
        )
    finally:
        if enabled:
            gc.enable()


def rule_findings(
    rows: Callable[[str], Iterable[dict[str, Any]]],
    params: Params,
    conf_sources: Iterable[str],
    facts: Facts | None = None,
) -> list[dict[str, Any]]:
    """Every finding of the audit's rules over the export tables ``rows(table)`` gives (rows with today's
    column names); the order rules apply to the sources in ``conf_sources`` only. ``mqadmin doctor`` runs
    these on the rows it reads from a live cluster. ``facts``, when given, is the one filled."""
    intern = sys.intern
    facts = facts if facts is not None else Facts()
    facts.conf_sources = set(conf_sources)
    facts.add_small_tables(rows)

    per_topic, retry_like = facts.per_topic, facts.retry_like
    for r in rows("topics"):
        s, c, t, b = r["source"], r["cluster"], r["topic"], intern(r["brokerName"])
        if is_system_topic(t, c):
            if t.startswith((RETRY_PREFIX, DLQ_PREFIX)):
                retry_like[(s, c, t)].add(b)
            continue
        per_topic[(intern(s), intern(c), t)].append(
            (b, r["readQueueNums"], r["writeQueueNums"], r["perm"], bool(r["order"]), attrs_text(r["attributes"]))
        )
    for key in [k for k in per_topic if k[2] in facts.broker_names.get(k[:2], ())]:
        del per_topic[key]
    counts: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])  # topics, write queues
    for (s, c, _), configs in per_topic.items():
        for cfg in configs:
            tally = counts[(s, c, cfg[0])]
            tally[0] += 1
            tally[1] += cfg[2]
    facts.counts = counts

    return evaluate(facts, params)


def run_python(
    inputs: list[Path],
    out: str,
    params: Params,
    baseline: str | None = None,
    progress: Callable[[str], None] = lambda text: None,
) -> dict[str, Any]:
    """Run the audit in this process and write every output; returns the summary. ``progress`` hears each
    phase."""
    started = time.monotonic()
    summary = new_summary([str(p) for p in inputs], "python", None, params)
    previous = read_baseline(baseline) if baseline else None
    manifests = read_manifests(inputs)
    summary["coverage"] = coverage(manifests)
    facts = Facts()
    progress(f"auditing {summary['coverage']['rows'].get('topics', 0):,} topic rows")
    findings = audit_findings(inputs, params, manifests, facts)
    progress("writing the outputs")
    namesrv = {(r["source"], r["cluster"]): r["namesrv"] for r in _rows(inputs, manifests, "clusters")}
    return finish_outputs(out, findings, facts, namesrv, summary, previous, started)
