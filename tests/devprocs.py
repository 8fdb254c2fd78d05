"""``mqadmin dev namesrv|broker`` as real processes, for integration and conformance tests.

Each server is its own process so a test can pause (SIGSTOP) or kill one broker.
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

MQADMIN = [sys.executable, "-m", "mqadmin"]


class Proc:
    def __init__(self, *args: str) -> None:
        self.args = [*MQADMIN, *args]
        self.p = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.p.stdout:
            self._lines.put(line)
        self._lines.put("")

    def line(self, timeout: float = 30.0) -> str:
        """The next stdout line (bounded wait)."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no output from {self.args} within {timeout}s") from None
        if not line:
            raise AssertionError(f"{self.args} exited: {self.p.wait(5)} {self.p.stderr.read()}")
        return line

    def json(self) -> dict:
        return json.loads(self.line())

    def kill9(self) -> None:
        self.p.send_signal(signal.SIGKILL)
        self.p.wait(10)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.p.poll() is None:
            self.p.send_signal(sig)
        try:
            return self.p.wait(15)
        finally:
            self.p.stderr.close()


def start_dev(*args: str) -> tuple[Proc, dict]:
    """Start ``mqadmin --format json dev <args>`` and return it with its ready line."""
    p = Proc("--format", "json", "dev", *args)
    try:
        return p, p.json()
    except BaseException:
        if p.p.poll() is None:
            p.kill9()
        raise


class EmbeddedCluster:
    """A name server and master brokers (broker-a, broker-b, …), one process each, on free ports."""

    def __init__(self, data_dir: Path, brokers: int = 2, cluster: str = "DefaultCluster") -> None:
        self.data_dir = data_dir
        self.cluster = cluster
        self.procs: list[Proc] = []
        self.broker_procs: dict[str, Proc] = {}
        self.broker_addrs: dict[str, str] = {}
        self._count = brokers
        self.namesrv_addr = ""

    def __enter__(self) -> EmbeddedCluster:
        try:
            ns, info = start_dev("namesrv", "--port", "0", "--data-dir", str(self.data_dir / "namesrv"))
            self.procs.append(ns)
            self.namesrv_addr = info["namesrvAddr"]
            for i in range(self._count):
                self.start_broker(f"broker-{chr(ord('a') + i)}")
        except BaseException:
            self.__exit__()
            raise
        return self

    def start_broker(self, name: str, broker_id: int = 0) -> tuple[Proc, str]:
        proc, info = start_dev(
            "broker", "-n", self.namesrv_addr, "--broker-name", name, "--cluster", self.cluster,
            "--port", "0", "--broker-id", str(broker_id), "--data-dir", str(self.data_dir / f"{name}-{broker_id}"),
        )  # fmt: skip
        self.procs.append(proc)
        if broker_id == 0:
            self.broker_procs[name] = proc
            self.broker_addrs[name] = info["brokerAddr"]
        return proc, info["brokerAddr"]

    def __exit__(self, *exc: object) -> None:
        for p in reversed(self.procs):
            if p.p.poll() is None:
                p.p.send_signal(signal.SIGCONT)
                p.kill9()
