"""The synthetic fleet generator: deterministic, parallel-safe, every defect kind planted."""

from __future__ import annotations

import gzip
from collections import Counter
from pathlib import Path

import pytest

from mqadmin.audit.job import RULES
from mqadmin.fleet.manifest import iter_rows, load_manifest
from mqadmin.fleet.schema import column_names
from mqadmin.fleet.synth import FleetSpec, generate, load_ground_truth, spec_for_rows


def all_bytes(root: Path) -> dict[str, bytes]:
    out = {}
    for p in sorted(root.rglob("*.gz")):
        with gzip.open(p, "rb") as f:
            out[str(p.relative_to(root))] = f.read()
    out["ground_truth"] = (root / "ground_truth.jsonl").read_bytes()
    return out


def test_same_seed_same_fleet_and_another_seed_another(tmp_path):
    spec = FleetSpec(seed=11)
    generate(tmp_path / "a", spec)
    generate(tmp_path / "b", spec)
    generate(tmp_path / "c", FleetSpec(seed=12))
    assert all_bytes(tmp_path / "a") == all_bytes(tmp_path / "b")
    assert all_bytes(tmp_path / "a")["ground_truth"] != all_bytes(tmp_path / "c")["ground_truth"]


def test_parallel_workers_write_the_same_rows(tmp_path):
    spec = FleetSpec(seed=3, sources=3)
    generate(tmp_path / "one", spec, workers=1)
    generate(tmp_path / "two", spec, workers=2)
    one = load_manifest(tmp_path / "one")
    two = load_manifest(tmp_path / "two")
    assert len(two["tables"]["topics"]["files"]) == 2
    for table in one["tables"]:
        rows_one = Counter(str(sorted(r.items())) for r in iter_rows(tmp_path / "one", one, table))
        rows_two = Counter(str(sorted(r.items())) for r in iter_rows(tmp_path / "two", two, table))
        assert rows_one == rows_two, table
    assert load_ground_truth(tmp_path / "one") == load_ground_truth(tmp_path / "two")


def test_the_parquet_copy_of_the_topics_has_the_same_rows_part_by_part(tmp_path):
    pytest.importorskip("pyarrow")
    from mqadmin.audit.job import (
        KIND_REGULAR,
        KIND_RETRY,
        KIND_SYSTEM,
        iter_jsonl,
        iter_parquet,
        stable_key,
        topic_facts,
    )

    manifest = generate(tmp_path, FleetSpec(seed=5, sources=3), workers=2)
    entry = manifest["tables"]["topics"]
    assert entry["parquet"] == ["topics/part-00000.parquet", "topics/part-00001.parquet"]
    columns = column_names("topics")
    for jsonl, parquet in zip(entry["files"], entry["parquet"], strict=True):
        copied = list(iter_parquet(tmp_path / parquet))
        assert [{c: r[c] for c in columns} for r in copied] == list(iter_jsonl(tmp_path / jsonl))
        assert all(r["topicKey"] == stable_key(r["source"], r["cluster"], r["topic"]) for r in copied)
        assert all(
            (r["topicCheck"], r["topicKind"], r["retryTopic"]) == topic_facts(r["source"], r["cluster"], r["topic"])
            for r in copied
        )
        assert {r["topicKind"] for r in copied} == {KIND_REGULAR, KIND_RETRY, KIND_SYSTEM}
    assert "parquet" not in manifest["tables"]["groups"]


def test_every_rule_is_planted_and_the_failed_broker_recorded(tmp_path):
    manifest = generate(tmp_path, FleetSpec())
    rules = {f["rule"] for f in load_ground_truth(tmp_path)}
    assert rules == set(RULES)
    failed = [
        (s["source"], c["cluster"], b["broker_name"])
        for s in manifest["sources"]
        for c in s["clusters"]
        for b in c["brokers"]
        if b["status"] == "failed"
    ]
    assert len(failed) == 1
    hosts = {(r["source"], r["cluster"], r["brokerName"]) for r in iter_rows(tmp_path, manifest, "topics")}
    assert failed[0] not in hosts
    assert manifest["status"] == "partial"


def test_no_defects_no_truth(tmp_path):
    generate(tmp_path, FleetSpec(defects=False, failed_broker=False))
    assert load_ground_truth(tmp_path) == []
    assert load_manifest(tmp_path)["status"] == "ok"


def test_spec_for_rows_hits_the_requested_size(tmp_path):
    spec = spec_for_rows(100_000, topics=500)
    manifest = generate(tmp_path, spec, workers=2)
    assert manifest["tables"]["topics"]["rows"] == pytest.approx(100_000, rel=0.03)
    assert spec_for_rows(10_000_000).approx_topic_rows == pytest.approx(10_000_000, rel=0.01)


def test_impossible_specs_are_refused(tmp_path):
    with pytest.raises(ValueError, match="needs >= 2 brokers"):
        generate(tmp_path, FleetSpec(brokers=1))
    with pytest.raises(ValueError, match=">= 1"):
        FleetSpec(sources=0).check()
