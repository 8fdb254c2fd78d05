"""End to end on the embedded cluster (``mqadmin dev up``, two brokers): the auto-create trap
(docs/protocol.md, "Broker"), found by the audit and fixed by its plan.

A real send to a topic that does not exist creates it through TBW102 on the one broker the send
reached; exportMetadata + audit report it as on 1 of 2 writable masters; the plan's updateTopic
command puts it on both; a second export and audit (this time the job file run by spark-submit, as on
a real Spark cluster) no longer report it.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import tomllib
from pathlib import Path

import pytest

from tests.audit.test_spark import spark_skip_reason

pytestmark = [pytest.mark.spark, pytest.mark.timeout(1200)]

MQADMIN = [sys.executable, "-m", "mqadmin"]
JOB = Path(__file__).resolve().parents[2] / "mqadmin" / "audit" / "job.py"


def mqadmin(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MQADMIN, *args], capture_output=True, text=True, timeout=timeout)


def missing_commands() -> str | None:
    for cmd in (["dev", "up"], ["sendMessage"]):
        if mqadmin(*cmd, "--help", timeout=60).returncode != 0:
            return f"`mqadmin {' '.join(cmd)}` does not exist yet (the embedded cluster of issue 3)"
    return None


class DevCluster:
    """``mqadmin dev up`` on free loopback ports; ``namesrv`` once every broker has registered."""

    def __init__(self, data_dir: Path) -> None:
        self.p = subprocess.Popen(
            [*MQADMIN, "dev", "up", "--namesrv-port", "0", "--broker-port", "0", "--data-dir", str(data_dir)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.namesrv = ""
        while True:
            try:
                line = self._lines.get(timeout=60)
            except queue.Empty:
                raise AssertionError("mqadmin dev up printed no ready line within 60 s") from None
            if not line:
                raise AssertionError(f"mqadmin dev up exited: {self.p.wait(5)} {self.p.stderr.read()}")
            if line.startswith("NAMESRV_ADDR="):
                self.namesrv = line.split("=", 1)[1].strip()
            if line.startswith("ready"):
                break
        assert self.namesrv, "dev up did not print NAMESRV_ADDR="

    def _read(self) -> None:
        for line in self.p.stdout:  # type: ignore[union-attr]
            self._lines.put(line)
        self._lines.put("")

    def stop(self) -> None:
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
            try:
                self.p.wait(20)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait(10)


def placement_findings(out: Path, topic: str) -> list[dict]:
    findings = [json.loads(line) for line in (out / "findings.jsonl").read_text().splitlines()]
    return [f for f in findings if f["topic"] == topic and f["rule"] == "PLACEMENT_SUBSET"]


def spark_submit(*args: str) -> subprocess.CompletedProcess[str]:
    import pyspark

    from mqadmin.audit.runner import resolve_java_home

    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    env["JAVA_HOME"] = resolve_java_home() or env.get("JAVA_HOME", "")
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    cmd = [str(submit), "--master", "local[2]", "--conf", "spark.ui.enabled=false", str(JOB), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)


def test_auto_created_topic_is_reported_fixed_by_the_plan_and_no_longer_reported(tmp_path):
    reason = missing_commands() or spark_skip_reason()
    if reason:
        pytest.skip(reason)
    cluster = DevCluster(tmp_path / "data")
    try:
        ns = cluster.namesrv
        sent = mqadmin("sendMessage", "-n", ns, "-t", "NewTopic", "-p", "hello")
        assert sent.returncode == 0, sent.stderr

        export = mqadmin("exportMetadata", "-n", ns, "--out", str(tmp_path / "export1"))
        assert export.returncode == 0, export.stderr
        audit = mqadmin(
            "--format", "json", "audit", str(tmp_path / "export1"), "--out", str(tmp_path / "audit1"),
            "--engine", "spark", "--master", "local[2]",
        )  # fmt: skip
        assert audit.returncode == 0, audit.stderr
        summary = json.loads(audit.stdout)
        assert any(f["topic"] == "NewTopic" for f in summary["top"])
        page = (tmp_path / "audit1" / "report.html").read_text()
        assert summary["outputs"]["report"] == str(tmp_path / "audit1" / "report.html")
        assert '<section id="brokers">' in page and "NewTopic" in page and "<svg" in page

        manifest = json.loads((tmp_path / "export1" / "manifest.json").read_text())
        assert manifest["schemaVersion"] == 3 and manifest["tables"]["topics"]["parquet"]  # the columnar copy
        python = mqadmin("audit", str(tmp_path / "export1"), "--out", str(tmp_path / "audit1-python"),
                         "--engine", "python")  # fmt: skip
        assert python.returncode == 0, python.stderr
        by_engine = [
            [json.loads(x) for x in (tmp_path / out / "findings.jsonl").read_text().splitlines()]
            for out in ("audit1", "audit1-python")
        ]
        assert by_engine[0] and by_engine[0] == by_engine[1]  # Spark and python: the same findings

        [trap] = placement_findings(tmp_path / "audit1", "NewTopic")
        evidence = trap["evidence"]
        assert len(evidence["present"]) == 1, evidence  # a single broker
        assert sorted(evidence["present"] + evidence["missing"]) == ["broker-a", "broker-b"]
        assert trap["message"] == f"on 1 of 2 writable masters, missing on {evidence['missing'][0]}"

        plan = tomllib.loads((tmp_path / "audit1" / "plan.toml").read_text())
        [fix] = [f for f in plan["fix"] if f["topic"] == "NewTopic"]
        assert fix["argv"][:7] == ["mqadmin", "updateTopic", "-n", ns, "-c", "DefaultCluster", "-t"]
        ran = subprocess.run([*MQADMIN, *fix["argv"][1:]], capture_output=True, text=True, timeout=120)
        assert ran.returncode == 0, ran.stderr
        assert "created" in ran.stdout

        export = mqadmin("exportMetadata", "-n", ns, "--out", str(tmp_path / "export2"))
        assert export.returncode == 0, export.stderr
    finally:
        cluster.stop()

    submitted = spark_submit(
        "--input", str(tmp_path / "export2"), "--out", str(tmp_path / "audit2"), "--baseline", str(tmp_path / "audit1")
    )  # fmt: skip
    assert submitted.returncode == 0, submitted.stderr[-3000:]
    after = json.loads(submitted.stdout)
    assert after["engine"] == "spark" and after["baseline"]["resolved"] >= 1 and after["generatedAt"]
    resolved = [json.loads(x) for x in (tmp_path / "audit2" / "resolved.jsonl").read_text().splitlines()]
    assert ("NewTopic", "PLACEMENT_SUBSET", "resolved") in [(f["topic"], f["rule"], f["change"]) for f in resolved]
    findings = [json.loads(x) for x in (tmp_path / "audit2" / "findings.jsonl").read_text().splitlines()]
    assert [f for f in findings if f["topic"] == "NewTopic"] == []
    plan = tomllib.loads((tmp_path / "audit2" / "plan.toml").read_text())
    assert [f for f in plan.get("fix", []) if f["topic"] == "NewTopic"] == []
