"""``mqadmin audit --master spark://...`` on a real standalone Spark cluster: a master and two workers
started from the pyspark install on 127.0.0.1 (tests/audit/standalone.py), killed afterwards."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mqadmin.audit.baseline import run_python
from mqadmin.audit.job import Params
from mqadmin.fleet.synth import FleetSpec, generate, load_ground_truth
from tests.audit.exports import keys
from tests.audit.standalone import cluster_env, standalone_cluster
from tests.audit.test_spark import spark_skip_reason

pytestmark = [pytest.mark.spark, pytest.mark.timeout(900)]


def test_audit_on_a_standalone_cluster_runs_on_both_workers_and_matches_the_python_engine(tmp_path):
    reason = spark_skip_reason()
    if reason:
        pytest.skip(reason)
    fleet = tmp_path / "fleet"
    generate(fleet, FleetSpec(seed=31), workers=2)
    scratch = tmp_path / "spark"
    with standalone_cluster(scratch, workers=2) as master:
        cmd = [sys.executable, "-m", "mqadmin", "--format", "json", "audit", str(fleet), "--out",
               str(tmp_path / "out"), "--master", master, "--top", "0"]  # fmt: skip
        env = cluster_env(scratch) | {"NO_COLOR": "1"}
        res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=840)
    assert res.returncode == 0, res.stderr[-3000:]
    summary = json.loads(res.stdout)
    assert summary["engine"] == "spark" and summary["master"] == master
    assert summary["engineChoice"]["reason"] == f"--master {master} is a Spark cluster"
    # Each worker launched an executor for the audit's application.
    for i in range(2):
        apps = list((scratch / f"work-{i}").glob("app-*/*"))
        assert apps, f"worker {i} ran no executor"
    found = [json.loads(x) for x in (tmp_path / "out" / "findings.jsonl").read_text().splitlines()]
    assert keys(found) == keys(load_ground_truth(fleet))
    run_python([fleet], str(tmp_path / "py"), Params())
    assert (tmp_path / "out" / "findings.jsonl").read_text() == (tmp_path / "py" / "findings.jsonl").read_text()
