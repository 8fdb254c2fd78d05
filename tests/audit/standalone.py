"""A real standalone Spark cluster on loopback, started from the pyspark install: one master and N workers
(``spark-class org.apache.spark.deploy.master.Master`` / ``...worker.Worker``), each its own JVM in its own
process group, all bound to 127.0.0.1, killed on exit. Used by the cluster test and bench/bench_audit.py."""

from __future__ import annotations

import contextlib
import json
import os
import re
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
    """What the daemons (and an audit driver talking to them) need: loopback only, logs, work and shuffle dirs
    in ``scratch``, the Java the audit would use."""
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
        "SPARK_LOCAL_DIRS": str(scratch / "local"),  # shuffle and spill files (the bench measures their size)
        "SPARK_NO_DAEMONIZE": "1",
    }
    return env


def master_status(ui_port: int) -> dict[str, object]:
    """The master web UI's ``/json/`` (its URL, state and alive workers); empty while it does not answer."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{ui_port}/json/", timeout=2) as r:
            return dict(json.load(r))
    except (OSError, ValueError):
        return {}


def alive_workers(ui_port: int) -> int:
    return int(str(master_status(ui_port).get("aliveworkers", 0)))


_UI_PORT = re.compile(rb"Successfully started service 'MasterUI' on port (\d+)")


def master_ui_port(log: Path) -> int | None:
    """The port the master's web UI bound, from its log: Spark moves to the next port when the asked one is
    taken, so the one we chose is only a first try."""
    found = _UI_PORT.search(log.read_bytes()) if log.exists() else None
    return int(found.group(1)) if found else None


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

    try:
        start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
              "--webui-port", str(ui))  # fmt: skip

        # The workers start once the master listens, at the address it reports: a worker connecting to a port
        # nobody listens on yet can connect to itself (TCP simultaneous open) and so take the master's port.
        def master_alive() -> tuple[int, str] | None:
            """The master's UI port and URL once it is ALIVE."""
            if _exited(procs):
                raise RuntimeError(f"the Spark master exited; logs in {scratch}")
            ui_port = master_ui_port(scratch / "master.log")
            status = master_status(ui_port) if ui_port else {}
            return (ui_port, str(status["url"])) if ui_port and status.get("status") == "ALIVE" else None

        ui, url = wait_until(master_alive, timeout, 0.2, f"the Spark master to be ALIVE (log: {scratch})")
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
