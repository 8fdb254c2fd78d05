"""The audit rules (plain-Python engine): planted defects found, nothing else reported; the plan."""

from __future__ import annotations

import json
import shlex
import tomllib
from pathlib import Path

import pytest

from mqadmin.audit import job
from mqadmin.audit.baseline import audit_findings, run_python
from mqadmin.audit.job import Params
from mqadmin.fleet.synth import FleetSpec, generate, load_ground_truth
from tests.audit.exports import edge_case_export, keys

SPECS = [
    FleetSpec(),
    FleetSpec(seed=1, sources=1, clusters_per_source=1, brokers=2, topics=20, groups=2, failed_broker=False),
    FleetSpec(seed=2, sources=3, clusters_per_source=1, brokers=5, topics=45, groups=4),
    FleetSpec(seed=3, sources=1, clusters_per_source=3, brokers=4, topics=120, groups=10),
]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"seed{s.seed}-{s.brokers}x{s.topics}")
def test_every_planted_defect_is_found_and_nothing_else(tmp_path, spec):
    generate(tmp_path, spec)
    truth = keys(load_ground_truth(tmp_path))
    found = keys(audit_findings([tmp_path], Params()))
    assert found - truth == set(), "reported but not planted"
    assert truth - found == set(), "planted but not reported"


def test_a_healthy_fleet_has_no_findings(tmp_path):
    generate(tmp_path, FleetSpec(defects=False, failed_broker=False, brokers=4, topics=80))
    assert audit_findings([tmp_path], Params()) == []


def test_edge_cases(tmp_path):
    expected = edge_case_export(tmp_path)
    assert keys(audit_findings([tmp_path], Params(lag_threshold=100))) == expected


def test_several_inputs_are_audited_together(tmp_path):
    generate(tmp_path / "a", FleetSpec(seed=5, sources=1))
    edge = edge_case_export(tmp_path / "b")
    both = keys(audit_findings([tmp_path / "a", tmp_path / "b"], Params(lag_threshold=100)))
    a_only = keys(audit_findings([tmp_path / "a"], Params(lag_threshold=100)))
    assert both == a_only | edge


def test_the_same_source_in_two_inputs_is_refused(tmp_path):
    generate(tmp_path / "a", FleetSpec(seed=5, sources=1))
    generate(tmp_path / "b", FleetSpec(seed=6, sources=1))
    with pytest.raises(job.AuditInputError, match="source 'src-000' appears in both"):
        audit_findings([tmp_path / "a", tmp_path / "b"], Params())


def test_parameters_change_what_is_reported(tmp_path):
    edge_case_export(tmp_path)
    rules = lambda p: {f["rule"] for f in audit_findings([tmp_path], p)}  # noqa: E731
    assert "LAG_OVER_THRESHOLD" not in rules(Params(lag_threshold=101))
    assert "LAG_OVER_THRESHOLD" in rules(Params(lag_threshold=100))
    assert not {"BROKER_TOPIC_SKEW", "BROKER_QUEUE_SKEW"} & rules(Params(lag_threshold=100, skew_min=1000))
    assert not {"BROKER_TOPIC_SKEW", "BROKER_QUEUE_SKEW"} & rules(Params(lag_threshold=100, skew_factor=100.0))


def test_findings_carry_severity_message_and_evidence(tmp_path):
    edge_case_export(tmp_path)
    findings = audit_findings([tmp_path], Params(lag_threshold=100))
    ranks = [job.SEVERITY_RANK[f["severity"]] for f in findings]
    assert ranks == sorted(ranks)
    trap = next(f for f in findings if f["topic"] == "Trap")
    assert trap["severity"] == "high"
    assert trap["message"] == "on 1 of 2 writable masters, missing on b"
    assert json.loads(trap["evidence"]) == {
        "present": ["a"],
        "missing": ["b"],
        "brokers": [{"broker": "a", "read": 4, "write": 4, "perm": 6, "order": False, "attributes": ""}],
    }
    lag = next(f for f in findings if f["rule"] == "LAG_OVER_THRESHOLD")
    assert json.loads(lag["evidence"]) == {"lag": 101, "threshold": 100, "topics": [{"topic": "Good", "lag": 101}]}
    skew = next(f for f in findings if f["rule"] == "BROKER_TOPIC_SKEW")
    assert json.loads(skew["evidence"]) == {"count": 2, "median": 30.0, "factor": 2.0, "minDiff": 10}
    assert skew["message"] == "holds 2 topics; cluster median 30"


def test_outputs_and_plan(tmp_path):
    edge_case_export(tmp_path / "in")
    summary = run_python([tmp_path / "in"], str(tmp_path / "out"), Params(lag_threshold=100))
    out = tmp_path / "out"
    lines = [json.loads(x) for x in (out / "findings.jsonl").read_text().splitlines()]
    assert [tuple(x) for x in lines] == [job.FINDING_COLUMNS] * len(lines)
    assert summary["findings"] == len(lines) == 16
    assert {r["rule"]: r["count"] for r in summary["by_rule"]}["PLACEMENT_SUBSET"] == 4
    assert json.loads((out / "summary.json").read_text()) == job.camel_keys(summary)
    pq = pytest.importorskip("pyarrow.parquet")
    assert pq.read_table(out / "findings.parquet").num_rows == 16

    plan = tomllib.loads((out / "plan.toml").read_text())
    fixes = {(f["source"], f["cluster"], f["topic"]): f for f in plan["fix"]}
    ns = "127.0.0.1:9876;127.0.0.2:9876"
    base = ["mqadmin", "updateTopic", "-n", ns, "-c", "C1"]
    assert fixes[("s1", "C1", "Trap")]["argv"] == base + ["-t", "Trap", "-r", "4", "-w", "4", "-p", "6"]
    assert fixes[("s1", "C1", "Inherit")]["argv"][-2:] == ["-p", "7"]  # the topic's own bits are kept
    wide = fixes[("s1", "C1", "Wide")]
    assert wide["fixes"] == ["PLACEMENT_SUBSET", "QUEUE_COUNT_UNEQUAL"]
    assert wide["argv"][8:12] == ["-r", "16", "-w", "16"]  # the largest queue count seen
    assert fixes[("s1", "C1", "Unconfigured")]["argv"][-2:] == ["-o", "true"]
    fifo = fixes[("s1", "C2", "Fifo")]  # the conf names C1's brokers too: -c -o true would drop them
    assert "a:8;b:8" in fifo["warning"] and "updateOrderConf" in fifo["warning"]
    assert fifo["argv"][-2:] == ["-o", "true"]
    assert "warning" not in fixes[("s1", "C1", "Miscounted")]
    for f in plan["fix"]:
        assert f["command"] == shlex.join(f["argv"])
        assert shlex.split(f["command"]) == f["argv"]
    assert "'127.0.0.1:9876;127.0.0.2:9876'" in fixes[("s1", "C1", "Trap")]["command"]  # quoted for the shell
    assert {r for f in plan["fix"] for r in f["fixes"]} <= set(job.PLAN_RULES)
    assert len(plan["fix"]) == summary["fixes"] == 7


def test_plan_carries_attributes_of_the_topic():
    evidence = {"brokers": [{"broker": "a", "read": 8, "write": 8, "perm": 6, "order": True,
                             "attributes": "message.type=FIFO"}]}  # fmt: skip
    f = {"source": "s", "cluster": "C", "topic": "T", "rule": "PLACEMENT_SUBSET", "evidence": json.dumps(evidence)}
    argv = job.plan_entry([f], "h:9876")["argv"]
    assert argv[-4:] == ["-o", "true", "-a", "+message.type=FIFO"]


def test_toml_without_tomli_w_reads_back_the_same(monkeypatch):
    import sys

    doc = {"generated_at": "x", "inputs": ["a", "b c"], "fix": [{"topic": "T", "argv": ["m", "-n", "a;b"], "n": 3}]}
    with_lib = job.toml_text(doc)
    monkeypatch.setitem(sys.modules, "tomli_w", None)  # import fails
    without = job.toml_text(doc)
    assert tomllib.loads(without) == tomllib.loads(with_lib) == doc


@pytest.mark.parametrize(
    ("rest", "candidates"),
    [("G", ["G"]), ("G_T", ["G_T", "G"]), ("a_b+c", ["a_b+c", "a", "a_b"]), ("_x", ["_x"]), ("", [""])],
)
def test_retry_topic_group_candidates(rest, candidates):
    assert job.group_candidates(rest) == candidates


def test_order_conf_parsing():
    assert job.order_conf_entries(" a:8 ; b:4;;") == ["a:8", "b:4"]
    assert [job.conf_entry_broker(e) for e in ["a:8", "a:b:8", ":8", "a:", "a:x", "a:٣"]] == [
        "a",
        "a:b",
        "",
        "",
        "",
        "",
    ]
    assert job.median_text(30.0) == "30" and job.median_text(7.5) == "7.5"
    assert job.perm_letters(6) == "RW-" and job.perm_letters(5) == "R-X"


def test_not_an_export_is_refused(tmp_path):
    with pytest.raises(job.AuditInputError, match="has no manifest.json"):
        audit_findings([tmp_path], Params())
    (tmp_path / "manifest.json").write_text(json.dumps({"kind": "mqadmin-fleet-export", "schema_version": 4}))
    with pytest.raises(job.AuditInputError, match="schema version 4"):
        audit_findings([tmp_path], Params())


def test_plan_for_fixable_findings_only(tmp_path: Path):
    generate(tmp_path / "in", FleetSpec())
    run_python([tmp_path / "in"], str(tmp_path / "out"), Params())
    plan = tomllib.loads((tmp_path / "out" / "plan.toml").read_text())
    truth = load_ground_truth(tmp_path / "in")
    fixable = {(t["source"], t["cluster"], t["topic"]) for t in truth if t["rule"] in job.PLAN_RULES}
    assert {(f["source"], f["cluster"], f["topic"]) for f in plan["fix"]} == fixable
