"""What one Tab costs: the completion request run as the shell scripts run it (``mqadmin`` with
``_MQADMIN_COMPLETE`` set, a new process per Tab), against the interpreter's own start.

    python bench/bench_completion.py              # 20 rounds each
    python bench/bench_completion.py --rounds 50

Measured, N rounds each, median and spread of wall times and the ratio to the floor:
  floor     ``python -c pass``: what any Python completion pays before doing anything
  command   ``mqadmin updateTo<Tab>`` (command names, no cluster)
  cached    ``mqadmin topicRoute -n ADDR -t Pay<Tab>`` with the names already in the cache
  live      the same with an empty cache each round: a lookup against an answering embedded cluster
The cluster is ``mqadmin dev up`` on free loopback ports; the topic and group are created first. The machine may
be shared: the load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

MQADMIN = Path(sys.executable).parent / "mqadmin"


def run_dev_up(data_dir: Path) -> tuple[subprocess.Popen[str], str]:
    cmd = [sys.executable, "-m", "mqadmin", "--format", "json", "dev", "up", "--namesrv-port", "0",
           "--broker-port", "0", "--data-dir", str(data_dir)]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return proc, json.loads(proc.stdout.readline())["namesrvAddr"]  # type: ignore[union-attr]


def timed(argv: list[str], env: dict[str, str], expect: str | None) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    wall = time.perf_counter() - start
    if done.returncode != 0 or (expect is not None and expect not in done.stdout.splitlines()):
        sys.exit(f"bench_completion: {argv[1:]} answered {done.stdout!r} (stderr {done.stderr!r}), not {expect!r}")
    return wall


def measure(rounds: int, one: Callable[[], float]) -> list[float]:
    one()  # warm the page cache and the compiled bytecode
    return [one() for _ in range(rounds)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-completion-"))
    home = work / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("NAMESRV_ADDR", "MQADMIN_PROFILE", "XDG_CACHE_HOME")}
    env["HOME"] = str(home)
    proc, addr = run_dev_up(work / "data")
    try:
        for create in (["updateTopic", "-t", "Payments"], ["updateSubGroup", "-g", "PayGroup"]):
            subprocess.run([str(MQADMIN), *create, "-c", "DefaultCluster", "-n", addr], env=env, check=True,
                           capture_output=True)  # fmt: skip
        ask = [str(MQADMIN), "topicRoute", "-n", addr, "-t", "Pay"]
        zsh = dict(env, _MQADMIN_COMPLETE="zsh")
        cache = home / ".cache" / "mqadmin" / "completion"

        def live() -> float:
            shutil.rmtree(cache, ignore_errors=True)
            return timed(ask, zsh, "Payments")

        results = {
            "floor": measure(args.rounds, lambda: timed([sys.executable, "-c", "pass"], env, None)),
            "command": measure(args.rounds, lambda: timed([str(MQADMIN), "updateTo"], zsh, "updateTopic")),
            "cached": measure(args.rounds, lambda: timed(ask, zsh, "Payments")),
            "live": measure(args.rounds, live),
        }
    finally:
        proc.terminate()
        proc.wait(30)
        shutil.rmtree(work, ignore_errors=True)
    floor = statistics.median(results["floor"])
    print(f"{args.rounds} rounds each; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'case':<10}{'median ms':>11}{'min ms':>9}{'max ms':>9}{'x floor':>9}")
    for name, walls in results.items():
        med = statistics.median(walls)
        print(f"{name:<10}{med * 1000:>11.1f}{min(walls) * 1000:>9.1f}{max(walls) * 1000:>9.1f}{med / floor:>9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
