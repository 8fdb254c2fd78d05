"""A real standalone Spark cluster on loopback, started from the pyspark install: one master and N workers
(``spark-class org.apache.spark.deploy.master.Master`` / ``...worker.Worker``), each its own JVM in its own
process group, all bound to 127.0.0.1, killed on exit. Used by the cluster test and bench/bench_audit.py."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import free_port, wait_until


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


def cluster_env(scratch: Path) -> dict[str, str]:
    """What the daemons (and an audit driver talking to them) need: loopback only, logs and work dirs in
    ``scratch``, the Java the audit would use."""
    from mqadmin.audit.runner import prepare_spark

    env = dict(os.environ)
    java_home = prepare_spark()
    if java_home:
        env["JAVA_HOME"] = java_home
    env |= {
        "SPARK_HOME": str(spark_home()),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_LOG_DIR": str(scratch / "logs"),
        "SPARK_WORKER_DIR": str(scratch / "work"),
        "SPARK_NO_DAEMONIZE": "1",
    }
    return env


def alive_workers(ui_port: int) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{ui_port}/json/", timeout=2) as r:
            return int(json.load(r).get("aliveworkers", 0))
    except (OSError, ValueError):
        return 0


@contextlib.contextmanager
def standalone_cluster(
    scratch: Path,
    workers: int = 2,
    cores: int = 1,
    memory: str = "1g",
    timeout: float = 180,
    worker_pids: list[int] | None = None,
) -> Iterator[str]:
    """Start the cluster, wait until every worker has registered with the master; yields the master URL.
    ``worker_pids``, when given, receives the workers' process ids (their executors are their children)."""
    scratch.mkdir(parents=True, exist_ok=True)
    env = cluster_env(scratch)
    spark_class = str(spark_home() / "bin" / "spark-class")
    port, ui = free_port(), free_port()
    procs: list[subprocess.Popen[bytes]] = []

    def start(name: str, *args: str) -> None:
        log = open(scratch / f"{name}.log", "wb")  # noqa: SIM115 - the child holds it; closed below
        procs.append(
            subprocess.Popen(
                [spark_class, *args], env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        )
        log.close()

    url = f"spark://127.0.0.1:{port}"
    try:
        start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
              "--webui-port", str(ui))  # fmt: skip
        for i in range(workers):
            start(f"worker-{i}", "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--webui-port",
                  str(free_port()), "--cores", str(cores), "--memory", memory, "--work-dir",
                  str(scratch / f"work-{i}"), url)  # fmt: skip
            if worker_pids is not None:
                worker_pids.append(procs[-1].pid)
        wait_until(lambda: alive_workers(ui) >= workers or _exited(procs), timeout, 0.5, f"{workers} workers at {url}")
        if _exited(procs):
            raise RuntimeError(f"a Spark daemon exited; logs in {scratch}")
        yield url
    finally:
        for p in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
        for p in procs:
            p.wait(timeout=30)


def _exited(procs: list[subprocess.Popen[bytes]]) -> bool:
    return any(p.poll() is not None for p in procs)
