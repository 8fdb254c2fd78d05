"""The fleet audit as a PySpark job.

Self-contained on purpose: besides being imported by ``mqadmin audit``, this file can be handed to
``spark-submit`` on a machine or cluster where mqadmin is not installed::

    spark-submit mqadmin/audit/job.py --input /data/export-1 [--input DIR ...] --out /data/audit

It imports nothing from mqadmin and PySpark only inside functions, so the plain-Python engine
(``mqadmin.audit.baseline``) can share the rule catalogue, the excluded-topic test, the message
templates and the output writers below without needing Spark.

Rules (one finding per (source, cluster, topic), per broker for skew, per group for lag):

* PLACEMENT_SUBSET: a topic missing on some writable master of its cluster (the auto-create trap:
  created through TBW102 on the one broker a send reached). Writable = master whose topic configs
  were collected and whose brokerPermission has the write bit (unknown counts as writable).
* QUEUE_COUNT_UNEQUAL, READ_WRITE_MISMATCH, PERM_NOT_RW: queue counts differ between brokers;
  readQueueNums != writeQueueNums; perm lacking read or write on some broker.
* ORDER_CONF_MISSING / ORDER_CONF_MISMATCH: an ordered topic with no ORDER_TOPIC_CONFIG entry; an
  entry that disagrees with the brokers and write queue counts the topic really has.
* ORPHAN_RETRY_TOPIC / ORPHAN_DLQ_TOPIC: ``%RETRY%G`` / ``%DLQ%G`` whose group G no longer exists.
* LAG_OVER_THRESHOLD: a group whose summed lag exceeds ``--lag-threshold``.
* BROKER_TOPIC_SKEW / BROKER_QUEUE_SKEW: a master whose topic (or write-queue) count is more than
  ``--skew-factor`` times away from its cluster's median and at least ``--skew-min`` away.

System topics (the fixed list, ``rmq_sys_*``, the cluster- and broker-name topics,
``<cluster>_REPLY_TOPIC``, ``%RETRY%*``, ``%DLQ%*``) are left out of every rule but the orphan one.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

# --- the rule catalogue ----------------------------------------------------------------------------

HIGH, MEDIUM, LOW = "high", "medium", "low"
SEVERITY_RANK = {HIGH: 0, MEDIUM: 1, LOW: 2}

RULES: dict[str, tuple[str, str]] = {
    "PLACEMENT_SUBSET": (HIGH, "topic missing on some writable masters of its cluster (auto-create trap)"),
    "ORDER_CONF_MISSING": (HIGH, "ordered topic without an orderTopicConf"),
    "ORDER_CONF_MISMATCH": (HIGH, "orderTopicConf disagrees with the topic's brokers or queue counts"),
    "QUEUE_COUNT_UNEQUAL": (MEDIUM, "queue counts differ between brokers"),
    "READ_WRITE_MISMATCH": (MEDIUM, "readQueueNums differs from writeQueueNums"),
    "PERM_NOT_RW": (MEDIUM, "topic not readable and writable on some brokers"),
    "LAG_OVER_THRESHOLD": (MEDIUM, "consumer group lag above the threshold"),
    "ORPHAN_RETRY_TOPIC": (LOW, "%RETRY% topic of a group that no longer exists"),
    "ORPHAN_DLQ_TOPIC": (LOW, "%DLQ% topic of a group that no longer exists"),
    "BROKER_TOPIC_SKEW": (LOW, "broker's topic count far from its cluster's median"),
    "BROKER_QUEUE_SKEW": (LOW, "broker's queue count far from its cluster's median"),
}

MESSAGES = {
    "PLACEMENT_SUBSET": "on %d of %d writable masters, missing on %s",
    "QUEUE_COUNT_UNEQUAL": "queue counts (read/write) differ: %s",
    "READ_WRITE_MISMATCH": "read/write queue counts differ on %s",
    "PERM_NOT_RW": "not readable and writable on %s",
    "ORDER_CONF_MISSING": "ordered topic has no orderTopicConf; expected %s",
    "ORDER_CONF_MISMATCH": "orderTopicConf %s disagrees with the queues %s",
    "ORPHAN_RETRY_TOPIC": "retry topic of group %s, which no longer exists",
    "ORPHAN_DLQ_TOPIC": "dead-letter topic of group %s, which no longer exists",
    "LAG_OVER_THRESHOLD": "lag %d exceeds %d",
    "BROKER_TOPIC_SKEW": "holds %d topics; cluster median %s",
    "BROKER_QUEUE_SKEW": "holds %d write queues; cluster median %s",
}

PLAN_RULES = ("PLACEMENT_SUBSET", "QUEUE_COUNT_UNEQUAL", "ORDER_CONF_MISSING", "ORDER_CONF_MISMATCH")
"""Findings fixed by re-running ``updateTopic -c`` with the largest queue count seen."""

FINDING_COLUMNS = ("source", "cluster", "topic", "broker", "group", "rule", "severity", "message", "evidence")

SYSTEM_TOPICS = frozenset(
    {
        "TBW102", "SCHEDULE_TOPIC_XXXX", "BenchmarkTest", "RMQ_SYS_TRANS_HALF_TOPIC", "RMQ_SYS_TRACE_TOPIC",
        "RMQ_SYS_TRANS_OP_HALF_TOPIC", "TRANS_CHECK_MAX_TIME_TOPIC", "SELF_TEST_TOPIC", "OFFSET_MOVED_EVENT",
        "CHECKPOINT_TOPIC", "RMQ_SYS_ROCKSDB_TRANS_HALF_TOPIC", "RMQ_SYS_ROCKSDB_TRANS_OP_HALF_TOPIC",
    }
)  # fmt: skip
"""TopicValidator's system topics; the two RocksDB transaction topics are new in 5.5 (on every broker)."""
SYSTEM_PREFIXES = ("rmq_sys_",)
RETRY_PREFIX, DLQ_PREFIX = "%RETRY%", "%DLQ%"
REPLY_SUFFIX = "_REPLY_TOPIC"
GROUP_SEPARATORS = "_+"  # 5.x POP retry topics: %RETRY%<group>_<topic> (v1) and %RETRY%<group>+<topic> (v2)

SCHEMA_VERSION = 1
MANIFEST = "manifest.json"
TABLES = ("clusters", "brokers", "topics", "groups", "consumer_lag", "order_conf")


@dataclass(frozen=True)
class Params:
    lag_threshold: int = 100_000
    skew_factor: float = 2.0
    skew_min: int = 10


class AuditInputError(ValueError):
    """Inputs the audit cannot use (not an export, wrong schema version, a source twice)."""


def is_system_topic(topic: str, cluster: str) -> bool:
    """System topics other than broker-name topics (those need the cluster's broker list)."""
    return (
        topic in SYSTEM_TOPICS
        or topic.startswith(SYSTEM_PREFIXES)
        or topic.startswith((RETRY_PREFIX, DLQ_PREFIX))
        or topic == cluster
        or topic == cluster + REPLY_SUFFIX
    )


def group_candidates(rest: str) -> list[str]:
    """The group names a retry/DLQ topic suffix may stand for: itself and each prefix before ``_``/``+``."""
    return [rest] + [rest[:i] for i, ch in enumerate(rest) if ch in GROUP_SEPARATORS and i > 0]


def attrs_text(attrs: dict[str, str] | None) -> str:
    return ",".join(sorted(f"{k}={v}" for k, v in attrs.items())) if attrs else ""


def perm_letters(perm: int) -> str:
    return ("R" if perm & 4 else "-") + ("W" if perm & 2 else "-") + ("X" if perm & 1 else "-")


def median_text(m: float) -> str:
    return str(int(m)) if m == int(m) else f"{int(m)}.5"


_ENTRY = r"^(.*):([0-9]+)$"
"""An orderTopicConf entry: ``mqadmin.model.order.ORDER_CONF_ENTRY`` (copied: this file imports nothing
from mqadmin; tests/unit/test_properties_hypothesis.py checks the two agree). Used by both engines."""


def order_conf_entries(conf: str) -> list[str]:
    """The entries of ``b:n;b:n``, trimmed of spaces, blanks dropped."""
    return [e for e in (e.strip(" ") for e in conf.split(";")) if e]


def conf_entry_broker(entry: str) -> str:
    """The broker an order-conf entry names, or "" when it is not ``name:digits`` (so it never matches):
    what ``regexp_extract(entry, _ENTRY, 1)`` gives in Spark."""
    m = re.match(_ENTRY, entry)
    return m.group(1) if m else ""


def evidence_json(obj: dict[str, Any]) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def finding_sort_key(f: dict[str, Any]) -> tuple:
    return (
        SEVERITY_RANK[f["severity"]],
        f["source"],
        f["cluster"],
        f["rule"],
        f["topic"] or "",
        f["broker"] or "",
        f["group"] or "",
    )


# --- reading inputs (driver side) ------------------------------------------------------------------


def check_manifests(manifests: list[tuple[str, dict[str, Any]]]) -> None:
    """Every input is a v1 export, and no source appears in two inputs (its rows would double up)."""
    seen: dict[str, str] = {}
    for where, m in manifests:
        if not isinstance(m, dict) or m.get("kind") != "mqadmin-fleet-export":
            raise AuditInputError(f"{where} is not an mqadmin fleet export")
        if m.get("schema_version") != SCHEMA_VERSION:
            raise AuditInputError(f"{where} has schema version {m.get('schema_version')!r}; expected {SCHEMA_VERSION}")
        for s in m.get("sources") or []:
            name = s["source"]
            if name in seen:
                raise AuditInputError(f"source {name!r} appears in both {seen[name]} and {where}")
            seen[name] = where


def coverage(manifests: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """What the inputs did not cover: failed sources and brokers, missing order configs."""
    failed_sources, failed_brokers, no_order_conf = [], [], []
    rows: Counter[str] = Counter()
    for _, m in manifests:
        for table, info in (m.get("tables") or {}).items():
            rows[table] += int(info.get("rows", 0))
        for s in m.get("sources") or []:
            if s.get("status") == "failed":
                failed_sources.append({"source": s["source"], "reason": s.get("reason")})
                continue
            if not s.get("order_conf_ok"):
                no_order_conf.append(s["source"])
            for c in s.get("clusters") or []:
                for b in c.get("brokers") or []:
                    if b.get("status") == "failed":
                        failed_brokers.append(
                            {"source": s["source"], "cluster": c["cluster"], "broker": b["broker_name"],
                             "reason": b.get("reason")}
                        )  # fmt: skip
    return {
        "rows": dict(sorted(rows.items())),
        "failed_sources": failed_sources,
        "failed_brokers": failed_brokers,
        "sources_without_order_conf": no_order_conf,
    }


def order_conf_sources(manifests: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Sources whose ORDER_TOPIC_CONFIG list was read (order rules apply only there)."""
    return sorted(s["source"] for _, m in manifests for s in m.get("sources") or [] if s.get("order_conf_ok"))


# --- outputs (driver side, shared by both engines) -------------------------------------------------


def plan_entry(findings: list[dict[str, Any]], namesrv: str) -> dict[str, Any]:
    """The ``updateTopic -c`` fixing one topic's fixable findings: on every master, with the largest queue
    count seen, the topic's permission (the union of its bits without priority; 6 when none), its
    attributes, and ``-o true`` when it is ordered here or an order finding is among them (which makes
    mqadmin rewrite the orderTopicConf from the cluster's brokers)."""
    import shlex

    f = findings[0]
    brokers = json.loads(f["evidence"])["brokers"]
    queues = max(max(b["read"], b["write"]) for b in brokers)
    perm = 0
    for b in brokers:
        perm |= b["perm"]
    perm = (perm & 7) or 6
    rules = sorted({x["rule"] for x in findings})
    argv = ["mqadmin", "updateTopic", "-n", namesrv, "-c", f["cluster"], "-t", f["topic"]]
    argv += ["-r", str(queues), "-w", str(queues), "-p", str(perm)]
    if any(b["order"] for b in brokers) or any(r.startswith("ORDER_") for r in rules):
        argv += ["-o", "true"]
    attrs = sorted({a for b in brokers for a in b["attributes"].split(",") if a})
    if attrs:
        argv += ["-a", ",".join("+" + a for a in attrs)]
    entry = {"source": f["source"], "cluster": f["cluster"], "topic": f["topic"], "fixes": rules,
             "command": shlex.join(argv), "argv": argv}  # fmt: skip
    other = sorted({e for x in findings for e in json.loads(x["evidence"]).get("other_clusters") or []})
    if other:  # -c -o true replaces the whole conf with this cluster's brokers
        entry["warning"] = (
            f"orderTopicConf also names other clusters' queues ({';'.join(other)}); the command would drop "
            "them: merge them into the conf with updateOrderConf instead"
        )
    return entry


def build_plan(fixable: Iterable[dict[str, Any]], namesrv: dict[tuple[str, str], str]) -> list[dict[str, Any]]:
    """One command per (source, cluster, topic) among the fixable findings, sorted by place."""
    by_topic: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for f in fixable:
        by_topic.setdefault((f["source"], f["cluster"], f["topic"]), []).append(f)
    return [plan_entry(by_topic[k], namesrv.get(k[:2], k[0])) for k in sorted(by_topic)]


def toml_text(doc: dict[str, Any]) -> str:
    """The plan as TOML: with tomli-w when installed, else a writer for exactly the plan's shapes
    (strings, ints, lists of strings, one array of tables), so the job also runs on bare Spark nodes."""
    try:
        import tomli_w
    except ImportError:
        pass
    else:
        return tomli_w.dumps(doc)

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return str(v)
        if isinstance(v, str):
            return json.dumps(v, ensure_ascii=False)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        raise TypeError(f"cannot write {type(v).__name__} to the plan")

    lines = [f"{k} = {value(v)}" for k, v in doc.items() if not _is_table_array(v)]
    for k, v in doc.items():
        if _is_table_array(v):
            for table in v:
                lines += ["", f"[[{k}]]"] + [f"{tk} = {value(tv)}" for tk, tv in table.items()]
    return "\n".join(lines) + "\n"


def _is_table_array(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def _atomic_text(path: str, text: str) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def write_outputs(
    out: str,
    findings: Iterable[dict[str, Any]],
    namesrv: dict[tuple[str, str], str],
    summary: dict[str, Any],
) -> dict[str, Any]:
    """Stream sorted findings to ``findings.jsonl``, then write ``plan.toml`` and ``summary.json``.

    Returns the summary completed with counts per rule and the output paths.
    """
    os.makedirs(out, exist_ok=True)
    counts: Counter[str] = Counter()
    fixable = []
    jsonl = os.path.join(out, "findings.jsonl")
    tmp = jsonl + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        for row in findings:
            f.write(json.dumps({c: row[c] for c in FINDING_COLUMNS}, separators=(",", ":"), ensure_ascii=False))
            f.write("\n")
            counts[row["rule"]] += 1
            if row["rule"] in PLAN_RULES:
                fixable.append({k: row[k] for k in ("source", "cluster", "topic", "rule", "evidence")})
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, jsonl)
    plan = build_plan(fixable, namesrv)
    header = {
        "generated_at": summary.get("generated_at", ""),
        "inputs": list(summary.get("inputs", [])),
        "note": "Each [[fix]] is an mqadmin updateTopic -c that creates the topic on every master of the "
        "cluster with the largest queue count seen; review, then run the commands.",
    }
    _atomic_text(os.path.join(out, "plan.toml"), toml_text({**header, "fix": plan}))
    summary["findings"] = sum(counts.values())
    summary["by_rule"] = [
        {"rule": r, "severity": RULES[r][0], "count": counts[r], "description": RULES[r][1]}
        for r in sorted(RULES, key=lambda r: (SEVERITY_RANK[RULES[r][0]], r))
    ]
    summary["fixes"] = len(plan)
    summary["outputs"] = {
        "findings_jsonl": jsonl,
        "findings_parquet": os.path.join(out, "findings.parquet"),
        "plan": os.path.join(out, "plan.toml"),
        "summary": os.path.join(out, "summary.json"),
    }
    return summary


def write_summary(out: str, summary: dict[str, Any]) -> None:
    _atomic_text(os.path.join(out, "summary.json"), json.dumps(summary, indent=2) + "\n")


def new_summary(inputs: list[str], engine: str, master: str | None, params: Params) -> dict[str, Any]:
    return {
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "engine": engine,
        "master": master,
        "inputs": inputs,
        "params": asdict(params),
    }


# --- Spark -----------------------------------------------------------------------------------------


def spark_schemas() -> dict[str, Any]:
    from pyspark.sql import types as T

    s, i, lg, b = T.StringType(), T.IntegerType(), T.LongType(), T.BooleanType()

    def struct(*fields: tuple[str, Any]) -> Any:
        return T.StructType([T.StructField(n, t, True) for n, t in fields])

    key = (("source", s), ("cluster", s), ("broker_name", s))
    return {
        "clusters": struct(("source", s), ("cluster", s), ("namesrv", s)),
        "brokers": struct(
            *key, ("broker_id", lg), ("addr", s), ("role", s), ("broker_perm", i), ("topics_ok", b), ("groups_ok", b)
        ),
        "topics": struct(
            *key,
            ("topic", s),
            ("read_queue_nums", i),
            ("write_queue_nums", i),
            ("perm", i),
            ("order", b),
            ("topic_sys_flag", i),
            ("topic_filter_type", s),
            ("attributes", T.MapType(s, s)),
        ),
        "groups": struct(
            *key,
            ("group", s),
            ("consume_enable", b),
            ("consume_orderly", b),
            ("consume_broadcast_enable", b),
            ("retry_queue_nums", i),
            ("retry_max_times", i),
        ),
        "consumer_lag": struct(*key, ("group", s), ("topic", s), ("lag", lg), ("queues", i)),
        "order_conf": struct(("source", s), ("topic", s), ("order_conf", s)),
    }


@contextlib.contextmanager
def launcher_env(changes: dict[str, str]) -> Iterator[None]:
    """Set environment variables only while pyspark starts its JVM (its launcher copies ``os.environ``),
    then put back what was there: nothing else this process runs later (Maven, other JVMs) sees them."""
    saved = {k: os.environ.get(k) for k in changes}
    os.environ.update(changes)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def build_session(
    master: str | None,
    driver_memory: str | None = None,
    app_name: str = "mqadmin-audit",
    java_home: str | None = None,
) -> Any:
    """A SparkSession with a quiet, small footprint: no UI, no console progress, WARN logs, scratch
    and warehouse directories in a temporary directory (nothing left in the working directory), and in
    local mode a loopback driver and 2 shuffle partitions per core. ``driver_memory`` (``4g``) is the heap
    of the whole job in local mode; it only takes effect when this call starts the JVM, and so does
    ``java_home``, the Java it starts (handed to the launcher alone, never left in ``os.environ``)."""
    from pyspark.sql import SparkSession

    scratch = tempfile.mkdtemp(prefix="mqadmin-spark-")
    log4j = os.path.join(scratch, "log4j2.properties")
    with open(log4j, "w") as f:
        f.write("rootLogger.level = warn\nrootLogger.appenderRef.stderr.ref = console\n")
        f.write(
            "appender.console.type = Console\nappender.console.name = console\nappender.console.target = SYSTEM_ERR\n"
        )
        f.write("appender.console.layout.type = PatternLayout\nappender.console.layout.pattern = %p %c{1}: %m%n\n")
        f.write("logger.native.name = org.apache.hadoop.util.NativeCodeLoader\nlogger.native.level = error\n")
    local = master is not None and master.startswith("local")
    builder = SparkSession.builder.appName(app_name)
    if master:
        builder = builder.master(master)
    java_opts = f"-Dlog4j2.configurationFile=file:{log4j} -Dderby.system.home={scratch}"
    conf = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.warehouse.dir": os.path.join(scratch, "warehouse"),
        "spark.driver.extraJavaOptions": java_opts,
        "spark.sql.session.timeZone": "UTC",
    }
    if driver_memory:
        conf["spark.driver.memory"] = driver_memory
    env = {"JAVA_HOME": java_home} if java_home else {}
    if local:
        env.setdefault("SPARK_LOCAL_IP", os.environ.get("SPARK_LOCAL_IP", "127.0.0.1"))
        conf |= {"spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1"}
    for k, v in conf.items():
        builder = builder.config(k, v)
    with launcher_env(env):
        spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    if spark.sparkContext.master.startswith("local"):
        # One machine: a few partitions per core, and no adaptive re-planning, which on small inputs
        # costs more in extra jobs than it saves.
        spark.conf.set("spark.sql.shuffle.partitions", str(2 * spark.sparkContext.defaultParallelism))
        spark.conf.set("spark.sql.adaptive.enabled", "false")
    spark._mqadmin_scratch = scratch  # removed by stop_session
    return spark


def stop_session(spark: Any) -> None:
    scratch = getattr(spark, "_mqadmin_scratch", None)
    spark.stop()
    if scratch:
        shutil.rmtree(scratch, ignore_errors=True)


def _local(path: str) -> str | None:
    """The local filesystem path of ``path``, or None for a URI Spark must read (hdfs://, s3a://, ...)."""
    for scheme in ("file://", "file:"):
        if path.startswith(scheme):
            return path[len(scheme) :]
    return None if "://" in path else path


def _read_text(spark: Any, path: str) -> str:
    local = _local(path)
    if local is not None:
        with open(local, encoding="utf-8") as f:
            return f.read()
    return spark.read.text(path, wholetext=True).first()[0]


def read_manifests_spark(spark: Any, inputs: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """Each input's manifest, read directly when local, through Spark when a URI."""
    out = []
    for root in inputs:
        path = root.rstrip("/") + "/" + MANIFEST
        try:
            text = _read_text(spark, path)
        except Exception as e:  # OSError locally, AnalysisException through Spark
            raise AuditInputError(f"{root} has no readable {MANIFEST} ({str(e).splitlines()[0]})") from None
        try:
            out.append((path, json.loads(text)))
        except ValueError as e:
            raise AuditInputError(f"{path} is not valid JSON ({e})") from None
    check_manifests(out)
    return out


class _Tables:
    """The inputs' tables as DataFrames, read with the export schema (FAILFAST: a corrupt file is an error)."""

    def __init__(self, spark: Any, inputs: list[str], manifests: list[tuple[str, dict[str, Any]]]) -> None:
        self.spark, self.inputs, self.manifests = spark, inputs, manifests
        self.schemas = spark_schemas()

    def files(self, name: str) -> list[str]:
        return [
            root.rstrip("/") + "/" + rel
            for root, (_, m) in zip(self.inputs, self.manifests, strict=True)
            for rel in m["tables"][name]["files"]
        ]

    def __getitem__(self, name: str) -> Any:
        return self.spark.read.schema(self.schemas[name]).option("mode", "FAILFAST").json(self.files(name))


def spark_findings(spark: Any, inputs: list[str], params: Params, manifests: list[tuple[str, dict[str, Any]]]) -> Any:
    """All findings as one DataFrame with FINDING_COLUMNS, sorted by severity and place.

    The topics table, by far the largest, is parsed once into a cached flat table. A cheap aggregation
    per (source, cluster, topic) (counts, min/max, flags) picks the topics that can have a finding; only
    those get the sorted array of per-broker configs the rules and the evidence need. Only built-in
    expressions are used (no Python UDFs), so the work stays in the JVM.
    """
    from pyspark.sql import functions as F

    tables = _Tables(spark, inputs, manifests)
    conf_sources = order_conf_sources(manifests)
    brokers = tables["brokers"].cache()
    meta = _cluster_meta(brokers).cache()
    rows = _topic_rows(tables["topics"], brokers).cache()
    regular = rows.where(~F.col("system"))
    per_topic = _configs_of(regular, _suspects(regular, meta, tables["order_conf"], conf_sources))
    out = _topic_rules(per_topic, meta)
    out += _order_rules(per_topic, meta, tables["order_conf"], conf_sources)
    out += _orphan_rules(rows, meta, tables["groups"])
    out += _lag_rule(tables["consumer_lag"], params)
    out += _skew_rules(regular, meta, params)
    result = out[0]
    for df in out[1:]:
        result = result.unionByName(df)
    # Cached before sorting: the sort samples its input first, which would otherwise run every rule twice.
    return sort_findings(result.cache())


_KEY = ["source", "cluster"]


def _cluster_meta(brokers: Any) -> Any:
    """Per (source, cluster): every broker name, the collected masters, the writable ones, whether every
    broker's groups were read, and ``unseen``: broker names of the source that are not collected masters
    of this cluster (an order conf may name them, but they cannot be checked here)."""
    from pyspark.sql import functions as F

    col = F.col
    master = col("role") == "master"
    collected = master & col("topics_ok")
    writable = _writable_master()
    per_broker = brokers.groupBy(*_KEY, "broker_name").agg(
        F.max(collected.cast("int")).alias("collected"),
        F.max(writable.cast("int")).alias("writable"),
        F.max((master & col("groups_ok")).cast("int")).alias("groups_ok"),
    )

    def names(flag: str) -> Any:
        return F.array_sort(F.collect_set(F.when(col(flag) == 1, col("broker_name"))))

    per_cluster = per_broker.groupBy(*_KEY).agg(
        F.collect_set("broker_name").alias("broker_names"),
        names("collected").alias("masters"),
        names("writable").alias("writable"),
        (F.min("groups_ok") == 1).alias("groups_complete"),
    )
    per_source = brokers.groupBy("source").agg(F.collect_set("broker_name").alias("source_brokers"))
    return per_cluster.join(per_source, "source").withColumn("unseen", F.array_except("source_brokers", "masters"))


def _topic_rows(topics: Any, brokers: Any) -> Any:
    """The topics table, flat, with per row ``system`` (left out of every rule but the orphan one) and
    ``on_writable`` (the broker is a writable master of the cluster). Both come from broadcast joins on
    flat keys, which is cheaper per row than carrying the cluster's broker lists."""
    from pyspark.sql import functions as F

    col, lit = F.col, F.lit
    writable = (
        brokers.where(_writable_master())
        .select(*_KEY, col("broker_name").alias("broker"), lit(True).alias("on_writable"))
        .distinct()
    )
    named = brokers.select(*_KEY, col("broker_name").alias("topic"), lit(True).alias("broker_topic")).distinct()
    system = (
        col("topic").isin(sorted(SYSTEM_TOPICS))
        | col("topic").startswith(SYSTEM_PREFIXES[0])
        | col("topic").startswith(RETRY_PREFIX)
        | col("topic").startswith(DLQ_PREFIX)
        | (col("topic") == col("cluster"))
        | (col("topic") == F.concat(col("cluster"), lit(REPLY_SUFFIX)))
        | col("broker_topic").isNotNull()
    )
    return (
        topics.select(
            *_KEY,
            col("broker_name").alias("broker"),
            "topic",
            col("read_queue_nums").alias("read"),
            col("write_queue_nums").alias("write"),
            "perm",
            "order",
            "attributes",
        )
        .join(F.broadcast(writable), [*_KEY, "broker"], "left")
        .join(F.broadcast(named), [*_KEY, "topic"], "left")
        .select(
            *_KEY,
            "broker",
            "topic",
            "read",
            "write",
            "perm",
            "order",
            "attributes",
            system.alias("system"),
            F.coalesce("on_writable", lit(False)).alias("on_writable"),
        )
    )


def _writable_master() -> Any:
    """A master whose topic configs were collected and whose brokerPermission allows writes (or is unknown)."""
    from pyspark.sql import functions as F

    col = F.col
    return (
        (col("role") == "master")
        & col("topics_ok")
        & (col("broker_perm").isNull() | (col("broker_perm").bitwiseAND(2) != 0))
    )


_BROADCAST_SUSPECTS = 500_000


def _suspects(regular: Any, meta: Any, order_conf: Any, conf_sources: list[str]) -> Any:
    """(source, cluster, topic) of every topic that may have a topic or order finding: necessary
    conditions of each rule, from plain aggregates (no arrays)."""
    from pyspark.sql import functions as F

    col = F.col
    flags = regular.groupBy(*_KEY, "topic").agg(
        F.sum(col("on_writable").cast("int")).alias("on_writable"),
        (
            (F.min("read") != F.max("read"))
            | (F.min("write") != F.max("write"))
            | F.max(col("read") != col("write"))
            | F.max(col("perm").bitwiseAND(6) != 6)
            | F.max(F.coalesce(col("order"), F.lit(False)))
        ).alias("flagged"),
    )
    with_conf = order_conf.where(col("source").isin(conf_sources)).select("source", "topic", F.lit(True).alias("conf"))
    return (
        flags.join(F.broadcast(meta.select(*_KEY, F.size("writable").alias("writable"))), _KEY, "left")
        .join(with_conf, ["source", "topic"], "left")
        .where(col("flagged") | (col("on_writable") < F.coalesce("writable", F.lit(0))) | col("conf").isNotNull())
        .select(*_KEY, "topic")
    )


def _configs_of(regular: Any, suspects: Any) -> Any:
    """One row per suspect topic: ``brokers``, its per-broker configs sorted by broker, and ``present``."""
    from pyspark.sql import functions as F

    suspects = suspects.cache()
    if suspects.count() <= _BROADCAST_SUSPECTS:  # normally a small fraction of the fleet
        suspects = F.broadcast(suspects)
    attrs = F.array_join(
        F.array_sort(F.transform(F.map_entries("attributes"), lambda e: F.concat(e["key"], F.lit("="), e["value"]))),
        ",",
    )
    config = F.struct("broker", "read", "write", "perm", "order", F.coalesce(attrs, F.lit("")).alias("attributes"))
    return (
        regular.join(suspects, [*_KEY, "topic"], "left_semi")
        .groupBy(*_KEY, "topic")
        .agg(F.array_sort(F.collect_list(config)).alias("brokers"))
        .withColumn("present", F.transform("brokers", lambda b: b["broker"]))
    )


def _finding(df: Any, rule: str, message: Any, evidence: Any, topic: bool = True, broker: Any = None,
             group: Any = None) -> Any:  # fmt: skip
    from pyspark.sql import functions as F

    none = F.lit(None).cast("string")
    return df.select(
        "source",
        "cluster",
        (F.col("topic") if topic else none).alias("topic"),
        (none if broker is None else broker).alias("broker"),
        (none if group is None else group).alias("group"),
        F.lit(rule).alias("rule"),
        F.lit(RULES[rule][0]).alias("severity"),
        message.alias("message"),
        F.to_json(evidence).alias("evidence"),
    )


def _topic_rules(per_topic: Any, meta: Any) -> list[Any]:
    from pyspark.sql import functions as F

    def listing(arr: Any, fn: Any) -> Any:
        return F.array_join(F.transform(arr, fn), ", ")

    def rw(b: Any) -> Any:
        return F.concat(b["broker"], F.lit(" "), b["read"].cast("string"), F.lit("/"), b["write"].cast("string"))

    def letters(p: Any) -> Any:
        return F.concat(
            *(F.when(p.bitwiseAND(bit) != 0, ch).otherwise("-") for bit, ch in ((4, "R"), (2, "W"), (1, "X")))
        )

    def not_rw(b: Any) -> Any:
        return b["perm"].bitwiseAND(6) != 6

    def uneven(b: Any) -> Any:
        return b["read"] != b["write"]

    placed = (
        per_topic.join(F.broadcast(meta.select(*_KEY, "writable")), _KEY, "left")
        .withColumn("writable", F.coalesce("writable", F.array().cast("array<string>")))
        .withColumn("missing", F.array_sort(F.array_except("writable", "present")))
    )

    def varies(field: str) -> Any:
        return F.size(F.array_distinct(F.transform("brokers", lambda b: b[field]))) > 1

    template = MESSAGES
    return [
        _finding(
            placed.where(F.size("missing") > 0),
            "PLACEMENT_SUBSET",
            F.format_string(
                template["PLACEMENT_SUBSET"],
                F.size(F.array_intersect("writable", "present")),
                F.size("writable"),
                F.array_join("missing", ", "),
            ),
            F.struct("present", "missing", "brokers"),
        ),
        _finding(
            per_topic.where(varies("read") | varies("write")),
            "QUEUE_COUNT_UNEQUAL",
            F.format_string(template["QUEUE_COUNT_UNEQUAL"], listing("brokers", rw)),
            F.struct("brokers"),
        ),
        _finding(
            per_topic.where(F.exists("brokers", uneven)),
            "READ_WRITE_MISMATCH",
            F.format_string(template["READ_WRITE_MISMATCH"], listing(F.filter("brokers", uneven), rw)),
            F.struct("brokers"),
        ),
        _finding(
            per_topic.where(F.exists("brokers", not_rw)),
            "PERM_NOT_RW",
            F.format_string(
                template["PERM_NOT_RW"],
                listing(F.filter("brokers", not_rw), lambda b: F.concat(b["broker"], F.lit(" "), letters(b["perm"]))),
            ),
            F.struct("brokers"),
        ),
    ]


def _order_rules(per_topic: Any, meta: Any, order_conf: Any, conf_sources: list[str]) -> list[Any]:
    from pyspark.sql import functions as F

    col, lit = F.col, F.lit
    expected = F.array_join(
        F.array_sort(F.transform("brokers", lambda b: F.concat(b["broker"], lit(":"), b["write"].cast("string")))),
        ";",
    )
    entries = F.filter(F.transform(F.split(F.coalesce("order_conf", lit("")), ";"), F.trim), lambda e: e != "")
    kept = F.filter(entries, lambda e: ~F.array_contains("unseen", F.regexp_extract(e, _ENTRY, 1)))
    ordered_here = F.exists("brokers", lambda b: b["order"])
    # A conf concerns this cluster when the topic is ordered here or the conf names one of its brokers
    # (one name server may serve several clusters; the KV entry is per topic, not per cluster).
    relevant = ordered_here | F.exists(
        entries, lambda e: F.array_contains("broker_names", F.regexp_extract(e, _ENTRY, 1))
    )
    other_clusters = F.array_sort(
        F.filter(
            entries,
            lambda e: (
                (F.regexp_extract(e, _ENTRY, 1) != "")
                & ~F.array_contains("broker_names", F.regexp_extract(e, _ENTRY, 1))
            ),
        )
    )
    ordered = (
        per_topic.where(col("source").isin(conf_sources))
        .join(order_conf, ["source", "topic"], "left")
        .where(col("order_conf").isNotNull() | ordered_here)
        .join(F.broadcast(meta.select(*_KEY, "broker_names", "unseen")), _KEY, "left")
        .withColumn("expected", expected)
    )
    return [
        _finding(
            ordered.where(ordered_here & col("order_conf").isNull()),
            "ORDER_CONF_MISSING",
            F.format_string(MESSAGES["ORDER_CONF_MISSING"], col("expected")),
            F.struct("expected", "brokers"),
        ),
        _finding(
            ordered.where(
                col("order_conf").isNotNull() & relevant & (F.array_join(F.array_sort(kept), ";") != col("expected"))
            ),
            "ORDER_CONF_MISMATCH",
            F.format_string(MESSAGES["ORDER_CONF_MISMATCH"], col("order_conf"), col("expected")),
            F.struct("order_conf", "expected", other_clusters.alias("other_clusters"), "brokers"),
        ),
    ]


def _orphan_rules(rows: Any, meta: Any, groups: Any) -> list[Any]:
    from pyspark.sql import functions as F

    col = F.col
    rest = F.when(col("topic").startswith(RETRY_PREFIX), F.substring("topic", len(RETRY_PREFIX) + 1, 1 << 20))
    retry_like = (
        rows.where(col("topic").startswith(RETRY_PREFIX) | col("topic").startswith(DLQ_PREFIX))
        .join(F.broadcast(meta.where(col("groups_complete")).select(*_KEY)), _KEY, "left_semi")
        .groupBy(*_KEY, "topic")
        .agg(F.array_sort(F.collect_set("broker")).alias("brokers"))
        .withColumn("rest", rest.otherwise(F.substring("topic", len(DLQ_PREFIX) + 1, 1 << 20)))
    )
    separators = ", ".join(f"'{c}'" for c in GROUP_SEPARATORS)
    candidates = F.expr(
        "array_union(array(rest), filter(transform(sequence(1, greatest(length(rest), 1)), "
        f"i -> IF(i > 1 AND substr(rest, i, 1) IN ({separators}), substr(rest, 1, i - 1), NULL)), x -> x IS NOT NULL))"
    )
    names = groups.select(*_KEY, col("group").alias("candidate")).distinct()
    matched = (
        retry_like.select(*_KEY, "topic", F.explode(candidates).alias("candidate"))
        .join(names, [*_KEY, "candidate"], "left_semi")
        .select(*_KEY, "topic")
        .distinct()
    )
    orphans = retry_like.join(matched, [*_KEY, "topic"], "left_anti")
    return [
        _finding(
            orphans.where(col("topic").startswith(prefix)),
            rule,
            F.format_string(MESSAGES[rule], col("rest")),
            F.struct(col("rest").alias("group"), "brokers"),
        )
        for rule, prefix in (("ORPHAN_RETRY_TOPIC", RETRY_PREFIX), ("ORPHAN_DLQ_TOPIC", DLQ_PREFIX))
    ]


def _lag_rule(consumer_lag: Any, params: Params) -> list[Any]:
    from pyspark.sql import functions as F

    threshold = F.lit(params.lag_threshold).cast("long")
    lag = (
        consumer_lag.groupBy(*_KEY, "group", "topic")
        .agg(F.sum("lag").alias("lag"))
        .groupBy(*_KEY, "group")
        .agg(F.sum("lag").alias("lag"), F.array_sort(F.collect_list(F.struct("topic", "lag"))).alias("topics"))
        .where(F.col("lag") > threshold)
    )
    return [
        _finding(
            lag,
            "LAG_OVER_THRESHOLD",
            F.format_string(MESSAGES["LAG_OVER_THRESHOLD"], F.col("lag"), threshold),
            F.struct("lag", threshold.alias("threshold"), "topics"),
            topic=False,
            group=F.col("group"),
        )
    ]


def _skew_rules(regular: Any, meta: Any, params: Params) -> list[Any]:
    from pyspark.sql import functions as F

    col, lit = F.col, F.lit
    counts = regular.groupBy(*_KEY, "broker").agg(F.count(lit(1)).alias("topics"), F.sum("write").alias("queues"))
    per_broker = (
        meta.where(F.size("masters") >= 2)
        .select(*_KEY, F.explode("masters").alias("broker"))
        .join(counts, [*_KEY, "broker"], "left")
        .select(*_KEY, "broker", *(F.coalesce(c, lit(0)).cast("long").alias(c) for c in ("topics", "queues")))
    )
    medians = per_broker.groupBy(*_KEY).agg(
        *(F.expr(f"percentile({c}, 0.5)").alias(f"{c}_median") for c in ("topics", "queues"))
    )
    base = per_broker.join(medians, _KEY)
    f = float(params.skew_factor)
    out = []
    for rule, what in (("BROKER_TOPIC_SKEW", "topics"), ("BROKER_QUEUE_SKEW", "queues")):
        c, m = col(what).cast("double"), col(f"{what}_median")
        far = ((c > m * f) | (c * f < m)) & (F.abs(c - m) >= params.skew_min)
        whole = F.floor(m).cast("long").cast("string")
        median_txt = F.when(m == F.floor(m), whole).otherwise(F.concat(whole, lit(".5")))
        out.append(
            _finding(
                base.where(far),
                rule,
                F.format_string(MESSAGES[rule], col(what), median_txt),
                F.struct(
                    col(what).alias("count"),
                    m.alias("median"),
                    lit(f).alias("factor"),
                    lit(params.skew_min).cast("long").alias("min_diff"),
                ),
                topic=False,
                broker=col("broker"),
            )
        )
    return out


def sort_findings(df: Any) -> Any:
    """Severity first (high to low), then place; the order of ``finding_sort_key``."""
    from pyspark.sql import functions as F

    rank = F.when(F.col("severity") == HIGH, 0).when(F.col("severity") == MEDIUM, 1).otherwise(2)
    return df.orderBy(rank, "source", "cluster", "rule", "topic", "broker", "group")


def namesrv_map(spark: Any, tables: _Tables) -> dict[tuple[str, str], str]:
    """(source, cluster) -> the ``-n`` value, for the plan's commands (a small table)."""
    out: dict[tuple[str, str], str] = {}
    for path in tables.files("clusters"):
        local = _local(path)
        if local is None:
            rows = [r.asDict() for r in tables["clusters"].collect()]
        else:
            import gzip

            with gzip.open(local, "rt", encoding="utf-8") as f:
                rows = [json.loads(line) for line in f if line.strip()]
        out.update({(r["source"], r["cluster"]): r["namesrv"] for r in rows if r.get("namesrv")})
        if local is None:
            break
    return out


def run_spark(spark: Any, inputs: list[str], out: str, params: Params, master: str | None) -> dict[str, Any]:
    """Run the audit on ``spark`` and write every output; returns the summary."""
    started = time.monotonic()
    summary = new_summary(inputs, "spark", master or spark.sparkContext.master, params)
    manifests = read_manifests_spark(spark, inputs)
    summary["coverage"] = coverage(manifests)
    findings = spark_findings(spark, inputs, params, manifests).cache()
    findings.write.mode("overwrite").parquet(os.path.join(out, "findings.parquet"))
    rows = (r.asDict() for r in findings.toLocalIterator())
    summary = write_outputs(out, rows, namesrv_map(spark, _Tables(spark, inputs, manifests)), summary)
    findings.unpersist()
    summary["elapsed_s"] = round(time.monotonic() - started, 3)
    write_summary(out, summary)
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="job.py", description="mqadmin fleet audit (PySpark job)")
    parser.add_argument("--input", action="append", required=True, help="export directory (repeatable)")
    parser.add_argument("--out", required=True, help="output directory on the driver's filesystem")
    parser.add_argument("--master", default=None, help="Spark master (default: what spark-submit sets)")
    parser.add_argument("--lag-threshold", type=int, default=Params.lag_threshold)
    parser.add_argument("--skew-factor", type=float, default=Params.skew_factor)
    parser.add_argument("--skew-min", type=int, default=Params.skew_min)
    args = parser.parse_args(argv)
    params = Params(args.lag_threshold, args.skew_factor, args.skew_min)
    spark = build_session(args.master)
    try:
        summary = run_spark(spark, args.input, args.out, params, args.master)
    except AuditInputError as e:
        print(f"audit: error: {e}", file=sys.stderr)
        return 2
    finally:
        with contextlib.suppress(Exception):
            stop_session(spark)
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
