"""apply of a topology file against Java mqadmin's updateTopicList with the same topics, side by side, on a
two-master Apache cluster and on the embedded cluster; then plan of the applied file (no changes).

Per backend and topic count (1,000 to 100,000 by default), on a fresh cluster: ours gets a topology file of that
many new topics (8 queues, perm 6) and a tenth as many groups, and runs ``mqadmin apply -f``; Java gets the same
topics under fresh names in its JSON format and runs ``updateTopicList -c``. Every command runs at the default
request timeout (5 s). Timed: the process from start to exit, with its peak RSS (the JVM's for Java); checked (not
timed): both masters hold every topic. Then ``mqadmin plan -f`` of the applied file (every topic and group read
back and compared, nothing to do: exit 0) is timed. Prints wall time, peak RSS and the ratio Java/ours (above 1:
ours is faster). The Apache servers get larger heaps than the tests give them (``--broker-heap``), since 100,000
topics do not fit in 256 MiB, and a frame limit of 256 MiB (-Dcom.rocketmq.remoting.frameMaxLength), since a
registration of 100,000 topics passes the name server's default 16 MiB.

    python bench/bench_topology_apply.py                          # Apache 5.5.0 and embedded
    python bench/bench_topology_apply.py --backends embedded --counts 1000
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_topic_list import brokers_hold, run_tool, write_file  # noqa: E402

EMBEDDED_REFERENCE = "5.3.3"
"""The Java mqadmin run against the embedded cluster (which reports itself as 5.3.3)."""


def write_topology(directory: Path, count: int, namesrv: str, cluster: str) -> tuple[Path, list[str]]:
    prefix = f"BenchTopo_{uuid.uuid4().hex[:6]}"
    names = [f"{prefix}_{i:06d}" for i in range(count)]
    text = f'[clusters.bench]\nnamesrv = "{namesrv}"\ncluster = "{cluster}"\n\n[defaults.topic]\nqueueNums = 8\n'
    text += "".join(f"\n[topics.{n}]\n" for n in names)
    text += "".join(f"\n[groups.{prefix}_G{i:05d}]\n" for i in range(count // 10))
    path = directory / f"{prefix}.toml"
    path.write_text(text)
    return path, names


def ours(*args: str) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MiB, why it failed or "") of one ``mqadmin`` run at the default timeout."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "mqadmin", *args], stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        lines = err.read().decode(errors="replace").strip().splitlines()
    why = "" if proc.returncode == 0 else f"exit {proc.returncode}: " + " / ".join(lines[-3:])[:300]
    return wall, usage.ru_maxrss / 1024, why


def java(version: str, path: Path, namesrv: str, cluster: str, stock_jvm: bool) -> tuple[float, float, str]:
    """(wall seconds, peak RSS of the JVM in MiB, why it failed or "") of Java's ``updateTopicList``: run in a
    forked child, whose peak (its own or its children's, the JVM's) ``wait4`` reports."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run the tool, report, leave without cleaning up the parent's state
        os.close(read)
        try:
            wall, why = run_tool("java", version, path, namesrv, cluster, stock_jvm)
            os.write(write, json.dumps([wall, why]).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        data = f.read()
    _, _, usage = os.wait4(pid, 0)
    wall, why = json.loads(data) if data else (0.0, "the child running Java mqadmin died")
    return wall, usage.ru_maxrss / 1024, why


@contextlib.contextmanager
def backend(name: str, tmp: Path, heap: str) -> Iterator[tuple[str, str, list[str], str]]:
    """(name server, cluster, master addresses, Java mqadmin version) of a running two-master cluster."""
    if name == "embedded":
        from tests.devprocs import EmbeddedCluster

        with EmbeddedCluster(tmp) as c:
            yield c.namesrv_addr, c.cluster, list(c.broker_addrs.values()), EMBEDDED_REFERENCE
    else:
        from tests.realrmq import apache

        version = name.removeprefix("apache-")
        apache.Broker.heap = ("-Xms256m", f"-Xmx{heap}", "-Xmn128m")
        apache.NameServer.heap = ("-Xms128m", f"-Xmx{heap}", "-Xmn64m")
        # at ~80,000 topics a broker's registration passes the name server's 16 MiB frame limit: raised to 256 MiB
        big_frames = ("-Dcom.rocketmq.remoting.frameMaxLength=268435456",)
        with apache.ApacheCluster(version, brokers=2, java_opts=big_frames) as c:
            yield c.namesrv_addr, c.cluster, list(c.broker_addrs.values()), version


def main() -> int:
    from bench_server import wait_quiet

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backends", default="apache-5.5.0,embedded", help="apache-VERSION and/or embedded")
    ap.add_argument("--counts", default="1000,10000,50000,100000", help="topic counts, comma separated")
    ap.add_argument("--no-java", action="store_true", help="leave out Java's updateTopicList")
    ap.add_argument("--stock-jvm", action="store_true", help="run Java mqadmin with tools.sh's 1 GiB heap flags")
    ap.add_argument("--broker-heap", default="1g", help="-Xmx of the Apache name server and brokers")
    ap.add_argument("--quiet-wait", type=float, default=60.0, help="seconds to wait for a quiet machine per run")
    opts = ap.parse_args()
    rows: list[str] = []
    notes: list[str] = []
    failures = 0

    def run(what: str, fn: Callable[[], tuple[float, float, str]]) -> tuple[float, float, bool]:
        nonlocal failures
        notes.append(f"{what}: before: {wait_quiet(opts.quiet_wait)}")
        wall, peak, why = fn()
        if why:
            failures += 1
            notes.append(f"{what}: FAILED after {wall:.2f} s: {why}")
        return wall, peak, not why

    def cell(wall: float, peak: float, ok: bool) -> str:
        return f"{wall:>8.2f} {peak:>7.0f}" if ok else f"{'failed':>8} {peak:>7.0f}"

    with tempfile.TemporaryDirectory(prefix="bench-topology-") as tmp_dir:
        tmp = Path(tmp_dir)
        for name in opts.backends.split(","):
            for count in (int(c) for c in opts.counts.split(",")):  # a fresh cluster per count
                with backend(name, tmp / f"{name}-{count}", opts.broker_heap) as (
                    namesrv,
                    cluster,
                    masters,
                    java_version,
                ):
                    path, names = write_topology(tmp, count, namesrv, cluster)
                    applied = run(f"{name} {count} apply", lambda p=path: ours("apply", "-f", str(p)))  # type: ignore[misc]
                    if applied[2] and not brokers_hold(masters, names):
                        raise SystemExit(f"{name}: apply of {count} topics said done but topics are missing")
                    planned = run(f"{name} {count} plan", lambda p=path: ours("plan", "-f", str(p)))  # type: ignore[misc]
                    java_cells = f"{'-':>8} {'-':>7} {'-':>10}"
                    if not opts.no_java:
                        java_file, java_names = write_file(tmp, count, "java")
                        done = run(
                            f"{name} {count} java",
                            lambda f=java_file: java(java_version, f, namesrv, cluster, opts.stock_jvm),  # type: ignore[misc]
                        )
                        if done[2] and not brokers_hold(masters, java_names):
                            done = (done[0], done[1], False)
                            notes.append(f"{name} {count} java: the brokers do not hold every topic")
                        ratio = f"{done[0] / applied[0]:>9.1f}x" if done[2] and applied[2] else f"{'-':>10}"
                        java_cells = f"{cell(*done)} {ratio}"
                    rows.append(f"{name:<14} {count:>7} {cell(*applied)} {cell(*planned)} {java_cells}")
    print(f"\n{'backend':<14} {'topics':>7} {'apply s':>8} {'MiB':>7} {'plan s':>8} {'MiB':>7} {'java s':>8} "
          f"{'MiB':>7} {'java/ours':>10}")  # fmt: skip
    print("\n".join(rows))
    print(
        "\n(apply: the topics on both masters and a tenth as many groups; Java's updateTopicList: the same number of "
        "topics;\n plan: the applied file read back, exit 0 'no changes'; MiB: peak RSS of the process, the JVM's "
        "for Java; default timeout)"
    )
    print(f"load average at the end: {os.getloadavg()[0]:.1f} ({os.cpu_count()} CPUs)")
    for note in notes:
        print(f"  {note}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
