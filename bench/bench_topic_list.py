"""updateTopicList: ours against the Java mqadmin's, side by side, on one real two-master Apache cluster.

For each topic count (1,000 and 10,000 by default) each tool gets a file of that many new topics (Java's
JSON format; the same entries, fresh names per tool) and creates them on every master with
``updateTopicList -c``. Timed: the tool's process from start to exit, then checked (not timed) that both
brokers hold every topic. Then each tool runs its file again, where every topic already exists: ours reads
the brokers' tables and sends nothing; Java sends the whole list again. Prints wall time, topics/s and the
ratio Java/ours (above 1: ours is faster), and waits for a quiet machine before each run.

    python bench/bench_topic_list.py                       # Apache 5.3.3, 1,000 and 10,000 topics
    python bench/bench_topic_list.py --version 5.5.0 --counts 1000,10000 --rounds 3

Java mqadmin runs with the test harness's flags (small heap, C1 only: its fastest start);
``--stock-jvm`` uses tools.sh's 1 GiB heap flags instead.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

STOCK_JVM = ["-server", "-Xms1g", "-Xmx1g", "-Xmn256m", "-XX:MetaspaceSize=128m", "-XX:MaxMetaspaceSize=128m"]


def write_file(directory: Path, count: int, tag: str) -> tuple[Path, list[str]]:
    """``count`` new topics (8 queues, perm 6) in Java's JSON format."""
    prefix = f"Bench{tag}_{uuid.uuid4().hex[:6]}"
    names = [f"{prefix}_{i:05d}" for i in range(count)]
    path = directory / f"{prefix}.json"
    path.write_text(json.dumps([{"topicName": n, "readQueueNums": 8, "writeQueueNums": 8, "perm": 6} for n in names]))
    return path, names


def run_tool(tool: str, version: str, path: Path, namesrv: str, cluster: str, stock_jvm: bool) -> tuple[float, str]:
    """One ``updateTopicList -c`` by ``tool``: its wall time, and why it failed ("" when it did not)."""
    args = ["updateTopicList", "-n", namesrv, "-c", cluster, "-f", str(path)]
    t0 = time.perf_counter()
    if tool == "ours":
        done = subprocess.run(
            [sys.executable, "-m", "mqadmin", "--timeout", "60", *args], capture_output=True, text=True
        )
        ok = done.returncode == 0
    else:
        from tests.realrmq.apache import java_mqadmin

        done = java_mqadmin(version, args, java_opts=STOCK_JVM if stock_jvm else (), timeout=600)
        ok = done.stdout.count("success") == 2  # one line per master
    wall = time.perf_counter() - t0
    text = (done.stdout + done.stderr).strip().splitlines()
    why = (
        "" if ok else next((ln.strip() for ln in text if "Exception" in ln or "error" in ln), text[-1] if text else "?")
    )
    return wall, why[:200]


def brokers_hold(brokers: list[str], names: list[str]) -> bool:
    from mqadmin.admin import AdminClient

    async def check() -> bool:
        async with AdminClient(["127.0.0.1:1"], timeout=60) as admin:
            tables = await asyncio.gather(*(admin.all_topic_config(a) for a in brokers))
        return all(set(names) <= set(table) for table, _ in tables)

    return asyncio.run(check())


def _median(results: list[tuple[int, str, str, float]], count: int, run: str, tool: str) -> float | None:
    walls = [s for n, r, t, s in results if (n, r, t) == (count, run, tool)]
    return statistics.median(walls) if walls else None


def _cells(count: int, wall: float | None) -> str:
    """``seconds topics/s``, or ``failed`` when no run of the tool succeeded."""
    return f"{wall:>8.2f} {count / wall:>14.0f}" if wall else f"{'failed':>8} {'-':>14}"


def main() -> int:
    from bench_server import wait_quiet

    from tests.realrmq.apache import ApacheCluster, skip_reason

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--version", default="5.3.3", help="Apache RocketMQ version of the cluster and the Java mqadmin")
    ap.add_argument("--counts", default="1000,10000", help="topic counts, comma separated")
    ap.add_argument("--rounds", type=int, default=1, help="runs per tool and count (the median counts)")
    ap.add_argument("--stock-jvm", action="store_true", help="run Java mqadmin with tools.sh's 1 GiB heap flags")
    ap.add_argument("--quiet-wait", type=float, default=60.0, help="seconds to wait for a quiet machine per run")
    opts = ap.parse_args()
    reason = skip_reason(opts.version)
    if reason:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 1
    counts = [int(c) for c in opts.counts.split(",")]
    results: list[tuple[int, str, str, float]] = []  # (count, run, tool, seconds) of the runs that succeeded
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-topic-list-") as tmp, ApacheCluster(opts.version, brokers=2) as c:
        brokers = list(c.broker_addrs.values())
        print(f"Apache RocketMQ {opts.version}: name server {c.namesrv_addr}, brokers {c.broker_addrs}")
        print(f"java: {'tools.sh heap flags' if opts.stock_jvm else 'test-harness flags (small heap, C1 only)'}")
        for count in counts:
            for rnd in range(opts.rounds):
                for tool in ("ours", "java"):  # alternate, so both see the same machine
                    path, names = write_file(Path(tmp), count, tool)
                    for run in ("create", "again"):
                        quiet = wait_quiet(opts.quiet_wait)
                        wall, why = run_tool(tool, opts.version, path, c.namesrv_addr, c.cluster, opts.stock_jvm)
                        outcome = f"FAILED after {wall:.2f} s: {why}" if why else f"{wall:.2f} s"
                        notes.append(f"{count} {run} {tool} round {rnd + 1}: {outcome}; before: {quiet}")
                        if not why:
                            results.append((count, run, tool, wall))
                        if run == "create" and not why and not brokers_hold(brokers, names):
                            raise SystemExit(f"{tool}: the brokers do not hold all {count} topics")
    head = f"{'ours s':>8} {'ours topics/s':>14} {'java s':>8} {'java topics/s':>14} {'java/ours':>10}"
    print(f"\n{'topics':>7} {'run':<7} {head}")
    for count in counts:
        for run in ("create", "again"):
            ours, java = (_median(results, count, run, tool) for tool in ("ours", "java"))
            ratio = f"{java / ours:>9.1f}x" if ours and java else f"{'-':>10}"
            print(f"{count:>7} {run:<7} {_cells(count, ours)} {_cells(count, java)} {ratio}")
    print("\n(topics/s counts each topic once; every topic is created on both masters; failed runs are in the notes)")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} ({os.cpu_count()} CPUs)")
    for note in notes:
        print(f"  {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
