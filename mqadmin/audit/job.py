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
import gzip
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
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

FINDING_COLUMNS = (
    "source", "cluster", "topic", "broker", "group", "rule", "severity", "message", "evidence", "id", "change",
)  # fmt: skip
"""``id``: the finding's stable id (``finding_id``); ``change``: new or unchanged since the ``--baseline`` audit
(null without one)."""
GROUP_RULES = ("ORPHAN_RETRY_TOPIC", "ORPHAN_DLQ_TOPIC", "LAG_OVER_THRESHOLD")
"""The rules that need every broker's groups read."""
CHANGES = ("new", "unchanged", "resolved", "unverified")
"""A finding's change since the ``--baseline`` audit: this audit's are new or unchanged; the baseline's that this
audit did not find are resolved, or unverified when this audit could not check their place (their source or a
broker of their cluster was not read, their cluster was not in the inputs, an order rule's source had no order
configs read, a group rule's cluster not all its groups): not finding them there says nothing."""
DISTRIBUTION_RULES = ("PLACEMENT_SUBSET", "BROKER_TOPIC_SKEW", "BROKER_QUEUE_SKEW")
"""Clusters with one of these findings get their per-broker topic and queue counts in the summary (``brokers``)."""

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

SCHEMA_VERSION = 3
"""Version 3 names the tables' columns in camelCase (``brokerName``); version 2 wrote the manifest's keys in
camelCase (``schemaVersion``) and the columns in snake_case; version 1 both in snake_case. All three read."""
READABLE_VERSIONS = (1, 2, 3)
CAMEL_COLUMNS_SINCE = 3
"""The first schema version whose table columns are camelCase; older exports' columns are renamed on reading."""
SNAKE_COLUMNS = {
    "broker_name": "brokerName",
    "broker_id": "brokerId",
    "broker_perm": "brokerPermission",
    "topics_ok": "topicsOk",
    "groups_ok": "groupsOk",
    "read_queue_nums": "readQueueNums",
    "write_queue_nums": "writeQueueNums",
    "topic_sys_flag": "topicSysFlag",
    "topic_filter_type": "topicFilterType",
    "consume_enable": "consumeEnable",
    "consume_orderly": "consumeMessageOrderly",
    "consume_broadcast_enable": "consumeBroadcastEnable",
    "retry_queue_nums": "retryQueueNums",
    "retry_max_times": "retryMaxTimes",
    "order_conf": "orderConf",
}
"""The one mapping of the columns renamed in version 3: an old (snake_case) name -> its camelCase name (RocketMQ's
own where it has one: ``brokerPermission``, ``consumeMessageOrderly``). Every reader of the tables renames an
older export's columns with it; the columns not listed (``source``, ``topic``, ``lag``...) kept their names."""
MANIFEST = "manifest.json"
TABLES = ("clusters", "brokers", "topics", "groups", "consumer_lag", "order_conf")
PARQUET_KEY = "parquet"
"""A table's entry in the manifest may list, besides its gzip JSON Lines ``files``, the same rows as Parquet."""
KEY_COLUMNS = {"topics": (("clusterKey", ("source", "cluster")), ("brokerKey", ("source", "cluster", "brokerName")),
                          ("topicKey", ("source", "cluster", "topic")))}  # fmt: skip
"""The 64-bit keys the topics' Parquet copy carries besides the table's columns, each a ``stable_key`` of the
columns named: Spark groups and joins on them as longs instead of hashing and comparing the names per row."""


TOPIC_FACTS = (("topicCheck", "int"), ("topicKind", "int"), ("retryTopic", "string"))
"""What the topics' Parquet copy also says of each row's topic (``topic_facts``), so that Spark's pass over every
row reads no name: a second, 32-bit hash, the topic's kind, and the name of a %RETRY%/%DLQ% topic (null for the
others, the only names the orphan rule needs)."""
KIND_REGULAR, KIND_RETRY, KIND_SYSTEM = 0, 1, 2
"""``topicKind``: a regular topic (or one named like a broker: the audit tells those by key), %RETRY%/%DLQ%, or
another system topic (``is_system_topic``)."""
_FACTS_RULES = hashlib.sha256(
    repr((TOPIC_FACTS, sorted(SYSTEM_TOPICS), SYSTEM_PREFIXES, RETRY_PREFIX, DLQ_PREFIX, REPLY_SUFFIX)).encode()
).hexdigest()[:8]
KEYS_KEY, KEY_HASH = "parquet_keys", f"blake2b-64-facts-{_FACTS_RULES}"
"""A table entry's ``parquet_keys`` names how its Parquet copy's key columns and topic facts were made
(``stable_key``; ``topic_facts`` under these columns and system-topic rules, whose digest it carries): an audit
trusts the columns only when every input names its own ``KEY_HASH``, and works from the names otherwise."""


def keyed_topics(manifest: dict[str, Any]) -> bool:
    """Whether an export's topics (its manifest as read) have a Parquet copy with this version's keys and topic
    facts (``KEY_HASH``)."""
    entry = (manifest.get("tables") or {}).get("topics")
    return isinstance(entry, dict) and bool(entry.get(PARQUET_KEY)) and entry.get(KEYS_KEY) == KEY_HASH


def topic_facts(source: str | None, cluster: str | None, topic: str | None) -> tuple[Any, ...]:
    """A topic row's ``TOPIC_FACTS`` values (nulls for a row without a name)."""
    if source is None or cluster is None or topic is None:
        return (None, None, None)
    retry = topic.startswith((RETRY_PREFIX, DLQ_PREFIX))
    kind = KIND_RETRY if retry else KIND_SYSTEM if is_system_topic(topic, cluster) else KIND_REGULAR
    return (check_key(source, cluster, topic), kind, topic if retry else None)


def check_key(*parts: str) -> int:
    """A second key of names, 32 bits, independent of ``stable_key`` (BLAKE2b personalised): two names sharing a
    ``stable_key`` are told apart by it (unless both keys collide: one chance in 2**96)."""
    digest = hashlib.blake2b("\x1f".join(parts).encode(), digest_size=4, person=b"mqadmin.check").digest()
    return int.from_bytes(digest, "little", signed=True)


def stable_key(*parts: str) -> int:
    """A 64-bit key of names that every process computes alike: BLAKE2b's first 8 bytes of the names joined by
    U+001F, read as a signed little-endian integer. Two names sharing a key are told apart by the audit."""
    digest = hashlib.blake2b("\x1f".join(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


@dataclass(frozen=True)
class Params:
    lag_threshold: int = 100_000
    skew_factor: float = 2.0
    skew_min: int = 10


class AuditInputError(ValueError):
    """Inputs the audit cannot use (not an export, wrong schema version, a source twice)."""


class BaselineError(AuditInputError):
    """A ``--baseline`` that is not a readable audit output directory."""


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


def evidence_of(f: dict[str, Any]) -> dict[str, Any]:
    """A finding's evidence as an object: nested JSON in findings.jsonl, a JSON string in older audits' files
    and inside the engines (where findings are rows of strings)."""
    ev = f["evidence"]
    return json.loads(ev) if isinstance(ev, str) else ev


# --- camelCase in the files (manifest.json, summary.json, findings.jsonl) ---------------------------

_SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")
_CAMEL = re.compile(r"^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$")


def camel(key: str) -> str:
    """``failed_masters`` -> ``failedMasters``; anything not lower snake_case (rule ids, names) unchanged."""
    if not _SNAKE.match(key):
        return key
    head, *rest = key.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def snake(key: str) -> str:
    """The inverse of ``camel``: ``failedMasters`` -> ``failed_masters``."""
    return re.sub(r"[A-Z]", lambda m: "_" + m.group().lower(), key) if _CAMEL.match(key) else key


def _renamed_keys(value: Any, rename: Callable[[str], str]) -> Any:
    if isinstance(value, dict):
        return {rename(k): _renamed_keys(v, rename) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed_keys(v, rename) for v in value]
    return value


def camel_keys(value: Any) -> Any:
    """``value`` with every dict key in camelCase, recursively: how the documents are written. The code keeps
    snake_case names inside; the files' documents hold no keys that are user data (names are values)."""
    return _renamed_keys(value, camel)


def snake_keys(value: Any) -> Any:
    """The inverse of ``camel_keys``, for documents read back (a v2 manifest, a baseline's summary)."""
    return _renamed_keys(value, snake)


def manifest_from_json(text: str) -> Any:
    """A manifest as the code reads it (snake_case keys), from a v2 (camelCase) or v1 (snake_case) file."""
    doc = json.loads(text)
    return snake_keys(doc) if isinstance(doc, dict) and "schemaVersion" in doc else doc


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
    """Every input is an export of a version we read, and no source appears in two inputs (its rows would double up)."""
    seen: dict[str, str] = {}
    for where, m in manifests:
        if not isinstance(m, dict) or m.get("kind") != "mqadmin-fleet-export":
            raise AuditInputError(f"{where} is not an mqadmin fleet export")
        if m.get("schema_version") not in READABLE_VERSIONS:
            raise AuditInputError(
                f"{where} has schema version {m.get('schema_version')!r}; this audit reads "
                + " and ".join(map(str, READABLE_VERSIONS))
            )
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
        "exports": [
            {"created_at": m.get("created_at"), "status": m.get("status"), "sources": len(m.get("sources") or [])}
            for _, m in manifests
        ],
        "rows": dict(sorted(rows.items())),
        "failed_sources": failed_sources,
        "failed_brokers": failed_brokers,
        "sources_without_order_conf": no_order_conf,
    }


def order_conf_sources(manifests: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Sources whose ORDER_TOPIC_CONFIG list was read (order rules apply only there)."""
    return sorted(s["source"] for _, m in manifests for s in m.get("sources") or [] if s.get("order_conf_ok"))


# --- evaluating the rules (driver side, shared by both engines) ------------------------------------

Config = tuple[str, int, int, int, bool, str]  # broker, read, write, perm, order, attributes
Key = tuple[str, str]  # source, cluster


@dataclass
class Facts:
    """What the rules need, built by an engine from the tables: the plain-Python engine streams every row
    into it; Spark aggregates the large tables and fills it with the few rows that can hold a finding.

    ``per_topic``: the per-broker configs of regular topics (Spark: only those that may have a topic or order
    finding); ``counts``: topics and write queues per (source, cluster, broker) over all regular topics;
    ``retry_like``: brokers of every %RETRY%/%DLQ% topic; ``lag``: per (source, cluster, group) the summed lag
    per topic (Spark: only groups above the threshold)."""

    broker_names: dict[Key, set[str]] = field(default_factory=lambda: defaultdict(set))
    source_brokers: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    masters: dict[Key, set[str]] = field(default_factory=lambda: defaultdict(set))
    writable: dict[Key, set[str]] = field(default_factory=lambda: defaultdict(set))
    groups_complete: dict[Key, bool] = field(default_factory=dict)
    per_topic: dict[tuple[str, str, str], list[Config]] = field(default_factory=lambda: defaultdict(list))
    counts: dict[tuple[str, str, str], list[int]] = field(default_factory=dict)
    retry_like: dict[tuple[str, str, str], set[str]] = field(default_factory=lambda: defaultdict(set))
    groups: dict[Key, set[str]] = field(default_factory=lambda: defaultdict(set))
    lag: dict[tuple[str, str, str], dict[str, int]] = field(default_factory=dict)
    conf_sources: set[str] = field(default_factory=set)
    order_conf: dict[tuple[str, str], str] = field(default_factory=dict)

    def add_brokers(self, rows: Iterable[dict[str, Any]]) -> None:
        """The brokers table: names, collected and writable masters, whether every broker's groups were read."""
        groups_ok: dict[tuple[str, str, str], bool] = {}
        for r in rows:
            key, name = (r["source"], r["cluster"]), r["brokerName"]
            self.broker_names[key].add(name)
            self.source_brokers[r["source"]].add(name)
            is_master = r["role"] == "master"
            if is_master and r["topicsOk"]:
                self.masters[key].add(name)
                if r["brokerPermission"] is None or r["brokerPermission"] & 2:
                    self.writable[key].add(name)
            groups_ok[(*key, name)] = groups_ok.get((*key, name), False) or bool(is_master and r["groupsOk"])
        self.groups_complete = {k: all(groups_ok[(*k, b)] for b in names) for k, names in self.broker_names.items()}

    def add_small_tables(self, rows: Callable[[str], Iterable[dict[str, Any]]]) -> None:
        """Every table but topics, whose rows ``rows(table)`` yields: brokers, order configs, group names,
        and the summed lag per (source, cluster, group) and topic."""
        self.add_cluster_tables(rows)
        self.add_group_tables(rows)

    def add_cluster_tables(self, rows: Callable[[str], Iterable[dict[str, Any]]]) -> None:
        """The brokers and order configs."""
        self.add_brokers(rows("brokers"))
        self.order_conf = {(r["source"], r["topic"]): r["orderConf"] for r in rows("order_conf")}

    def add_group_tables(self, rows: Callable[[str], Iterable[dict[str, Any]]]) -> None:
        """Group names, and the summed lag per (source, cluster, group) and topic."""
        self.add_groups(
            ((r["source"], r["cluster"], r["group"]) for r in rows("groups")),
            ((r["source"], r["cluster"], r["group"], r["topic"], r["lag"]) for r in rows("consumer_lag")),
        )

    def add_groups(self, groups: Iterable[tuple[Any, ...]], lags: Iterable[tuple[Any, ...]]) -> None:
        """``groups``: (source, cluster, group); ``lags``: (source, cluster, group, topic, lag)."""
        for s, c, g in groups:
            self.groups[(s, c)].add(g)
        lag: dict[tuple[str, str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for s, c, g, t, n in lags:
            lag[(s, c, g)][t] += n
        self.lag = lag


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


def evaluate(facts: Facts, params: Params) -> list[dict[str, Any]]:
    """Every finding the facts hold, sorted by ``finding_sort_key``."""
    out: list[dict[str, Any]] = []
    for (s, c, t), configs in facts.per_topic.items():
        configs.sort()
        out.extend(_topic_findings(s, c, t, configs, facts))
    for (s, c, t), hosts in facts.retry_like.items():
        if not facts.groups_complete.get((s, c), False):
            continue
        retry = t.startswith(RETRY_PREFIX)
        rest = t[len(RETRY_PREFIX if retry else DLQ_PREFIX) :]
        names = facts.groups.get((s, c), set())
        if any(g in names for g in group_candidates(rest)):
            continue
        rule = "ORPHAN_RETRY_TOPIC" if retry else "ORPHAN_DLQ_TOPIC"
        out.append(_finding(s, c, rule, MESSAGES[rule] % rest, {"group": rest, "brokers": sorted(hosts)}, topic=t))
    for (s, c, g), per in facts.lag.items():
        total = sum(per.values())
        if total > params.lag_threshold:
            topics = [{"topic": t, "lag": n} for t, n in sorted(per.items())]
            evidence = {"lag": total, "threshold": params.lag_threshold, "topics": topics}
            msg = MESSAGES["LAG_OVER_THRESHOLD"] % (total, params.lag_threshold)
            out.append(_finding(s, c, "LAG_OVER_THRESHOLD", msg, evidence, group=g))
    out.extend(_skew_findings(facts.masters, facts.counts, params))
    out.sort(key=finding_sort_key)
    return out


def _topic_findings(s: str, c: str, t: str, configs: list[Config], facts: Facts) -> list[dict[str, Any]]:
    out = []

    def brokers() -> list[dict[str, Any]]:  # evidence, built only for a topic with a finding
        return [_config_json(x) for x in configs]

    present = [x[0] for x in configs]
    w = facts.writable.get((s, c), set())
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
    if s in facts.conf_sources:
        conf = facts.order_conf.get((s, t))
        expected = ";".join(sorted(f"{x[0]}:{x[2]}" for x in configs))
        if conf is None and any(x[4] for x in configs):
            msg = MESSAGES["ORDER_CONF_MISSING"] % expected
            out.append(_finding(s, c, "ORDER_CONF_MISSING", msg, {"expected": expected, "brokers": brokers()}, t))
        entries = order_conf_entries(conf) if conf is not None else []
        names = facts.broker_names.get((s, c), set())
        relevant = any(x[4] for x in configs) or any(conf_entry_broker(e) in names for e in entries)
        if conf is not None and relevant:
            unseen = facts.source_brokers.get(s, set()) - facts.masters.get((s, c), set())
            if ";".join(sorted(e for e in entries if conf_entry_broker(e) not in unseen)) != expected:
                msg = MESSAGES["ORDER_CONF_MISMATCH"] % (conf, expected)
                other = sorted(e for e in entries if conf_entry_broker(e) and conf_entry_broker(e) not in names)
                evidence = {"orderConf": conf, "expected": expected, "otherClusters": other, "brokers": brokers()}
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
                    evidence = {"count": n, "median": m, "factor": f, "minDiff": params.skew_min}
                    msg = MESSAGES[rule] % (n, median_text(m))
                    out.append(_finding(s, c, rule, msg, evidence, broker=b))
    return out


def _median(values: list[int]) -> float:
    v = sorted(values)
    mid = len(v) // 2
    return float(v[mid]) if len(v) % 2 else (v[mid - 1] + v[mid]) / 2


def broker_distribution(facts: Facts, findings: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per master: its topic and write-queue counts (regular topics), for the clusters with a placement or skew
    finding: the picture of a cluster where one broker carries what should be spread."""
    places = {(f["source"], f["cluster"]) for f in findings if f["rule"] in DISTRIBUTION_RULES}
    out = []
    for s, c in sorted(places):
        writable = facts.writable.get((s, c), set())
        for b in sorted(facts.masters.get((s, c), ())):
            topics, queues = facts.counts.get((s, c, b), [0, 0])
            out.append({"source": s, "cluster": c, "broker": b, "topics": topics, "write_queues": queues,
                        "writable": b in writable})  # fmt: skip
    return out


# --- findings over time (--baseline) ---------------------------------------------------------------


def finding_id(f: dict[str, Any]) -> str:
    """A finding's stable id: a hash of its rule and place (source, cluster, topic, broker, group), never of its
    order or message, so the same defect has the same id in every audit."""
    parts = (f["rule"], f["source"], f["cluster"], f["topic"] or "", f["broker"] or "", f["group"] or "")
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:16]


def read_baseline(path: str) -> dict[str, Any]:
    """A previous audit's output directory: its findings by id and when it ran (``generated_at``)."""
    findings_path = os.path.join(path, "findings.jsonl")
    try:
        with open(findings_path, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        raise BaselineError(f"baseline {path} has no findings.jsonl (not an audit output directory)") from None
    except (OSError, ValueError) as e:
        raise BaselineError(f"baseline {findings_path} cannot be read ({e})") from None
    try:
        with open(os.path.join(path, "summary.json"), encoding="utf-8") as f:
            summary = snake_keys(json.load(f))
        generated_at = summary.get("generated_at")
    except (OSError, ValueError, AttributeError):
        generated_at = None
    try:
        by_id = {finding_id(r): r for r in rows}
    except (KeyError, TypeError):
        raise BaselineError(f"baseline {findings_path} does not hold audit findings") from None
    return {"path": path, "generated_at": generated_at, "findings": by_id}


def label_findings(
    findings: list[dict[str, Any]], baseline: dict[str, Any] | None, checked: Callable[[dict[str, Any]], bool]
) -> list[dict[str, Any]]:
    """Give every finding its ``id``, and with a baseline its ``change`` (new or unchanged); returns the
    baseline's findings that are gone, sorted like findings: ``change`` resolved where ``checked`` says this audit
    could see their place, else unverified (``CHANGES``)."""
    previous = baseline["findings"] if baseline else None
    for f in findings:
        f["id"] = finding_id(f)
        f["change"] = None if previous is None else ("unchanged" if f["id"] in previous else "new")
    if previous is None:
        return []
    current = {f["id"] for f in findings}
    gone = [{**{c: r.get(c) for c in FINDING_COLUMNS}, "id": i} for i, r in previous.items() if i not in current]
    for g in gone:
        g["change"] = "resolved" if checked(g) else "unverified"
    gone.sort(key=finding_sort_key)
    return gone


def checked_places(facts: Facts, cov: dict[str, Any]) -> Callable[[dict[str, Any]], bool]:
    """Whether this audit could check a finding's place (``cov``: ``coverage``): its cluster was in the inputs,
    its source and every broker of its cluster were read, for an order rule its source's order configs, and for
    a group rule (orphans, lag) every broker's groups."""
    failed = {(b["source"], b["cluster"]) for b in cov["failed_brokers"]}
    failed_sources = {s["source"] for s in cov["failed_sources"]}
    no_conf = set(cov["sources_without_order_conf"])

    def checked(f: dict[str, Any]) -> bool:
        place = (f.get("source"), f.get("cluster"))
        return (
            place in facts.broker_names
            and place not in failed
            and place[0] not in failed_sources
            and not (str(f.get("rule")).startswith("ORDER_CONF") and place[0] in no_conf)
            and (f.get("rule") not in GROUP_RULES or facts.groups_complete.get(place, False))
        )

    return checked


def write_parquet(findings: list[dict[str, Any]], path: str) -> bool:
    """``findings.parquet/part-00000.parquet`` with pyarrow, in Spark's layout; False without pyarrow."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return False
    os.makedirs(path, exist_ok=True)
    for old in os.listdir(path):
        if old.endswith(".parquet"):
            os.unlink(os.path.join(path, old))
    table = pa.table({c: pa.array([f[c] for f in findings], pa.string()) for c in FINDING_COLUMNS})
    pq.write_table(table, os.path.join(path, "part-00000.parquet"))
    return True


# --- outputs (driver side, shared by both engines) -------------------------------------------------


def plan_entry(findings: list[dict[str, Any]], namesrv: str) -> dict[str, Any]:
    """The ``updateTopic -c`` fixing one topic's fixable findings: on every master, with the largest queue
    count seen, the topic's permission (the union of its bits without priority; 6 when none), its
    attributes, and ``-o true`` when it is ordered here or an order finding is among them (which makes
    mqadmin rewrite the orderTopicConf from the cluster's brokers)."""
    import shlex

    f = findings[0]
    brokers = evidence_of(f)["brokers"]
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
    other = sorted({e for x in findings for e in evidence_of(x).get("otherClusters") or []})
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
    _atomic_lines(path, [text])


def write_outputs(
    out: str,
    findings: Iterable[dict[str, Any]],
    namesrv: dict[tuple[str, str], str],
    summary: dict[str, Any],
    baseline: dict[str, Any] | None = None,
    resolved: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Stream sorted, labelled findings (``label_findings``) to ``findings.jsonl``, then write ``plan.toml``,
    with a ``baseline`` the ``resolved`` findings to ``resolved.jsonl``, and ``summary.json``.

    Returns the summary completed with counts per rule, the changes since the baseline and the output paths.
    """
    os.makedirs(out, exist_ok=True)
    counts: Counter[str] = Counter()
    changes: Counter[tuple[str, str]] = Counter()
    fixable: list[Any] = []
    jsonl = os.path.join(out, "findings.jsonl")
    _atomic_lines(jsonl, _tally(findings, counts, changes, fixable))
    plan = build_plan(fixable, namesrv)
    header = {
        "generatedAt": summary.get("generated_at", ""),
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
    stale = os.path.join(out, "resolved.jsonl")
    if baseline is None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(stale)  # from an earlier audit into the same directory
        summary["baseline"] = None
        return summary
    resolved = resolved or []
    _atomic_lines(stale, _tally(resolved, Counter(), changes, []))
    summary["outputs"]["resolved_jsonl"] = stale
    summary["baseline"] = {
        "path": baseline["path"],
        "generated_at": baseline["generated_at"],
        **{c: sum(n for (_, ch), n in changes.items() if ch == c) for c in CHANGES},
        "by_rule": {
            r: {c: changes[(r, c)] for c in CHANGES} for r in sorted(RULES) if any(changes[(r, c)] for c in CHANGES)
        },
    }
    return summary


def _tally(
    rows: Iterable[dict[str, Any]], counts: Counter[str], changes: Counter[tuple[str, str]], fixable: list[Any]
) -> Iterator[str]:
    """Each finding as a JSON line, counted by rule and by (rule, change); the fixable ones kept for the plan."""
    for row in rows:
        counts[row["rule"]] += 1
        if row.get("change"):
            changes[(row["rule"], row["change"])] += 1
        if row["rule"] in PLAN_RULES:
            fixable.append({k: row[k] for k in ("source", "cluster", "topic", "rule", "evidence")})
        doc = {c: row.get(c) for c in FINDING_COLUMNS}
        doc["evidence"] = evidence_of(doc)
        yield json.dumps(doc, separators=(",", ":"), ensure_ascii=False) + "\n"


def _atomic_lines(path: str, lines: Iterable[str]) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.writelines(lines)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def write_summary(out: str, summary: dict[str, Any]) -> None:
    _atomic_text(os.path.join(out, "summary.json"), json.dumps(camel_keys(summary), indent=2) + "\n")


def new_summary(inputs: list[str], engine: str, master: str | None, params: Params) -> dict[str, Any]:
    return {
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "engine": engine,
        "master": master,
        "inputs": inputs,
        "params": asdict(params),
    }


# --- Spark -----------------------------------------------------------------------------------------


def spark_schemas(snake: bool = False) -> dict[str, Any]:
    """The tables' Spark schemas; with ``snake``, as an export older than version 3 names the columns."""
    from pyspark.sql import types as T

    s, i, lg, b = T.StringType(), T.IntegerType(), T.LongType(), T.BooleanType()

    def struct(*fields: tuple[str, Any]) -> Any:
        return T.StructType([T.StructField(old_column(n) if snake else n, t, True) for n, t in fields])

    key = (("source", s), ("cluster", s), ("brokerName", s))
    return {
        "clusters": struct(("source", s), ("cluster", s), ("namesrv", s)),
        "brokers": struct(
            *key,
            ("brokerId", lg),
            ("addr", s),
            ("role", s),
            ("brokerPermission", i),
            ("topicsOk", b),
            ("groupsOk", b),
        ),
        "topics": struct(
            *key,
            ("topic", s),
            ("readQueueNums", i),
            ("writeQueueNums", i),
            ("perm", i),
            ("order", b),
            ("topicSysFlag", i),
            ("topicFilterType", s),
            ("attributes", T.MapType(s, s)),
        ),
        "groups": struct(
            *key,
            ("group", s),
            ("consumeEnable", b),
            ("consumeMessageOrderly", b),
            ("consumeBroadcastEnable", b),
            ("retryQueueNums", i),
            ("retryMaxTimes", i),
        ),
        "consumer_lag": struct(*key, ("group", s), ("topic", s), ("lag", lg), ("queues", i)),
        "order_conf": struct(("source", s), ("topic", s), ("orderConf", s)),
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
    java_options: Iterable[str] = (),
) -> Any:
    """A SparkSession with a quiet, small footprint: no UI, no console progress, WARN logs, scratch
    and warehouse directories in a temporary directory (nothing left in the working directory), one hash map
    per aggregation, and in
    local mode a loopback driver and 2 shuffle partitions per core. ``driver_memory`` (``4g``) is the heap
    of the whole job in local mode; it only takes effect when this call starts the JVM, and so does
    ``java_home``, the Java it starts (handed to the launcher alone, never left in ``os.environ``), and
    ``java_options``, more options for the driver's JVM (``mqadmin audit``'s class-data archive)."""
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
    # The audit is a short batch job: the JVM's C1 compiler alone gets its code fast enough, and C2's
    # compilations cost more CPU than they save (bench/README.md); the parallel collector has no
    # concurrent threads competing with the tasks for the cores.
    java_opts = f"-Dlog4j2.configurationFile=file:{log4j} -XX:TieredStopAtLevel=1 -XX:+UseParallelGC"
    java_opts = " ".join([java_opts, *java_options])
    conf = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.warehouse.dir": os.path.join(scratch, "warehouse"),
        "spark.driver.extraJavaOptions": java_opts,
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.catalogImplementation": "in-memory",  # no Hive metastore: the job keeps no tables
        # One hash map per aggregation: the small first-level map holds 65,536 keys, and the topics have hundreds
        # of thousands, so past the first rows each row looked in both (10M rows: 4-15 % faster without it)
        "spark.sql.codegen.aggregate.map.twolevel.enabled": "false",
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
    if (spark.sparkContext.master or "").startswith("local"):
        # One machine: a few partitions per core, and no adaptive re-planning, which on small inputs
        # costs more in extra jobs than it saves.
        spark.conf.set("spark.sql.shuffle.partitions", str(2 * spark.sparkContext.defaultParallelism))
        spark.conf.set("spark.sql.adaptive.enabled", "false")
    _scratch[id(spark)] = scratch
    return spark


_scratch: dict[int, str] = {}
"""A session's scratch directory (by the session's id), removed by stop_session."""


def stop_session(spark: Any) -> None:
    scratch = _scratch.pop(id(spark), None)
    spark.stop()
    if scratch:
        shutil.rmtree(scratch, ignore_errors=True)


_OLD_COLUMNS = {new: old for old, new in SNAKE_COLUMNS.items()}


def old_column(name: str) -> str:
    """A column's name in an export older than version 3."""
    return _OLD_COLUMNS.get(name, name)


def snake_columns(manifest: dict[str, Any]) -> bool:
    """Whether an export (its manifest as read) names its table columns in snake_case (schema version < 3)."""
    return int(manifest.get("schema_version", SCHEMA_VERSION)) < CAMEL_COLUMNS_SINCE


def iter_jsonl(path: str | os.PathLike[str], snake: bool = False) -> Iterator[dict[str, Any]]:
    """The rows of one local gzip JSON Lines table file; with ``snake`` (an export older than version 3), its
    columns renamed to today's names."""
    decode = json.JSONDecoder().raw_decode  # one object per line: skips loads()'s whitespace regexes
    rename = SNAKE_COLUMNS.get
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            if len(line) > 1:
                row = decode(line)[0]
                yield {rename(k, k): v for k, v in row.items()} if snake else row


AUDITED_COLUMNS = {
    "topics": ("source", "cluster", "brokerName", "topic", "readQueueNums", "writeQueueNums", "perm", "order",
               "attributes"),
}  # fmt: skip
"""The columns the rules read of a table that has a Parquet copy: the rest are not decoded."""


def iter_parquet(
    path: str | os.PathLike[str], columns: Iterable[str] | None = None, snake: bool = False
) -> Iterator[dict[str, Any]]:
    """The rows of one local Parquet table file (a table's copy), shaped as ``iter_jsonl`` gives them; only
    ``columns`` (default: all) are read; with ``snake``, as ``iter_jsonl``."""
    import pyarrow.parquet as pq

    wanted = [old_column(c) if snake else c for c in columns] if columns is not None else None
    for batch in pq.ParquetFile(path).iter_batches(batch_size=65_536, columns=wanted):
        names = [SNAKE_COLUMNS.get(n, n) for n in batch.schema.names] if snake else batch.schema.names
        values_of = [c.to_pylist() for c in batch.columns]
        for i, name in enumerate(names):
            if name == "attributes":  # a Parquet map comes back as (key, value) pairs
                values_of[i] = [dict(v) if v else {} for v in values_of[i]]
        for values in zip(*values_of, strict=True):
            yield dict(zip(names, values, strict=True))


def table_rows(
    root: str | os.PathLike[str], entry: dict[str, Any], columns: Iterable[str] | None = None, snake: bool = False
) -> Iterator[dict[str, Any]]:
    """The rows of one table of a local export (its manifest ``entry``): from its Parquet copy when it has
    one and pyarrow is installed (only ``columns`` of it, default all), else from its gzip JSON Lines; with
    ``snake`` (``snake_columns`` of its manifest), its columns renamed to today's names."""
    if entry.get(PARQUET_KEY):
        try:
            import pyarrow.parquet  # noqa: F401
        except ImportError:
            pass
        else:
            for rel in entry[PARQUET_KEY]:
                yield from iter_parquet(os.path.join(root, rel), columns, snake)
            return
    for rel in entry["files"]:
        yield from iter_jsonl(os.path.join(root, rel), snake)


def _local(path: str) -> str | None:
    """The local filesystem path of ``path``, or None for a URI Spark must read (hdfs://, s3a://, ...)."""
    for scheme in ("file://", "file:"):
        if path.startswith(scheme):
            return path[len(scheme) :]
    return None if "://" in path else path


def _all_local(paths: list[str]) -> list[str] | None:
    """The local paths of ``paths``, or None when any is a URI only Spark can read."""
    local = [_local(p) for p in paths]
    return [p for p in local if p is not None] if None not in local else None


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
            out.append((path, manifest_from_json(text)))
        except ValueError as e:
            raise AuditInputError(f"{path} is not valid JSON ({e})") from None
    check_manifests(out)
    return out


class _Tables:
    """The inputs' tables as DataFrames, read with the export schema (FAILFAST: a corrupt file is an error); the
    columns of an export older than version 3 are renamed to today's names as they are read."""

    def __init__(self, spark: Any, inputs: list[str], manifests: list[tuple[str, dict[str, Any]]]) -> None:
        self.spark, self.inputs, self.manifests = spark, inputs, manifests
        self.schemas = spark_schemas()
        self.snake = [snake_columns(m) for _, m in manifests]
        self.keyed = all(keyed_topics(m) for _, m in manifests)
        """Every input's topics have a Parquet copy with the keys this audit computes (``KEY_HASH``)."""

    def parts(self, name: str, key: str = "files") -> list[tuple[str, bool]]:
        """Every file of a table (its ``key`` list: ``files`` or the Parquet copy's) and whether its columns
        are snake_case, in the inputs' order."""
        return [
            (root.rstrip("/") + "/" + rel, snake)
            for root, (_, m), snake in zip(self.inputs, self.manifests, self.snake, strict=True)
            for rel in m["tables"][name].get(key) or []
        ]

    def local_parts(self, name: str, key: str = "files") -> list[tuple[str, bool]] | None:
        """``parts`` with local paths, or None when a file is a URI only Spark can read."""
        parts = self.parts(name, key)
        local = _all_local([path for path, _ in parts])
        return None if local is None else [(path, snake) for path, (_, snake) in zip(local, parts, strict=True)]

    def _read(
        self, name: str, read: Callable[[Any, list[str]], Any], key: str = "files", more: Iterable[Any] = ()
    ) -> Any:
        """A table as one DataFrame: ``read(reader, files)`` per column naming among the inputs (one read when
        they all have today's), an older export's columns renamed; ``more``: fields besides the table's."""
        from pyspark.sql import functions as F
        from pyspark.sql import types as T

        frames = []
        for snake in sorted(set(self.snake)):
            files = [path for path, old in self.parts(name, key) if old == snake]
            schema = spark_schemas(snake)[name] if snake else self.schemas[name]
            frame = read(self.spark.read.schema(T.StructType([*schema.fields, *more])), files)
            if snake:
                frame = frame.select(*(F.col(old_column(c)).alias(c) for c in self.schemas[name].fieldNames()))
            frames.append(frame)
        table, *more = frames
        for frame in more:
            table = table.unionByName(frame)
        return table

    def __getitem__(self, name: str) -> Any:
        return self._read(name, lambda reader, files: reader.option("mode", "FAILFAST").json(files))

    def topics(self, columns: Iterable[str]) -> Any:
        """The topics table's ``columns`` and its 64-bit keys (``KEY_COLUMNS``): from its Parquet copy when every
        input has one (columnar, splittable, no parsing), else from the gzip JSON Lines (one task per file); the
        keys as the copy holds them when ``keyed``, else only ``topicKey``, the xxhash64 of its names (the cluster
        facts are then joined on the names)."""
        from pyspark.sql import types as T

        keys = KEY_COLUMNS["topics"]
        if self.keyed:
            types = {"long": T.LongType(), "int": T.IntegerType(), "string": T.StringType()}
            fields = [T.StructField(n, T.LongType(), True) for n, _ in keys]
            fields += [T.StructField(n, types[t], True) for n, t in TOPIC_FACTS]
            copy = self._read("topics", lambda reader, files: reader.parquet(*files), PARQUET_KEY, fields)
            return copy.select(*columns, *(f.name for f in fields))
        if all(m["tables"]["topics"].get(PARQUET_KEY) for _, m in self.manifests):
            table = self._read("topics", lambda reader, files: reader.parquet(*files), PARQUET_KEY)
        else:
            table = self["topics"]
        return table.select(*columns, topic_key().alias("topicKey"))

    def topic_rows(self, topics: Any, keys: list[int]) -> Iterable[tuple[Any, ...]]:
        """The ``ROW_COLUMNS`` of the rows of ``topics`` (``topics()``) whose ``topicKey`` is one of ``keys``: read
        by pyarrow on the driver when the Parquet copy is keyed and local (only the row groups holding one of the
        keys are decoded: at 1M rows a tenth of a second, where a Spark job took most of one), else through Spark
        (a semi-join with the keys)."""
        try:
            import pyarrow as pa
            import pyarrow.compute as pc
            import pyarrow.parquet as pq
        except ImportError:
            pa = None
        local = self.local_parts("topics", PARQUET_KEY) if self.keyed and pa is not None else None
        if local is None or any(snake for _, snake in local):
            wanted = literal_table(self.spark, ((k,) for k in keys), "topicKey bigint")
            return topics.select(*ROW_COLUMNS).join(wanted, "topicKey", "left_semi").collect()
        return self._arrow_rows([path for path, _ in local], pa.array(keys, pa.int64()), pc, pq)

    @staticmethod
    def _arrow_rows(paths: list[str], keys: Any, pc: Any, pq: Any) -> Iterator[tuple[Any, ...]]:
        attributes = ROW_COLUMNS.index("attributes")
        for path in paths:
            f = pq.ParquetFile(path)
            for group in range(f.num_row_groups):
                hit = pc.is_in(f.read_row_group(group, columns=["topicKey"]).column(0), value_set=keys)
                if not pc.any(hit).as_py():
                    continue
                columns = [
                    c.to_pylist() for c in f.read_row_group(group, columns=list(ROW_COLUMNS)).filter(hit).columns
                ]
                columns[attributes] = [dict(v) if v else {} for v in columns[attributes]]  # a map: (key, value) pairs
                yield from zip(*columns, strict=True)

    def add_groups(self, facts: Facts) -> None:
        """The group tables into ``facts``: parsed and reduced to distinct groups and lag sums by pyarrow
        (native code: at 10M topic rows 3.5 CPU-seconds instead of 5.6 row by row in Python) when it is
        installed and the files are local, else row by row."""

        try:
            import pyarrow as pa
            import pyarrow.json as pj
        except ImportError:
            pa = None
        groups, lag = self.local_parts("groups"), self.local_parts("consumer_lag")
        if pa is None or groups is None or lag is None:
            facts.add_group_tables(self.rows)
            return
        local = {"groups": groups, "consumer_lag": lag}

        def columns(table: str, names: tuple[str, ...], total: str | None = None) -> Iterator[tuple[Any, ...]]:
            """Distinct ``names`` of the table, with the sum of ``total`` per distinct row."""
            wanted = names + ((total,) if total else ())
            types = {f.name: f.type for f in _arrow_fields(self.schemas[table])}
            for path, snake in local[table]:
                in_file = [old_column(n) if snake else n for n in wanted]  # the columns' names in this file
                schema = pa.schema([pa.field(f, types[n]) for f, n in zip(in_file, wanted, strict=True)])
                options = pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore")
                try:
                    t = pj.read_json(path, parse_options=options)
                except pa.ArrowInvalid:  # an empty file, or one pyarrow cannot parse: read it row by row
                    yield from (tuple(r[n] for n in wanted) for r in iter_jsonl(path, snake))
                    continue
                keys = in_file[: len(names)]
                t = t.group_by(keys).aggregate([(in_file[-1], "sum")] if total else [])
                out = [*keys, f"{in_file[-1]}_sum"] if total else keys
                yield from zip(*(t.column(n).to_pylist() for n in out), strict=True)

        facts.add_groups(
            columns("groups", ("source", "cluster", "group")),
            columns("consumer_lag", ("source", "cluster", "group", "topic"), "lag"),
        )

    def rows(self, name: str) -> Iterator[dict[str, Any]]:
        """A small table's rows on the driver: read directly when the files are local (no Spark job), else
        collected through Spark."""
        local = self.local_parts(name)
        if local is None:
            yield from (r.asDict() for r in self[name].collect())
            return
        for path, snake in local:
            yield from iter_jsonl(path, snake)


def _arrow_fields(schema: Any) -> list[Any]:
    """A Spark struct schema's fields as pyarrow fields (the flat types the small tables use)."""
    import pyarrow as pa

    types = {"string": pa.string(), "int": pa.int32(), "bigint": pa.int64(), "boolean": pa.bool_()}
    return [pa.field(f.name, types[f.dataType.simpleString()]) for f in schema.fields]


_KEY = ["source", "cluster"]
ROW_COLUMNS = ("topicKey", "source", "cluster", "brokerName", "topic", "readQueueNums", "writeQueueNums", "perm",
               "order", "attributes")  # fmt: skip
"""The columns of a topic row the driver evaluates (``_Tables.topic_rows``)."""


def json_rows(rows: Iterable[tuple[Any, ...]], schema: str) -> str:
    """``rows`` as one JSON array of objects named by ``schema`` (``"name type, ..."``)."""
    names = [f.split()[0] for f in schema.split(",")]
    return json.dumps([dict(zip(names, r, strict=True)) for r in rows], separators=(",", ":"), ensure_ascii=False)


def rows_type(schema: str) -> str:
    """The Spark SQL type of ``json_rows`` of ``schema``: ``array<struct<name:type,...>>``."""
    return "array<struct<" + ",".join(":".join(f.split()) for f in schema.split(",")) + ">>"


def literal_table(spark: Any, rows: Iterable[tuple[Any, ...]], schema: str) -> Any:
    """A small DataFrame of ``rows`` (``schema``: ``"name type, ..."``) marked for broadcast, built in the JVM
    from one JSON literal: ``createDataFrame`` would start Python workers to unpickle the rows, seconds per
    table on a loaded machine (and on every executor of a cluster)."""
    from pyspark.sql import functions as F

    parsed = F.from_json(F.lit(json_rows(rows, schema)), rows_type(schema))
    return F.broadcast(spark.range(1).select(F.inline(parsed)))


def spark_findings(
    spark: Any,
    inputs: list[str],
    params: Params,
    manifests: list[tuple[str, dict[str, Any]]],
    facts: Facts | None = None,
    progress: Callable[[str], None] = lambda text: None,
) -> list[dict[str, Any]]:
    """All findings, sorted by severity and place: Spark reduces the tables to the facts the rules need,
    and the driver evaluates them (``evaluate``, the code the plain-Python engine runs).

    The topics table, by far the largest, is read twice (its Parquet copy when the export has one) and never
    cached: one job (``_aggregate``) gives the per-broker counts and the topics that can have a finding; then
    only those topics' per-broker rows reach the driver, picked by their 64-bit key (``_Tables.topic_rows``:
    pyarrow on the driver when the copy is keyed and local, else a Spark semi-join on one long).
    The keys and the topics' facts are the export's when its Parquet copy has them (``KEY_COLUMNS``,
    ``TOPIC_FACTS``: the pass over every row reads no name and joins on longs), else computed from the names.
    The small tables (brokers, order configs, groups, lag) are read on the driver, and the cluster facts go
    to the executors as small broadcast tables. Only built-in expressions and non-object aggregates run on
    the executors (no Python UDFs, no Python workers, no ``collect_set``): one or two jobs over the topics,
    whatever the fleet's size. ``facts``, when given, is filled (the per-broker counts of the report);
    ``progress`` hears each phase.
    """
    tables = _Tables(spark, inputs, manifests)
    facts = facts if facts is not None else Facts()
    with ThreadPoolExecutor(1) as pool:
        # the group tables are read on the driver (a thread: pyarrow frees the GIL) from the start, while the JVM
        # plans the aggregation on one core, rather than later beside the executors, which want both cores
        groups_read = pool.submit(tables.add_groups, facts).result
        return _spark_findings(spark, tables, params, manifests, facts, groups_read, progress)


def _spark_findings(
    spark: Any,
    tables: _Tables,
    params: Params,
    manifests: list[tuple[str, dict[str, Any]]],
    facts: Facts,
    groups_read: Callable[[], None],
    progress: Callable[[str], None],
) -> list[dict[str, Any]]:
    """``spark_findings`` once the group tables are being read (``groups_read`` waits for them)."""
    facts.conf_sources = set(order_conf_sources(manifests))
    facts.add_cluster_tables(tables.rows)
    places = sorted(facts.broker_names)  # a cluster's id (cid) is its index here
    names = [sorted(facts.broker_names[p]) for p in places]
    rows_total = sum(int(m["tables"]["topics"].get("rows", 0)) for _, m in manifests)
    progress(f"aggregating {rows_total:,} topic rows")
    if tables.keyed:  # two clusters or brokers sharing a key: join on the names instead
        keys = [stable_key(*p) for p in places] + [
            stable_key(*p, b) for p, ns in zip(places, names, strict=True) for b in ns
        ]
        tables.keyed = len(set(keys)) == len(keys)
    topics = tables.topics(AUDITED_COLUMNS["topics"])
    suspects, others = _aggregate(spark, topics, facts, places, names, groups_read, tables.keyed)
    progress(f"reading the {len(suspects) + len(others):,} topics that may have a finding")
    # by position (Row["name"] searches the names)
    for key, s, c, b, t, read, w, perm, order, attrs in tables.topic_rows(topics, sorted(suspects | others)):
        if t.startswith((RETRY_PREFIX, DLQ_PREFIX)):
            facts.retry_like[(s, c, t)].add(b)
        elif not (is_system_topic(t, c) or t in facts.broker_names.get((s, c), ())):
            facts.per_topic[(s, c, t)].append((b, read, w, perm, bool(order), attrs_text(attrs)))
            if key in suspects:  # the aggregation left these topics out of the counts
                tally = facts.counts.setdefault((s, c, b), [0, 0])
                tally[0] += 1
                tally[1] += w
    progress("evaluating the rules")
    return evaluate(facts, params)


def sql_strings(values: Iterable[str]) -> str:
    """``values`` as Spark SQL string literals, sorted, comma-separated."""
    return ", ".join("'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'" for v in sorted(values))


def topic_key() -> Any:
    """A topic row's 64-bit key when the export has none (``_Tables.topics``): xxhash64 of (source, cluster, topic).
    Two topics sharing a key (this or ``stable_key``) are caught by a second, independent hash (``_aggregate``)
    and then evaluated from their rows, exactly."""
    from pyspark.sql import functions as F

    return F.xxhash64(*_KEY, "topic")


MASK_BITS = 63
"""Brokers per long of a topic's broker mask (the sign bit unused)."""


def _aggregate(
    spark: Any,
    topics: Any,
    facts: Facts,
    places: list[Key],
    names: list[list[str]],
    groups_read: Callable[[], None],
    keyed: bool,
) -> tuple[set[int], set[int]]:
    """One job over the topic rows, aggregating numbers rather than strings. Per regular topic (its 64-bit
    key): whether it may have a topic or order finding (its queue counts vary or differ, a broker lacks read
    or write, it is ordered somewhere, it is on fewer writable masters than its cluster has, its source has
    an order config for it, its cluster or a broker is not in the brokers table) or shares its key with
    another topic (a second hash differs within the group); the others are then counted by (cluster, broker
    mask, write queues), which gives the per-broker topic and queue counts (into ``facts.counts``).
    %RETRY%/%DLQ% topics of clusters whose groups were all read are grouped by cluster id and name: those
    whose group is not known may be orphans. Returns the keys of the suspect regular topics (not counted:
    the caller counts their rows) and of the possible orphans. ``groups_read`` waits for the group tables to be
    in ``facts`` (the orphans need them). ``keyed``: the
    topics carry the clusters' and brokers' keys and their topics' facts (``_Tables.keyed``): the cluster facts,
    the brokers' names and the order configs' topics are joined on longs, and no name is read; else on the names."""
    masks = range((max(map(len, names), default=0) + MASK_BITS - 1) // MASK_BITS)
    mask_cols = [f"m{j}" for j in masks]
    cluster_rows: list[tuple[Any, ...]] = [
        (s, c, i, names[i], len(facts.writable.get((s, c), ())), facts.groups_complete.get((s, c), False))
        for i, (s, c) in enumerate(places)
    ]  # a cluster's id, broker names and number of writable masters, and whether its groups were all read
    # a broker's bit in its cluster's broker masks, and whether it is a writable master
    broker_rows: list[tuple[Any, ...]] = [
        (
            s,
            c,
            b,
            b in facts.writable.get((s, c), ()),
            *(1 << n % MASK_BITS if n // MASK_BITS == j else 0 for j in masks),
        )
        for (s, c), ns in zip(places, names, strict=True)
        for n, b in enumerate(ns)
    ]
    cluster_schema = "cid int, names array<string>, writable int, complete boolean"
    broker_schema = "on_writable boolean" + "".join(f", {m} bigint" for m in mask_cols)
    # a topic with an order config in its source: instead of a join after the aggregation, with the export's
    # keys one lookup of the row's key among those of the configs' topics in each of their source's clusters (a
    # key shared by another topic only makes that one a suspect too, evaluated exactly from its rows); else two
    # set lookups of the name (the second, which builds a string, only for the names with a config somewhere)
    confs = [(s, t) for s, t in facts.order_conf if s in facts.conf_sources]
    tables: dict[str, list[tuple[Any, ...]]] = {"clusters": cluster_rows, "brokers": broker_rows}
    if keyed:  # joined on the cluster's and the broker's key, as the topics' Parquet copy carries them
        tables["clusters"] = [(stable_key(s, c), *rest) for s, c, *rest in cluster_rows]
        tables["brokers"] = [(stable_key(s, c, b), check_key(s, c, b), *rest) for s, c, b, *rest in broker_rows]
        cluster_on, broker_on = "clusterKey", "brokerKey"
        cluster_schema, broker_schema = (
            f"clusterKey bigint, {cluster_schema}",
            f"brokerKey bigint, bcheck int, {broker_schema}",
        )
        clusters_of: defaultdict[str, list[str]] = defaultdict(list)
        for s, c in places:
            clusters_of[s].append(c)
        tables["confs"] = [(k,) for k in sorted({stable_key(s, c, t) for s, t in confs for c in clusters_of[s]})]
        # The export's facts of each topic (TOPIC_FACTS): the pass decodes no name. A topic named like a broker of
        # its cluster has that broker's keys (both of them: exact); a topic with an order config, a config's key.
        # Both are joins on the row's key with small broadcast tables: SQL lists of thousands of literals would
        # cost seconds of parsing and planning.
        retry, rtopic, check = f"topicKind = {KIND_RETRY}", "retryTopic", "topicCheck"
        system = f"(topicKind != {KIND_REGULAR} OR coalesce(ncheck = topicCheck, false))"
        with_conf = "ckey IS NOT NULL"
        more_tables = f""", named AS (SELECT brokerKey AS nkey, bcheck AS ncheck FROM brokers
        ), confs AS (SELECT inline(from_json(:confs, '{rows_type("ckey bigint")}')))"""
        more_joins = "LEFT JOIN named ON named.nkey = rows.key LEFT JOIN confs ON confs.ckey = rows.key"
    else:
        cluster_on, broker_on = "source, cluster", "source, cluster, brokerName"
        cluster_schema = f"source string, cluster string, {cluster_schema}"
        broker_schema = f"source string, cluster string, brokerName string, {broker_schema}"
        # a topic named like a broker of its cluster: first a set lookup of every broker's name (one hash per row),
        # then, for the few names that match one, the search of the cluster's names
        broker_named = f"topic IN ({sql_strings({n for ns in names for n in ns})})" if masks else "false"
        retry = f"(startswith(topic, {sql_strings([RETRY_PREFIX])}) OR startswith(topic, {sql_strings([DLQ_PREFIX])}))"
        rtopic, check = "topic", "hash(topic, cid)"  # (source, cluster) is cid (or the row is odd)
        system = f"""(topic IN ({sql_strings(SYSTEM_TOPICS)}) OR startswith(topic, {sql_strings(SYSTEM_PREFIXES[:1])})
            OR {retry} OR topic = cluster
            OR (endswith(topic, {sql_strings([REPLY_SUFFIX])}) AND length(topic) = length(cluster) + {len(REPLY_SUFFIX)}
                AND startswith(topic, cluster))
            OR coalesce({broker_named} AND array_contains(names, topic), false))"""
        # ^ topic == cluster + REPLY_SUFFIX without building that string for every row
        if confs:
            conf_names = sql_strings({f"{s}/{t}" for s, t in confs})  # '/': never in a topic name
            with_conf = (
                f"topic IN ({sql_strings({t for _, t in confs})}) AND concat(source, '/', topic) IN ({conf_names})"
            )
        else:
            with_conf = "false"
        more_tables = more_joins = ""
    odd = f"""(NOT (read <=> write) OR write IS NULL OR coalesce((perm & 6) != 6, true) OR coalesce(`order`, false)
        OR coalesce({with_conf}, false) OR cid IS NULL OR on_writable IS NULL)"""
    # ^ a row that alone makes its topic a suspect (on_writable null: a broker the brokers table does not name)

    # One statement (parsed and analysed once: each DataFrame call would be a JVM round trip and an analysis)
    query = f"""
    WITH rows AS (
      SELECT source, cluster, topic, readQueueNums AS read, writeQueueNums AS write, perm, `order`,
             topicKey AS key{", clusterKey, brokerKey, topicKind, topicCheck, retryTopic" if keyed else ", brokerName"}
      FROM {{topics}}
    ), clusters AS (SELECT inline(from_json(:clusters, '{rows_type(cluster_schema)}'))
    ), brokers AS (SELECT inline(from_json(:brokers, '{rows_type(broker_schema)}'))
    ){more_tables}, joined AS (
      SELECT /*+ BROADCAST(clusters, brokers{", named, confs" if keyed else ""}) */ *
      FROM rows LEFT JOIN clusters USING ({cluster_on}) LEFT JOIN brokers USING ({broker_on}) {more_joins}
      WHERE NOT {system} OR ({retry} AND coalesce(complete, false))
    ), per_row AS (
      SELECT key, IF({retry}, cid, NULL) AS rcid, IF({retry}, {rtopic}, NULL) AS rtopic, cid, write, {odd} AS odd,
             {check} AS `check`,
             coalesce(on_writable, false) AS on_writable, writable
             {"".join(f", coalesce({m}, 0) AS {m}" for m in mask_cols)}
      FROM joined
    ), per_topic AS (
      SELECT key, rcid, rtopic, max(cid) AS cid, max(write) AS write,
             max(odd) OR min(write) != max(write) OR min(`check`) != max(`check`)
               OR count(IF(on_writable, 1, NULL)) < max(writable) AS flagged
             {"".join(f", bit_or({m}) AS {m}" for m in mask_cols)}
      FROM per_row GROUP BY key, rcid, rtopic
    ), marked AS (
      SELECT *, rtopic IS NOT NULL OR flagged AS suspect FROM per_topic
    )
    SELECT IF(suspect, key, NULL) AS key, IF(suspect, rcid, NULL) AS rcid, IF(suspect, rtopic, NULL) AS rtopic,
           {", ".join(f"IF(suspect, NULL, {c}) AS {c}" for c in ("cid", "write", *mask_cols))}, count(*) AS n
    FROM marked GROUP BY 1, 2, 3, {", ".join(str(4 + i) for i in range(2 + len(mask_cols)))}
    """
    schemas = {"clusters": cluster_schema, "brokers": broker_schema, "confs": "ckey bigint"}
    found = spark.sql(query, {t: json_rows(rows, schemas[t]) for t, rows in tables.items()}, topics=topics)
    collected = found.collect()
    groups_read()
    suspects, others = set(), set()
    for key, rcid, rtopic, cid, write, *mask, n in collected:  # by position: Row["name"] searches the names
        if key is None:  # n regular topics, each on the brokers of the mask with `write` queues
            s, c = places[cid]
            for j, m in enumerate(mask):
                for i in range(MASK_BITS):
                    if m >> i & 1:
                        tally = facts.counts.setdefault((s, c, names[cid][j * MASK_BITS + i]), [0, 0])
                        tally[0] += n
                        tally[1] += n * write
        elif rtopic is None:
            suspects.add(key)
        else:
            (s, c), t = places[rcid], rtopic
            if t[len(RETRY_PREFIX if t.startswith(RETRY_PREFIX) else DLQ_PREFIX) :] not in facts.groups.get((s, c), ()):
                others.add(key)
    return suspects, others


def namesrv_map(rows: Iterable[dict[str, Any]]) -> dict[tuple[str, str], str]:
    """(source, cluster) -> the ``-n`` value, for the plan's commands, from the clusters table."""
    return {(r["source"], r["cluster"]): r["namesrv"] for r in rows if r.get("namesrv")}


def run_spark(
    spark: Any,
    inputs: list[str],
    out: str,
    params: Params,
    master: str | None,
    baseline: str | None = None,
    progress: Callable[[str], None] = lambda text: None,
) -> dict[str, Any]:
    """Run the audit on ``spark`` and write every output; returns the summary. ``progress`` hears each phase."""
    started = time.monotonic()
    summary = new_summary(inputs, "spark", master or spark.sparkContext.master, params)
    previous = read_baseline(baseline) if baseline else None
    manifests = read_manifests_spark(spark, inputs)
    summary["coverage"] = coverage(manifests)
    facts = Facts()
    findings = spark_findings(spark, inputs, params, manifests, facts, progress)
    progress("writing the outputs")

    def spark_parquet(path: str) -> None:  # no pyarrow on this driver: Spark writes it
        from pyspark.sql import types as T

        schema = T.StructType([T.StructField(c, T.StringType(), True) for c in FINDING_COLUMNS])
        rows = [tuple(f[c] for c in FINDING_COLUMNS) for f in findings]
        spark.createDataFrame(rows, schema).coalesce(1).write.mode("overwrite").parquet(path)

    namesrv = namesrv_map(_Tables(spark, inputs, manifests).rows("clusters"))
    return finish_outputs(out, findings, facts, namesrv, summary, previous, started, spark_parquet)


def finish_outputs(
    out: str,
    findings: list[dict[str, Any]],
    facts: Facts,
    namesrv: dict[tuple[str, str], str],
    summary: dict[str, Any],
    previous: dict[str, Any] | None,
    started: float,
    parquet_fallback: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """What both engines do with their findings: label them against the baseline (``previous``), write every
    output, add the per-broker counts (``brokers``) and the time taken; returns the summary."""
    resolved = label_findings(findings, previous, checked_places(facts, summary["coverage"]))
    parquet = os.path.join(out, "findings.parquet")
    parquet_written = write_parquet(findings, parquet)
    if not parquet_written and parquet_fallback is not None:
        parquet_fallback(parquet)
        parquet_written = True
    summary = write_outputs(out, findings, namesrv, summary, previous, resolved)
    if not parquet_written:
        summary["outputs"]["findings_parquet"] = None
    summary["brokers"] = broker_distribution(facts, findings)
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
    parser.add_argument("--baseline", default=None, help="a previous audit's --out: mark what changed since")
    args = parser.parse_args(argv)
    params = Params(args.lag_threshold, args.skew_factor, args.skew_min)
    spark = build_session(args.master)
    try:
        summary = run_spark(spark, args.input, args.out, params, args.master, args.baseline)
    except AuditInputError as e:
        print(f"audit: error: {e}", file=sys.stderr)
        return 2
    finally:
        with contextlib.suppress(Exception):
            stop_session(spark)
    print(json.dumps(camel_keys(summary), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
