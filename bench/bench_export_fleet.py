"""exportMetadata from many embedded clusters at once: time against the number of clusters.

    python bench/bench_export_fleet.py                          # 1, 5, 10 and 20 clusters
    python bench/bench_export_fleet.py --sizes 1,10,50 --concurrency 16

Starts the largest number of ``mqadmin dev up`` clusters (a name server and two brokers each, every one on
127.0.0.1 with ports of its own), then for each size writes a fleet file naming that many of them and runs
``mqadmin exportMetadata --fleet FILE --out DIR --concurrency C`` as a user does, in its own process.
Reported per size: wall time, clusters per second, the export's status and topic rows (every cluster must be
collected whole: a partial export is reported as such), and the load average (the machine may be shared).
Every cluster is stopped and its data removed at the end, also on an error or Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MQADMIN = [sys.executable, "-m", "mqadmin"]


def export(clusters: list[str], work: Path, concurrency: int, timeout: float) -> dict[str, object]:
    fleet = work / f"fleet-{len(clusters)}.toml"
    fleet.write_text("".join(f'[clusters.c{i:03d}]\nnamesrv = "{ns}"\n\n' for i, ns in enumerate(clusters)))
    out = work / f"export-{len(clusters)}"
    cmd = [*MQADMIN, "--format", "json", "exportMetadata", "--fleet", str(fleet), "--out", str(out)]
    cmd += ["--concurrency", str(concurrency)]
    load = os.getloadavg()[0]
    started = time.monotonic()
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    wall = time.monotonic() - started
    row: dict[str, object] = {"clusters": len(clusters), "wall_s": round(wall, 2), "returncode": res.returncode}
    row["load"] = f"{load:.1f}->{os.getloadavg()[0]:.1f}"
    if res.stdout.strip():
        doc = json.loads(res.stdout)
        row["status"] = doc["status"]
        row["topic_rows"] = sum(s["topicRows"] for s in doc["sources"])
    else:
        row["error"] = res.stderr.strip().splitlines()[-1:]
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1,5,10,20", help="cluster counts, comma-separated")
    parser.add_argument("--concurrency", type=int, default=16, help="exportMetadata --concurrency")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per export")
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "bench_export_fleet.json")
    args = parser.parse_args()
    sizes = sorted({int(s) for s in args.sizes.split(",")})

    sys.path.insert(0, str(ROOT))
    from tests.audit.test_e2e_embedded import DevCluster

    work = Path(tempfile.mkdtemp(prefix="bench-export-fleet-"))
    running: list[DevCluster] = []
    results = []
    try:
        started = time.monotonic()
        for i in range(sizes[-1]):
            running.append(DevCluster(work / f"data-{i}"))
        print(f"started {len(running)} clusters in {time.monotonic() - started:.1f} s", flush=True)
        for n in sizes:
            row = export([c.namesrv for c in running[:n]], work, args.concurrency, args.timeout)
            results.append(row)
            rate = n / float(row["wall_s"])  # type: ignore[arg-type]
            print(f"  {n:4d} clusters  {row['wall_s']:7.2f} s  {rate:6.2f} clusters/s  "
                  f"status {row.get('status', row.get('error'))}  topic rows {row.get('topic_rows')}  "
                  f"load {row['load']}", flush=True)  # fmt: skip
    finally:
        for c in running:
            c.stop()
        shutil.rmtree(work, ignore_errors=True)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"concurrency": args.concurrency, "runs": results}, indent=2) + "\n")
    print(f"results: {args.json}")
    return 0 if all(r.get("status") == "ok" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
