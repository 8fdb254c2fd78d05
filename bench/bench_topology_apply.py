"""apply of a topology file against Java mqadmin's updateTopicList with the same topics, side by side, on a
two-master Apache cluster and on the embedded cluster; then plan of the applied file (no changes).

Per backend and topic count (10,000 by default): ours gets a topology file of that many new topics (8 queues,
perm 6) and runs ``mqadmin apply -f``; Java gets the same topics under fresh names in its JSON format and runs
``updateTopicList -c``. Timed: the process from start to exit; checked (not timed): both masters hold every topic.
Then ``mqadmin plan -f`` of the applied file (every topic read back and compared, nothing to do) is timed. Prints
wall time, topics/s and the ratio Java/ours (above 1: ours is faster).

    python bench/bench_topology_apply.py                          # Apache 5.5.0 and embedded, 10,000 topics
    python bench/bench_topology_apply.py --backends embedded --counts 1000
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_topic_list import brokers_hold, run_tool, write_file  # noqa: E402

EMBEDDED_REFERENCE = "5.3.3"
"""The Java mqadmin run against the embedded cluster (which reports itself as 5.3.3)."""


def write_topology(directory: Path, count: int, namesrv: str, cluster: str) -> tuple[Path, list[str]]:
    prefix = f"BenchTopo_{uuid.uuid4().hex[:6]}"
    names = [f"{prefix}_{i:05d}" for i in range(count)]
    text = f'[clusters.bench]\nnamesrv = "{namesrv}"\ncluster = "{cluster}"\n\n[defaults.topic]\nqueueNums = 8\n'
    text += "".join(f"\n[topics.{n}]\n" for n in names)
    path = directory / f"{prefix}.toml"
    path.write_text(text)
    return path, names


def ours(*args: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mqadmin", "--timeout", "60", *args], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    return wall, "" if done.returncode == 0 else (done.stderr.strip().splitlines() or ["?"])[-1][:200]


@contextlib.contextmanager
def backend(name: str, tmp: Path) -> Iterator[tuple[str, str, list[str], str]]:
    """(name server, cluster, master addresses, Java mqadmin version) of a running two-master cluster."""
    if name == "embedded":
        from tests.devprocs import EmbeddedCluster

        with EmbeddedCluster(tmp / "embedded") as c:
            yield c.namesrv_addr, c.cluster, list(c.broker_addrs.values()), EMBEDDED_REFERENCE
    else:
        from tests.realrmq.apache import ApacheCluster

        version = name.removeprefix("apache-")
        with ApacheCluster(version, brokers=2) as c:
            yield c.namesrv_addr, c.cluster, list(c.broker_addrs.values()), version


def main() -> int:
    from bench_server import wait_quiet

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backends", default="apache-5.5.0,embedded", help="apache-VERSION and/or embedded")
    ap.add_argument("--counts", default="10000", help="topic counts, comma separated")
    ap.add_argument("--quiet-wait", type=float, default=60.0, help="seconds to wait for a quiet machine per run")
    opts = ap.parse_args()
    rows: list[str] = []
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-topology-") as tmp_dir:
        tmp = Path(tmp_dir)
        for name in opts.backends.split(","):
            with backend(name, tmp) as (namesrv, cluster, masters, java_version):
                for count in (int(c) for c in opts.counts.split(",")):
                    path, names = write_topology(tmp, count, namesrv, cluster)
                    notes.append(f"{name} {count}: before apply: {wait_quiet(opts.quiet_wait)}")
                    apply_s, why = ours("apply", "-f", str(path))
                    if why or not brokers_hold(masters, names):
                        raise SystemExit(f"{name}: apply of {count} topics failed: {why or 'topics missing'}")
                    notes.append(f"{name} {count}: before plan: {wait_quiet(opts.quiet_wait)}")
                    plan_s, why = ours("plan", "-f", str(path))
                    if why:
                        raise SystemExit(f"{name}: plan of the applied file is not 'no changes': {why}")
                    java_file, java_names = write_file(tmp, count, "java")
                    notes.append(f"{name} {count}: before java: {wait_quiet(opts.quiet_wait)}")
                    java_s, why = run_tool("java", java_version, java_file, namesrv, cluster, False)
                    if why or not brokers_hold(masters, java_names):
                        raise SystemExit(f"{name}: Java updateTopicList of {count} topics failed: {why}")
                    rows.append(
                        f"{name:<14} {count:>7} {apply_s:>9.2f} {count / apply_s:>11.0f} {java_s:>9.2f} "
                        f"{count / java_s:>11.0f} {java_s / apply_s:>9.1f}x {plan_s:>8.2f}"
                    )
    print(f"\n{'backend':<14} {'topics':>7} {'apply s':>9} {'apply t/s':>11} {'java s':>9} {'java t/s':>11} "
          f"{'java/ours':>10} {'plan s':>8}")  # fmt: skip
    print("\n".join(rows))
    print("\n(apply and Java's updateTopicList create every topic on both masters; plan: the applied file, no changes)")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} ({os.cpu_count()} CPUs)")
    for note in notes:
        print(f"  {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
