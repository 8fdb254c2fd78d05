"""Audit of 1M and 10M (cluster, broker, topic) rows: local Spark against the plain single-process Python
implementation of the same rules, side by side in one run.

    python bench/bench_audit.py                       # 1M and 10M rows, both engines
    python bench/bench_audit.py --sizes 100000 --engines python
    python bench/bench_audit.py --sizes 10000,100000,1000000,3000000,10000000   # where Spark starts to win

For each size a synthetic fleet is generated once (mqadmin generateFleet, cached under --data) and each
engine runs as a user runs it: ``mqadmin audit DIR --out OUT --engine E`` in its own process, so Spark's
JVM start is paid as it would be. Reported per run: wall time, the audit's own time (summary.json
``elapsed_s``: reading inputs to writing outputs, without interpreter/JVM start), topic rows per second
of audit time, peak resident memory of the whole process tree (python + JVM), and the load average
(the machine may be shared). Then the Spark/Python ratio per size and how each engine's time grows
from the smallest to the largest size, and the smallest size at which Spark's wall time beat Python's
(the threshold of ``mqadmin audit --engine auto``). Both engines must report the same findings (checked).
Spark's driver JVM maps the class-data archive mqadmin keeps in ~/.cache/mqadmin/cds, made after the first
Spark run on the machine: a run that had none says so, and its detached dump is waited for before the next run.

Fleet scale, on the standalone cluster (engine ``cluster``), deleting the export afterwards::

    python bench/bench_audit.py --sizes 100000000 --engines cluster --delete-data --timeout 2400

reports besides the above each process's own peak memory (the driver's tree, each worker's executor, each
worker daemon), the export's size on disk and the peak size of the cluster's scratch (shuffle and work files).
Before generating, the data directory must have about 20 bytes per row free.

Bounds: each run has a time limit (--timeout) and a memory cap on its process tree (--mem-cap); a run
that exceeds either is stopped and reported as such rather than hidden.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MQADMIN = [sys.executable, "-m", "mqadmin"]
TICK = os.sysconf("SC_CLK_TCK")


def tree_usage(pid: int, cpu: dict[int, float], own: bool = True) -> int:
    """Resident bytes of ``pid`` and all its descendants (from /proc); records each one's CPU seconds so far
    (user + system) in ``cpu``, so the CPU of a JVM that exits before its parent is still counted."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    total, todo = 0, [pid] if own else list(children.get(pid, []))
    page = os.sysconf("SC_PAGE_SIZE")
    while todo:
        p = todo.pop()
        todo.extend(children.get(p, []))
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * page
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            cpu[p] = (int(fields[11]) + int(fields[12])) / TICK
        except (OSError, IndexError, ValueError):
            pass
    return total


def own_rss(pid: int) -> int:
    """Resident bytes of ``pid`` alone (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


def disk_usage(path: Path) -> int:
    """Bytes of the files under ``path`` (files vanishing meanwhile are skipped)."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


def run_measured(
    cmd: list[str],
    timeout: float,
    mem_cap: int,
    env: dict[str, str] | None = None,
    executors_of: list[int] = (),
    scratch: Path | None = None,
) -> dict[str, Any]:
    """Run ``cmd`` sampling its tree's memory and CPU time every 0.2 s; stop it past ``timeout`` or ``mem_cap``.
    CPU seconds (of every process of the tree, JVM included) do not depend on what else the shared machine
    runs, unlike wall time. ``executors_of``: Spark workers whose children (the run's executors) count too;
    the worker daemons themselves do not, but their own peak memory is reported apart (``peak_mb``: per
    process role: the driver's tree, each worker's executors, each worker daemon). ``scratch``: a directory
    whose peak size (Spark's shuffle and work files) is reported as ``scratch_peak_mb``, sampled every second."""
    load_before = os.getloadavg()[0]
    started = time.monotonic()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, env=env
    )
    peak, stopped, disk_peak = 0, None, 0
    roles: dict[str, int] = {}
    cpu: dict[int, float] = {}
    done = threading.Event()

    def sample() -> None:
        nonlocal peak, stopped, disk_peak
        ticks = 0
        while not done.wait(0.2):
            parts = {"driver": tree_usage(proc.pid, cpu)}
            for i, w in enumerate(executors_of):
                parts[f"executor-{i}"] = tree_usage(w, cpu, own=False)
                parts[f"worker-{i}"] = own_rss(w)
            for role, used in parts.items():
                roles[role] = max(roles.get(role, 0), used)
            rss = sum(v for k, v in parts.items() if not k.startswith("worker-"))
            peak = max(peak, rss)
            ticks += 1
            if scratch is not None and ticks % 5 == 0:
                disk_peak = max(disk_peak, disk_usage(scratch))
            if rss > mem_cap:
                stopped = f"memory above {mem_cap / 2**30:.1f} GiB"
            elif time.monotonic() - started > timeout:
                stopped = f"time above {timeout:.0f} s"
            if stopped:
                os.killpg(proc.pid, 9)
                return

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    done.set()
    sampler.join()
    return {
        "returncode": proc.returncode,
        "wall_s": round(time.monotonic() - started, 2),
        "peak_rss_mb": round(peak / 2**20),
        **({"peak_mb": {k: round(v / 2**20) for k, v in roles.items()}} if executors_of else {}),
        **({"scratch_peak_mb": round(disk_peak / 2**20)} if scratch is not None else {}),
        "cpu_s": round(sum(cpu.values()), 1),
        "load_before": round(load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
        "stopped": stopped,
        "stdout": out,
        "stderr": err[-2000:],
    }


BYTES_PER_ROW = 20
"""Free disk asked for per topic row before generating: an export takes about 7 bytes per topic row (gzip JSON
Lines and the Parquet copy; 67 MB at 10M rows), and the audit's shuffle files on a cluster need room too."""


def ensure_fleet(data: Path, rows: int, workers: int) -> tuple[Path, dict[str, Any]]:
    from mqadmin.audit.job import KEY_HASH

    # cached per format: an export generated before the Parquet copy had its keys is not what generateFleet
    # (and exportMetadata) write now
    target = data / f"rows-{rows}-{KEY_HASH}"
    manifest_path = target / "manifest.json"
    gen = None
    if not manifest_path.exists():
        data.mkdir(parents=True, exist_ok=True)
        free = shutil.disk_usage(data).free
        if free < rows * BYTES_PER_ROW:
            raise SystemExit(
                f"bench_audit: {rows:,} rows need about {rows * BYTES_PER_ROW / 2**30:.1f} GiB free in {data}; "
                f"{free / 2**30:.1f} GiB are (hint: --data elsewhere, or fewer --sizes)"
            )
        cmd = [*MQADMIN, "--format", "json", "generateFleet", "--out", str(target), "--rows", str(rows)]
        cmd += ["--workers", str(workers)]
        res = subprocess.run(cmd, capture_output=True, text=True, check=True)
        gen = json.loads(res.stdout)
    manifest = json.loads(manifest_path.read_text())
    topic_rows = manifest["tables"]["topics"]["rows"]
    info = {"topic_rows": topic_rows, "generate_s": gen["seconds"] if gen else None}
    return target, info | {"export_mb": round(disk_usage(target) / 2**20)}


def class_archive() -> Any:
    """The class-data archive ``mqadmin audit`` gives Spark's driver JVM (mqadmin/audit/classarchive.py), or None."""
    from mqadmin.audit.classarchive import spark_class_archive
    from mqadmin.audit.runner import resolve_java_home

    return spark_class_archive(resolve_java_home())


def wait_for_dump(archive: Any, timeout: float = 600) -> None:
    """A Spark run without the archive leaves a detached dump of its classes running: wait for it, so that it
    does not slow the next run."""
    deadline = time.monotonic() + timeout
    while archive.lock.exists() and time.monotonic() < deadline:
        time.sleep(1)


def findings_digest(path: Path) -> str:
    """Order-independent digest of (source, cluster, topic, broker, group, rule, message)."""
    keys = sorted(
        "\x00".join(str(f[k]) for k in ("source", "cluster", "topic", "broker", "group", "rule", "message"))
        for f in map(json.loads, path.read_text().splitlines())
    )
    return hashlib.sha256("\n".join(keys).encode()).hexdigest()[:16]


def audit(engine: str, fleet: Path, out: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One ``mqadmin audit`` run; engine ``cluster`` is Spark on a standalone cluster started for the run
    (a master and two 1-core workers on 127.0.0.1, tests/audit/standalone.py); its memory and CPU figures are
    the driver's and the executors' (not the master's and workers' daemons)."""
    cmd = [*MQADMIN, "--format", "json", "audit", str(fleet), "--out", str(out), "--top", "0"]
    cmd += ["--engine", "python" if engine == "python" else "spark"]
    if engine == "spark":
        cmd += ["--master", args.master]
    if engine != "python" and args.driver_memory:
        cmd += ["--driver-memory", args.driver_memory]
    if engine == "cluster":
        sys.path.insert(0, str(ROOT))
        from tests.audit.standalone import cluster_env, standalone_cluster

        scratch = Path(tempfile.mkdtemp(prefix="bench-spark-cluster-"))
        try:
            workers: list[int] = []
            with standalone_cluster(scratch, workers=2, memory=args.executor_memory, worker_pids=workers) as master:
                cmd += ["--master", master]
                conf = {
                    "SPARK_LOCAL_IP": "127.0.0.1",
                    "PYSPARK_SUBMIT_ARGS": f"--executor-memory {args.executor_memory} pyspark-shell",
                }
                env = cluster_env(scratch) | conf
                res = run_measured(cmd, args.timeout, int(args.mem_cap * 2**30), env, workers, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    else:
        archive = class_archive() if engine == "spark" else None
        had_archive = archive is not None and archive.path.exists()
        res = run_measured(cmd, args.timeout, int(args.mem_cap * 2**30))
        if archive is not None:
            res["class_archive"] = "used" if had_archive else "recorded"
            wait_for_dump(archive)
    row = {k: v for k, v in res.items() if k not in ("stdout", "stderr")}
    if res["returncode"] == 0:
        summary = json.loads(res["stdout"])
        row["audit_s"] = summary["elapsedS"]
        row["findings"] = summary["findings"]
        row["digest"] = findings_digest(out / "findings.jsonl")
    else:
        row["error"] = res["stderr"].strip().splitlines()[-1:] if res["stderr"].strip() else []
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000000,10000000", help="topic-row counts, comma-separated")
    parser.add_argument("--engines", default="spark,python", help="spark (local), python, cluster (standalone)")
    parser.add_argument("--executor-memory", default="1g", help="per worker of the standalone cluster")
    parser.add_argument("--data", type=Path, default=Path.home() / ".cache" / "mqadmin" / "bench-audit")
    parser.add_argument("--work", type=Path, default=ROOT / "bench" / "results" / "audit-work")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="generator processes")
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--driver-memory", default="3g", help="Spark heap (local mode: the whole job)")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per run")
    parser.add_argument("--mem-cap", type=float, default=20, help="GiB per run (process tree)")
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "bench_audit.json")
    parser.add_argument("--delete-data", action="store_true", help="remove each size's export after its runs")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    engines = args.engines.split(",")

    results: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "driver_memory": args.driver_memory,
        "master": args.master,
        "runs": [],
    }
    for rows in sizes:
        fleet, info = ensure_fleet(args.data, rows, args.workers)
        print(f"\n== {info['topic_rows']:,} topic rows ({fleet})", flush=True)
        if info["generate_s"] is not None:
            print(f"   generated in {info['generate_s']:.1f} s", flush=True)
        print(f"   export on disk: {info['export_mb']:,} MB", flush=True)
        for engine in engines:
            row = audit(engine, fleet, args.work / f"{rows}-{engine}", args)
            row |= {"size": rows, "engine": engine} | info
            if "audit_s" in row:
                row["rows_per_s"] = round(info["topic_rows"] / row["audit_s"])
            results["runs"].append(row)
            print("   " + _line(row), flush=True)
        if args.delete_data:
            shutil.rmtree(fleet)
    _report(results, sizes, engines)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nresults: {args.json}")
    return 0


def _line(r: dict[str, Any]) -> str:
    if "audit_s" not in r:
        why = r["stopped"] or f"exit {r['returncode']}: {' '.join(r.get('error', []))}"
        return f"{r['engine']:<6}  FAILED ({why}) after {r['wall_s']} s, peak {r['peak_rss_mb']} MB"
    archive = {"used": "  (class archive)", "recorded": "  (no class archive yet: recorded)"}.get(
        r.get("class_archive"), ""
    )
    roles = ""
    if "peak_mb" in r:  # a standalone cluster: each process's own peak, and the shuffle files' peak size
        roles = "\n          peak MB by process: " + ", ".join(f"{k} {v:,}" for k, v in r["peak_mb"].items())
        roles += f"; scratch (shuffle, work dirs) peak {r['scratch_peak_mb']:,} MB"
    return (
        f"{r['engine']:<6}  audit {r['audit_s']:>8.1f} s  wall {r['wall_s']:>8.1f} s  cpu {r['cpu_s']:>7.1f} s  "
        f"{r['rows_per_s']:>10,} rows/s  "
        f"peak {r['peak_rss_mb']:>6} MB  findings {r['findings']}  load {r['load_before']}->{r['load_after']}{archive}"
        f"{roles}"
    )


def _report(results: dict[str, Any], sizes: list[int], engines: list[str]) -> None:
    runs = {(r["size"], r["engine"]): r for r in results["runs"]}
    print("\n== side by side")
    for size in sizes:
        p = runs.get((size, "python"))
        for engine in ("spark", "cluster"):
            s = runs.get((size, engine))
            if s and p and "audit_s" in s and "audit_s" in p:
                same = "same findings" if s["digest"] == p["digest"] else "FINDINGS DIFFER"
                ratio = s["rows_per_s"] / p["rows_per_s"]
                print(
                    f"   {size:>11,} rows: {engine}/python throughput = {ratio:.2f}x ({same}); wall "
                    f"{p['wall_s'] / s['wall_s']:.2f}x; CPU seconds spark {s['cpu_s']} / python {p['cpu_s']}"
                )
                key = str(size) if engine == "spark" else f"{size}-cluster"
                results.setdefault("ratios", {})[key] = round(ratio, 3)
    _crossover(results, sizes, runs)
    if len(sizes) >= 2:
        lo, hi = min(sizes), max(sizes)
        for engine in engines:
            a, b = runs.get((lo, engine)), runs.get((hi, engine))
            if a and b and "audit_s" in a and "audit_s" in b:
                growth = b["audit_s"] / a["audit_s"]
                print(f"   {engine}: {lo:,} -> {hi:,} rows ({hi / lo:.0f}x): time x{growth:.2f}")
                results.setdefault("growth", {})[engine] = round(growth, 3)


def _crossover(results: dict[str, Any], sizes: list[int], runs: dict[tuple[int, str], dict[str, Any]]) -> None:
    """The smallest size at which Spark's wall time (what a user waits, JVM start included) beat Python's:
    what ``mqadmin audit --engine auto`` uses as its threshold (mqadmin/audit/runner.py AUTO_SPARK_ROWS)."""
    measured = [
        (runs[(n, "python")]["wall_s"], runs[(n, "spark")]["wall_s"], n)
        for n in sorted(sizes)
        if "audit_s" in runs.get((n, "python"), {}) and "audit_s" in runs.get((n, "spark"), {})
    ]
    if not measured:
        return
    first = next((n for py, sp, n in measured if sp < py), None)
    results["spark_faster_from"] = first
    if first is None:
        print(f"   python was faster at every size up to {measured[-1][2]:,} rows (wall time)")
    else:
        print(f"   spark was first faster at {first:,} rows (wall time)")


if __name__ == "__main__":
    sys.exit(main())
