"""Our CLI against the Java mqadmin, side by side, on the same real Apache RocketMQ cluster.

Starts a real cluster (one name server, two masters) with the test harness, then runs each case N
times with each tool: a cold ``--help``, ``clusterList`` and ``updateTopic -c`` (a new topic per run,
so every run creates). Prints the median and minimum wall time, the peak resident memory of the
tool's process and the ratio Java / ours.

    python bench/bench_cli.py --runs 5 --version 5.3.3

Each run is measured in a small helper process that starts the tool and reads the tool's own peak
RSS from ``getrusage(RUSAGE_CHILDREN)``; the helper's start-up is not counted.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

HELP_GOAL_S = 0.3
STOCK_JVM = ["-server", "-Xms1g", "-Xmx1g", "-Xmn256m", "-XX:MetaspaceSize=128m", "-XX:MaxMetaspaceSize=128m"]
"""The heap flags of the distribution's bin/tools.sh. Without --stock-jvm, Java mqadmin runs with the test
harness's start-up-tuned flags (small heap, C1 only), i.e. at its fastest."""
SPEEDUP_GOAL = 10.0


def ours_argv() -> list[str]:
    """Our CLI under this interpreter (so a bench run from another virtualenv measures that one)."""
    return [sys.executable, "-m", "mqadmin"]


def _typer_version() -> str:
    from importlib.metadata import version

    return version("typer")


def case_args(case: str, namesrv: str, cluster: str) -> tuple[list[str], list[str]]:
    """(our argv tail, Java mqadmin args) for one run of a case."""
    if case == "--help":
        return ["--help"], ["help", "updateTopic"]  # Java mqadmin has no global --help; this is its nearest
    if case == "clusterList":
        return ["clusterList", "-n", namesrv], ["clusterList", "-n", namesrv]
    topic = f"BenchCli_{uuid.uuid4().hex[:12]}"
    tail = ["-n", namesrv, "-c", cluster, "-t", topic]
    return ["updateTopic", *tail], ["updateTopic", *tail]


def child(tool: str, version: str, args: list[str], stock_jvm: bool) -> None:
    """Helper-process entry: run one tool invocation, print wall time and peak RSS as JSON."""
    t0 = time.perf_counter()
    if tool == "ours":
        done = subprocess.run([*ours_argv(), *args], capture_output=True, text=True)
    else:
        from tests.realrmq.apache import java_mqadmin

        done = java_mqadmin(version, args, java_opts=STOCK_JVM if stock_jvm else ())
    wall = time.perf_counter() - t0
    rss_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(
        json.dumps(
            {
                "wall": wall,
                "rss_kb": rss_kb,
                "code": done.returncode,
                "out": done.stdout[-400:],
                "err": done.stderr[-400:],
            }
        )
    )


def measure(tool: str, version: str, args: list[str], stock_jvm: bool) -> dict:
    cmd = [sys.executable, __file__, "--child", tool, "--version", version, *(["--stock-jvm"] if stock_jvm else [])]
    cmd += ["--", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    ok = result["code"] == 0 and ("success" in result["out"] if tool == "java" and args[0] == "updateTopic" else True)
    if not ok:
        raise SystemExit(f"{tool} {' '.join(args)} failed: {result['out']} {result['err']}")
    return result


def summarise(samples: list[dict]) -> dict:
    walls = [s["wall"] for s in samples]
    return {
        "median_s": statistics.median(walls),
        "min_s": min(walls),
        "peak_rss_mb": max(s["rss_kb"] for s in samples) / 1024,
        "runs": len(samples),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--version", default="5.3.3", help="Apache RocketMQ version (5.3.3 or 4.9.8)")
    parser.add_argument("--out", type=Path, help="also write the figures as JSON here (e.g. bench/results/cli.json)")
    parser.add_argument("--stock-jvm", action="store_true", help="run Java mqadmin with tools.sh's 1 GiB heap flags")
    parser.add_argument("--child", choices=["ours", "java"], help=argparse.SUPPRESS)
    parser.add_argument("args", nargs="*", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.child:
        child(opts.child, opts.version, opts.args, opts.stock_jvm)
        return 0

    from tests.realrmq.apache import ApacheCluster, skip_reason

    reason = skip_reason(opts.version)
    if reason:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 1
    figures: dict[str, dict[str, dict]] = {}
    with ApacheCluster(opts.version, brokers=2) as cluster:
        print(f"Apache RocketMQ {opts.version}: name server {cluster.namesrv_addr}, brokers {cluster.broker_addrs}")
        print(f"ours: {' '.join(ours_argv())} (typer {_typer_version()}); load average {os.getloadavg()[0]:.1f}")
        print(f"java: {'tools.sh heap flags' if opts.stock_jvm else 'test-harness flags (small heap, C1 only)'}")
        for case in ("--help", "clusterList", "updateTopic -c"):
            samples: dict[str, list[dict]] = {"ours": [], "java": []}
            for _ in range(opts.runs):  # interleaved, so both tools see the same machine load
                ours, java = case_args(case, cluster.namesrv_addr, cluster.cluster)
                samples["ours"].append(measure("ours", opts.version, ours, opts.stock_jvm))
                samples["java"].append(measure("java", opts.version, java, opts.stock_jvm))
            figures[case] = {tool: summarise(s) for tool, s in samples.items()}

    print(f"\n{'case':<16} {'tool':<5} {'median s':>9} {'min s':>7} {'peak RSS MB':>12} {'java/ours':>10}")
    verdicts = []
    for case, by_tool in figures.items():
        ratio = by_tool["java"]["median_s"] / by_tool["ours"]["median_s"]
        for tool in ("ours", "java"):
            f = by_tool[tool]
            shown = f"{ratio:.1f}x" if tool == "ours" else ""
            print(
                f"{case:<16} {tool:<5} {f['median_s']:>9.3f} {f['min_s']:>7.3f} {f['peak_rss_mb']:>12.1f} {shown:>10}"
            )
        if case == "--help":
            verdicts.append((f"--help under {HELP_GOAL_S}s", by_tool["ours"]["median_s"] < HELP_GOAL_S))
        else:
            verdicts.append((f"{case} at least {SPEEDUP_GOAL:g}x faster than Java", ratio >= SPEEDUP_GOAL))
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f} ({os.cpu_count()} CPUs)")
    for goal, met in verdicts:
        print(f"{'met ' if met else 'MISSED'}  {goal}")
    if opts.out:
        opts.out.parent.mkdir(parents=True, exist_ok=True)
        meta = {"version": opts.version, "typer": _typer_version(), "stock_jvm": opts.stock_jvm}
        opts.out.write_text(json.dumps({**meta, "figures": figures}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
