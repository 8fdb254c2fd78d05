"""The export format: schema module, docs, the audit job's Spark schemas, writer and manifest."""

from __future__ import annotations

import ast
import gzip
import importlib.util
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from mqadmin.admin.results import overall_status
from mqadmin.audit import job
from mqadmin.fleet import manifest as mf
from mqadmin.fleet.schema import SCHEMA_VERSION, TABLES, column_names
from mqadmin.fleet.synth import FleetSpec, generate
from mqadmin.fleet.writer import ExportWriter, TableWriter
from mqadmin.model.names import SYSTEM_TOPICS

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "fleet-schema.md"


def documented_columns() -> dict[str, list[tuple[str, str]]]:
    """``### table`` sections of docs/fleet-schema.md and their ``| `col` | type |`` rows."""
    out: dict[str, list[tuple[str, str]]] = {}
    current = None
    for line in DOC.read_text().splitlines():
        if m := re.match(r"### (\w+) ", line):
            current = m.group(1)
            out[current] = []
        elif line.startswith("## "):  # the sections after the tables' (manifest.json, versions)
            current = None
        elif current and (m := re.match(r"\| `(\w+)` \| ([^|]+?) \|", line)):
            out[current].append((m.group(1), m.group(2).replace(", nullable", "").strip()))
    return out


def test_the_doc_lists_every_column_of_every_table_in_order():
    doc = documented_columns()
    assert list(doc) == list(TABLES)
    for table, cols in TABLES.items():
        assert doc[table] == [(c.name, c.type) for c in cols], table


def test_the_spark_job_reads_exactly_the_schema():
    spark = pytest.importorskip("pyspark")
    del spark
    schemas = job.spark_schemas()
    assert tuple(schemas) == job.TABLES == tuple(TABLES)
    spark_type = {"string": "string", "int": "int", "long": "bigint", "bool": "boolean"}
    for table, cols in TABLES.items():
        fields = [(f.name, f.dataType.simpleString()) for f in schemas[table].fields]
        assert fields == [(c.name, spark_type.get(c.type, c.type)) for c in cols], table
    assert job.SCHEMA_VERSION == SCHEMA_VERSION
    old = job.spark_schemas(snake=True)  # what an export before version 3 holds
    for table, cols in TABLES.items():
        assert [f.name for f in old[table].fields] == [job.old_column(c.name) for c in cols], table


@pytest.mark.parametrize("version", [1, 2])
def test_an_older_export_reads_as_the_same_rows_with_todays_column_names(tmp_path, version):
    """The committed v1 and v2 exports hold the fleet the generator writes today from the same spec: their rows,
    read with the one mapping, are today's rows; their columns, renamed, are today's columns in today's order."""
    old = ROOT / "tests" / "data" / f"fleet-v{version}" / "export"
    manifest = mf.load_manifest(old)
    assert manifest["schema_version"] == version and job.snake_columns(manifest)
    new = generate(tmp_path, FleetSpec(**manifest["producer"]["spec"]))
    assert not job.snake_columns(new)

    def content(root: Path, m: dict[str, Any], table: str) -> Counter[str]:
        return Counter(json.dumps(r, sort_keys=True) for r in mf.iter_rows(root, m, table))

    for table in TABLES:
        with gzip.open(old / manifest["tables"][table]["files"][0], "rt") as f:
            written = list(json.loads(f.readline()))  # the columns as the old version wrote them
        assert [job.SNAKE_COLUMNS.get(c, c) for c in written] == column_names(table), table
        with gzip.open(tmp_path / new["tables"][table]["files"][0], "rt") as f:
            assert list(json.loads(f.readline())) == column_names(table), table
        assert content(old, manifest, table) == content(tmp_path, new, table), table
    copy = manifest["tables"]["topics"].get("parquet")
    if copy and importlib.util.find_spec("pyarrow"):  # v2: the Parquet copy, as the python engine reads it
        audited = job.AUDITED_COLUMNS["topics"]
        rows = list(job.table_rows(old, manifest["tables"]["topics"], audited, snake=True))
        assert rows == [{c: r[c] for c in audited} for r in mf.iter_rows(old, manifest, "topics")]


def test_the_renamed_columns_are_camel_case_and_each_a_column_of_today():
    today = {c.name for cols in TABLES.values() for c in cols}
    assert set(job.SNAKE_COLUMNS.values()) <= today
    assert all("_" in old and "_" not in new for old, new in job.SNAKE_COLUMNS.items())
    assert not [c for c in today if "_" in c]


def test_the_job_file_is_self_contained():
    """spark-submit runs job.py as a file on nodes without mqadmin: it may import nothing from mqadmin,
    and pyspark only inside functions (so the plain-Python engine works without Spark)."""
    tree = ast.parse((ROOT / "mqadmin" / "audit" / "job.py").read_text())
    top_level = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    modules = {a.name.split(".")[0] for n in top_level if isinstance(n, ast.Import) for a in n.names}
    modules |= {(n.module or "").split(".")[0] for n in top_level if isinstance(n, ast.ImportFrom)}
    stdlib = {"__future__", "argparse", "contextlib", "gzip", "hashlib", "json", "os", "shutil", "sys", "tempfile",
              "time", "collections", "concurrent", "dataclasses", "re", "typing"}  # fmt: skip
    assert modules <= stdlib, modules
    every = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    every |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not any(m and m.startswith("mqadmin") for m in every)


def test_the_job_reads_the_manifest_key_the_writer_lists_the_parquet_copy_under():
    from mqadmin.fleet import parquet

    assert job.PARQUET_KEY == parquet.PARQUET_KEY  # job.py imports nothing from mqadmin: a copy, kept in step
    assert parquet.KEYS_KEY == job.KEYS_KEY


def test_the_job_excludes_every_system_topic_the_model_knows():
    assert job.SYSTEM_TOPICS >= SYSTEM_TOPICS
    for t in SYSTEM_TOPICS:
        assert job.is_system_topic(t, "DefaultCluster")
    assert job.is_system_topic("DefaultCluster", "DefaultCluster")
    assert job.is_system_topic("DefaultCluster_REPLY_TOPIC", "DefaultCluster")
    assert job.is_system_topic("rmq_sys_wheel_timer", "C")
    assert job.is_system_topic("%RETRY%G", "C") and job.is_system_topic("%DLQ%G", "C")
    assert not job.is_system_topic("Orders", "DefaultCluster")


def test_table_writer_is_atomic_and_deterministic(tmp_path):
    rows = [{"a": i, "b": "x" * (i % 7)} for i in range(5000)]
    paths = []
    for d in ("one", "two"):
        w = TableWriter(tmp_path / d, "topics", part=3)
        for r in rows:
            w.write(r)
        assert not (tmp_path / d / "topics" / "part-00003.jsonl.gz").exists()  # only the .tmp until closed
        assert w.close() == ("topics/part-00003.jsonl.gz", 5000)
        paths.append(tmp_path / d / "topics" / "part-00003.jsonl.gz")
        assert not list((tmp_path / d).rglob("*.tmp"))
    assert paths[0].read_bytes() == paths[1].read_bytes()
    with gzip.open(paths[0], "rt") as f:
        assert [json.loads(line) for line in f] == rows


def test_the_topics_parquet_copy_holds_the_same_rows_with_the_export_types(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    from mqadmin.audit.job import iter_jsonl, iter_parquet

    rows = [
        {"source": "s", "cluster": "C", "brokerName": f"b{i % 3}", "topic": f"T{i}", "readQueueNums": i % 9,
         "writeQueueNums": 8, "perm": 6, "order": i % 2 == 0, "topicSysFlag": 0,
         "topicFilterType": "SINGLE_TAG", "attributes": {"message.type": "FIFO"} if i % 5 == 0 else {}}
        for i in range(300_000)  # more than one row group
    ]  # fmt: skip
    w = ExportWriter(tmp_path)
    for r in rows:
        w.write("topics", r)
    entry = w.finish(mf.new_manifest({"tool": "test"}))["tables"]["topics"]
    path = tmp_path / entry["parquet"][0]
    assert list(iter_jsonl(tmp_path / entry["files"][0])) == rows
    # The copy's rows are sorted by cluster and topic key, each topic's together, and carry the keys.
    copied = list(iter_parquet(path))
    keyed = [
        r | {"clusterKey": job.stable_key("s", "C"), "brokerKey": job.stable_key("s", "C", r["brokerName"]),
             "topicKey": job.stable_key("s", "C", r["topic"]), "topicCheck": job.check_key("s", "C", r["topic"]),
             "topicKind": job.KIND_REGULAR, "retryTopic": None}
        for r in rows
    ]  # fmt: skip
    assert copied == sorted(keyed, key=lambda r: r["topicKey"])  # a stable sort: a topic's brokers as written
    assert entry[job.KEYS_KEY] == job.KEY_HASH
    audited = job.AUDITED_COLUMNS["topics"]
    assert list(job.table_rows(tmp_path, entry, audited)) == [{c: r[c] for c in audited} for r in copied]
    assert set(column_names("topics")) - set(audited) == {"topicSysFlag", "topicFilterType"}  # not decoded
    meta = pq.ParquetFile(path).metadata
    assert meta.num_rows == 300_000 and meta.num_row_groups == 3  # Spark splits a file by its row groups
    types = {f.name: str(f.type) for f in pq.read_schema(path)}
    assert types["readQueueNums"] == "int32" and types["attributes"].startswith("map<string, string")


def test_the_parquet_copy_puts_each_topics_rows_together_whatever_order_they_came_in(tmp_path):
    """An export reads broker after broker: the copy regroups a topic's rows (so Spark combines them before its
    shuffle), each topic's in the order its brokers were read, and a ``grouped`` writer keeps the order given."""
    pytest.importorskip("pyarrow")
    from mqadmin.audit.job import iter_parquet

    rows = [
        {"source": "s", "cluster": f"C{c}", "brokerName": f"b{b}", "topic": f"T{t}", "readQueueNums": 8,
         "writeQueueNums": 8, "perm": 6, "order": False, "topicSysFlag": 0, "topicFilterType": "SINGLE_TAG",
         "attributes": {}}
        for c in range(2) for b in range(3) for t in range(1_000)
    ]  # fmt: skip
    for grouped in (False, True):
        root = tmp_path / str(grouped)
        w = TableWriter(root, "topics", grouped=grouped)
        for r in rows:
            w.write(r)
        w.close()
        copied = [(r["cluster"], r["topic"], r["brokerName"]) for r in iter_parquet(root / w.entry()["parquet"][0])]
        if grouped:
            assert copied == [(r["cluster"], r["topic"], r["brokerName"]) for r in rows]
            continue
        assert sorted(copied) == sorted((r["cluster"], r["topic"], r["brokerName"]) for r in rows)
        runs = [copied[i : i + 3] for i in range(0, len(copied), 3)]
        assert all([b for _, _, b in run] == ["b0", "b1", "b2"] and len({x[:2] for x in run}) == 1 for run in runs)


def test_aborted_writer_leaves_nothing(tmp_path):
    w = TableWriter(tmp_path, "topics")
    w.write({"a": 1})
    w.abort()
    assert list(tmp_path.iterdir()) == []


def test_export_writer_writes_manifest_last_and_removes_a_stale_one(tmp_path):
    (tmp_path / "manifest.json").write_text("{}")
    w = ExportWriter(tmp_path)
    assert not (tmp_path / "manifest.json").exists()  # until finish, the directory claims no export
    w.write("topics", {"topic": "T"})
    manifest = w.finish(mf.new_manifest({"tool": "test"}))
    loaded = mf.load_manifest(tmp_path)
    assert loaded == manifest
    assert loaded["tables"]["topics"] == {
        "files": ["topics.jsonl.gz"],
        "rows": 1,
        "parquet": ["topics.parquet"],
        job.KEYS_KEY: job.KEY_HASH,
    }
    assert loaded["tables"]["groups"] == {"files": ["groups.jsonl.gz"], "rows": 0}  # only topics get a copy
    assert set(loaded["tables"]) == set(TABLES)
    assert list(mf.iter_rows(tmp_path, loaded, "topics")) == [{"topic": "T"}]
    assert list(mf.iter_rows(tmp_path, loaded, "groups")) == []


def test_the_manifest_file_is_camel_case_and_a_version_1_manifest_still_loads(tmp_path):
    w = ExportWriter(tmp_path)
    manifest = mf.new_manifest({"tool": "test"})
    broker = {"broker_name": "b", "broker_id": 0, "rows": {"consumer_lag": 3}}
    manifest["sources"].append({"source": "s", "status": "ok", "reason": None, "order_conf_ok": True,
                                "clusters": [{"cluster": "C", "brokers": [broker]}]})  # fmt: skip
    w.finish(manifest)
    written = json.loads((tmp_path / "manifest.json").read_text())
    assert written["schemaVersion"] == SCHEMA_VERSION == 3 and "createdAt" in written
    assert "orderConf" in written["tables"] and "consumerLag" in written["tables"]
    source = written["sources"][0]
    assert source["orderConfOk"] is True
    assert source["clusters"][0]["brokers"][0] == {"brokerName": "b", "brokerId": 0, "rows": {"consumerLag": 3}}
    assert mf.load_manifest(tmp_path) == manifest  # snake_case again in memory

    old = mf.load_manifest(ROOT / "tests" / "data" / "fleet-v1" / "export")
    assert old["schema_version"] == 1 and old["sources"][0]["order_conf_ok"] is True
    assert old == json.loads((ROOT / "tests" / "data" / "fleet-v1" / "export" / "manifest.json").read_text())


def test_camel_and_snake_are_inverse_and_leave_other_keys_alone():
    for key in ("failed_masters", "topic_rows", "consumer_lag", "order_conf", "generated_at", "lag_threshold"):
        assert "_" not in job.camel(key) and job.snake(job.camel(key)) == key
    for key in ("PLACEMENT_SUBSET", "rows", "prod-a", "Mixed_Case", "a__b"):
        assert job.camel(key) == key and job.snake(key) == key


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (None, "has no manifest.json"),
        ("not json", "not valid JSON"),
        ('{"kind": "something-else"}', "not an mqadmin fleet export"),
        ('{"kind": "mqadmin-fleet-export", "schema_version": 99, "tables": {}}', "schema version 99"),
        ('{"kind": "mqadmin-fleet-export", "schemaVersion": 4, "tables": {}}', "schema version 4"),
        ('{"kind": "mqadmin-fleet-export", "schema_version": 1, "tables": {}}', "lists no files"),
    ],
)
def test_load_manifest_refuses_what_it_cannot_read(tmp_path, content, fragment):
    if content is not None:
        (tmp_path / "manifest.json").write_text(content)
    with pytest.raises(mf.ExportFormatError, match=fragment):
        mf.load_manifest(tmp_path)


def test_overall_status():
    assert overall_status(["ok", "ok"]) == "ok"
    assert overall_status(["ok", "failed"]) == "partial"
    assert overall_status(["partial"]) == "partial"
    assert overall_status(["failed", "failed"]) == "failed"
    assert overall_status([]) == "failed"


def test_column_names():
    assert column_names("order_conf") == ["source", "topic", "orderConf"]


def test_the_parquet_copy_says_of_each_topic_its_kind_and_a_second_key():
    """What Spark's pass over every row reads instead of the name (``job.TOPIC_FACTS``)."""
    from mqadmin.audit import job

    kinds = {
        "orders": job.KIND_REGULAR, "b-a": job.KIND_REGULAR,  # a broker-named topic: told by key in the audit
        "%RETRY%g1": job.KIND_RETRY, "%DLQ%g1": job.KIND_RETRY, "%RETRY%g1_orders": job.KIND_RETRY,
        "TBW102": job.KIND_SYSTEM, "rmq_sys_wheel": job.KIND_SYSTEM, "C": job.KIND_SYSTEM,
        "C_REPLY_TOPIC": job.KIND_SYSTEM, "D_REPLY_TOPIC": job.KIND_REGULAR,
    }  # fmt: skip
    for topic, kind in kinds.items():
        check, got, name = job.topic_facts("s", "C", topic)
        assert got == kind, topic
        assert name == (topic if kind == job.KIND_RETRY else None)
        assert check == job.check_key("s", "C", topic) != job.stable_key("s", "C", topic)
    assert job.topic_facts("s", "C", None) == (None, None, None)
    # the kinds' rules are part of what the manifest names: a copy made under other rules is not trusted
    assert job.KEY_HASH.startswith("blake2b-64-facts-") and len(job.KEY_HASH) == len("blake2b-64-kinds-") + 8
