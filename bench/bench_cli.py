"""Our CLI's start-up and one-request commands against the Java mqadmin, side by side, on one warm cluster.

Starts a real Apache RocketMQ cluster (one name server, two masters; full JIT, as in production) with the
test harness, then runs each case N times with each tool, interleaved (run 1 of every tool and case, then
run 2, …) so that all of them see the same machine load:

* ``floor``: ``python -c pass`` under the same interpreter (what no Python CLI can beat);
* ``ours``: our package laid out as a wheel install would be (a new virtualenv reaching this environment's
  dependencies, pip's console script; ``--editable``: this environment's own script), run from an empty
  directory;
* ``before`` (with ``--before DIR``): the same, with the ``mqadmin`` package of another checkout
  (``git worktree add /tmp/before main``) first on ``PYTHONPATH``: before/after in one run;
* ``java``: Java mqadmin of ``--version`` (its ``help updateTopic`` for ``--help``).

With ``--embedded`` the cluster is our embedded one (a name server and two brokers, one process each) and
Java mqadmin is left out: a quick before/after of our own start-up, without starting a JVM.

Cases: ``--help``, ``topicList``, ``clusterList`` and ``updateTopic -c`` (a new topic per run, so
every run creates one on both masters). Prints the median and minimum wall time, the median CPU time
(user + system, all threads: on a loaded machine it moves far less than wall time), the tool's peak
RSS, the ratios Java / ours and before / ours, the load average before and after, and the goals of
issue 12: a one-request command at most 0.12 s and ``--help`` at most 0.15 s (on a quiet machine),
``clusterList`` and ``updateTopic -c`` at least 15 times faster than Java mqadmin.

    python bench/bench_cli.py --runs 15
    python bench/bench_cli.py --runs 15 --before /tmp/before --out bench/results/cli.json
    python bench/bench_cli.py --runs 15 --before /tmp/before --embedded

Our runs use compiled bytecode, as an installed package does: the source trees are compiled first
and PYTHONDONTWRITEBYTECODE is removed from their environment (with it set, every run would compile
every module again). Each run is measured in a small helper process that starts the tool and reads
the tool's own peak RSS from ``getrusage(RUSAGE_CHILDREN)``; the helper's start-up is not counted.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

ONE_REQUEST_GOAL_S = 0.12
HELP_GOAL_S = 0.15
SPEEDUP_GOAL = 15.0
CASES = ("--help", "topicList", "clusterList", "updateTopic -c")
SERVER_JIT_OPTS = {"full": ["-XX:TieredStopAtLevel=4"], "c1": []}
"""The test harness limits its JVMs to C1 (fast start). A C1-only 5.x broker answers GET_BROKER_RUNTIME_INFO in
100-300 ms (its timer wheel is walked slot by slot to count congestion), a stock one in about 25 ms; clusterList
waits for that answer, so the servers run with their full JIT, as in production, unless ``--server-jit c1``."""
STOCK_JVM = ["-server", "-Xms1g", "-Xmx1g", "-Xmn256m", "-XX:MetaspaceSize=128m", "-XX:MaxMetaspaceSize=128m"]
"""The heap flags of the distribution's bin/tools.sh. Without --stock-jvm, Java mqadmin runs with the test
harness's start-up-tuned flags (small heap, C1 only), i.e. at its fastest."""


CONSOLE_SCRIPT = """\
#!{python}
import re
import sys
try:
    from mqadmin.cli import console
except ImportError:  # --before: a checkout from before the console entry point
    from mqadmin.cli import run as console
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(console())
"""
"""The console script pip writes for ``[project.scripts]`` (``mqadmin.cli:console``; its ``import re`` included),
falling back to ``run``, the entry point of checkouts measured with ``--before`` that have no ``console``."""


def install_ours(into: Path) -> Path:
    """Lay our package out as a wheel install would, in a new virtualenv ``into``: the package and its bytecode
    in site-packages, this environment's dependencies reached through a plain path line in a ``.pth`` file, and
    pip's console script. A development checkout's editable install instead runs setuptools' import finder at
    every start (pathlib, importlib.util, fnmatch: about 15 ms); a user's install has none. Returns the script."""
    import shutil
    import sysconfig
    import venv

    venv.EnvBuilder(with_pip=False).create(into)
    python = into / "bin" / "python"
    site = Path(subprocess.check_output([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                        text=True).strip())  # fmt: skip
    shutil.copytree(REPO / "mqadmin", site / "mqadmin", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    compileall.compile_dir(str(site / "mqadmin"), quiet=1)
    (site / "mqadmin-bench-deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    script = into / "bin" / "mqadmin"
    script.write_text(CONSOLE_SCRIPT.format(python=python))
    script.chmod(0o755)
    return script


_OURS: list[str] = []
"""Set by ``main`` (``--ours-script``) in the helper processes: our CLI as installed by ``install_ours``."""


def ours_argv() -> list[str]:
    """Our CLI: the installed layout of ``install_ours``, else this environment's script (``python -m mqadmin``)."""
    if _OURS:
        return list(_OURS)
    script = Path(sys.executable).with_name("mqadmin")
    return [str(script)] if script.exists() else [sys.executable, "-m", "mqadmin"]


def ours_env(src: str | None = None) -> dict[str, str]:
    """The environment of our runs: bytecode caching on, and ``src``'s package first when given."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if src:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    return env


def _typer_version() -> str:
    from importlib.metadata import version

    return version("typer")


def case_args(case: str, namesrv: str, cluster: str) -> tuple[list[str], list[str]]:
    """(our argv tail, Java mqadmin args) for one run of a case."""
    if case == "--help":
        return ["--help"], ["help", "updateTopic"]  # Java mqadmin has no global --help; this is its nearest
    if case in ("topicList", "clusterList"):
        return [case, "-n", namesrv], [case, "-n", namesrv]
    topic = f"BenchCli_{uuid.uuid4().hex[:12]}"
    tail = ["-n", namesrv, "-c", cluster, "-t", topic]
    return ["updateTopic", *tail], ["updateTopic", *tail]


def child(tool: str, version: str, args: list[str], stock_jvm: bool, src: str | None) -> None:
    """Helper-process entry: run one tool invocation, print wall time, CPU time and peak RSS as JSON."""
    if tool == "java":
        from tests.realrmq.apache import java_mqadmin

        t0 = time.perf_counter()
        # quick_exit=False: Java mqadmin ends as operators see it end, not as the test suite hurries it
        done = java_mqadmin(version, args, java_opts=STOCK_JVM if stock_jvm else (), quick_exit=False)
    else:
        python = Path(_OURS[0]).with_name("python") if _OURS else sys.executable  # the interpreter ours runs on
        argv = [str(python), "-c", "pass"] if tool == "floor" else [*ours_argv(), *args]
        with tempfile.TemporaryDirectory(prefix="bench-cli-") as cwd:  # nothing importable from the cwd
            t0 = time.perf_counter()
            done = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=ours_env(src))
    wall = time.perf_counter() - t0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    rss_kb = usage.ru_maxrss
    print(
        json.dumps(
            {
                "wall": wall,
                "cpu": usage.ru_utime + usage.ru_stime,
                "rss_kb": rss_kb,
                "code": done.returncode,
                "out": done.stdout[-400:],
                "err": done.stderr[-400:],
            }
        )
    )


def measure(
    tool: str, version: str, args: list[str], stock_jvm: bool, src: str | None = None, *, check: bool = True
) -> dict:
    """One run in a helper process; a failed run ends the benchmark, or with ``check=False`` is marked failed."""
    cmd = [sys.executable, __file__, "--child", tool, "--version", version, *(["--stock-jvm"] if stock_jvm else [])]
    cmd += [*(["--src", src] if src else []), *(["--ours-script", _OURS[0]] if _OURS else []), "--", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    ok = result["code"] == 0 and ("success" in result["out"] if tool == "java" and args[0] == "updateTopic" else True)
    if not ok and check:
        raise SystemExit(f"{tool} {' '.join(args)} failed: {result['out']} {result['err']}")
    if not ok:
        print(f"  {tool} {' '.join(args)} failed: {(result['out'] + result['err']).strip()[-200:]}", file=sys.stderr)
    return {**result, "ok": ok}


def summarise(samples: list[dict]) -> dict:
    """Median and minimum of the runs that succeeded (a failed run is counted, not timed)."""
    good = [s for s in samples if s.get("ok", True)] or samples
    walls = [s["wall"] for s in good]
    return {
        "median_s": statistics.median(walls),
        "min_s": min(walls),
        "cpu_median_s": statistics.median(s.get("cpu", 0.0) for s in good),
        "peak_rss_mb": max(s["rss_kb"] for s in good) / 1024,
        "runs": len(samples),
        "failed": len(samples) - len([s for s in samples if s.get("ok", True)]),
    }


def compile_sources(*trees: Path) -> None:
    """Write the bytecode an installed package would have, so that no run compiles."""
    for tree in trees:
        compileall.compile_dir(str(tree / "mqadmin"), quiet=1)


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.2f} (1 min) {five:.2f} (5 min) on {os.cpu_count()} CPUs"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--version", default="5.5.0", help="Apache RocketMQ version (5.5.0, 5.3.3 or 4.9.8)")
    parser.add_argument("--before", type=Path, help="a checkout whose mqadmin package is measured as 'before'")
    parser.add_argument("--cases", default=",".join(CASES), help=f"comma-separated subset of {', '.join(CASES)}")
    parser.add_argument("--out", type=Path, help="also write the figures as JSON here (e.g. bench/results/cli.json)")
    parser.add_argument("--stock-jvm", action="store_true", help="run Java mqadmin with tools.sh's 1 GiB heap flags")
    parser.add_argument(
        "--server-jit",
        choices=tuple(SERVER_JIT_OPTS),
        default="full",
        help="the name server's and brokers' JIT: full (as they run in production; default) or c1 (the test harness's)",
    )
    parser.add_argument(
        "--editable", action="store_true", help="run this environment's mqadmin script (a checkout's editable install)"
    )
    parser.add_argument(
        "--embedded", action="store_true", help="run against our embedded cluster, without Java (ours and before only)"
    )
    parser.add_argument("--ours-script", help=argparse.SUPPRESS)
    parser.add_argument("--child", choices=["floor", "ours", "before", "java"], help=argparse.SUPPRESS)
    parser.add_argument("--src", help=argparse.SUPPRESS)
    parser.add_argument("args", nargs="*", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.ours_script:
        _OURS.append(opts.ours_script)
    if opts.child:
        child(opts.child, opts.version, opts.args, opts.stock_jvm, opts.src)
        return 0
    cases = [c.strip() for c in opts.cases.split(",") if c.strip()]
    if unknown := set(cases) - set(CASES):
        parser.error(f"unknown case {sorted(unknown)[0]!r} (known: {', '.join(CASES)})")
    if opts.before and not (opts.before / "mqadmin" / "__init__.py").exists():
        parser.error(f"--before {opts.before}: no mqadmin package there")

    from tests.realrmq.apache import skip_reason

    reason = None if opts.embedded else skip_reason(opts.version)
    if reason:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 1
    compile_sources(REPO, *([opts.before] if opts.before else []))
    scratch = tempfile.TemporaryDirectory(prefix="bench-cli-install-")
    if not opts.editable:
        _OURS.append(str(install_ours(Path(scratch.name) / "venv")))
    tools = ["floor", "ours", *(["before"] if opts.before else []), *([] if opts.embedded else ["java"])]
    samples: dict[str, dict[str, list[dict]]] = {c: {t: [] for t in tools if t != "floor"} for c in cases}
    samples["python -c pass"] = {"floor": []}
    with scratch, _cluster(opts, scratch.name) as cluster:
        what = "embedded cluster" if opts.embedded else f"Apache RocketMQ {opts.version}"
        print(f"{what}: name server {cluster.namesrv_addr}, brokers {cluster.broker_addrs}")
        print(f"ours: {' '.join(ours_argv())} (typer {_typer_version()}, Python {sys.version.split()[0]})")
        if opts.before:
            print(f"before: the same with PYTHONPATH={opts.before}")
        if not opts.embedded:
            print(f"java: {'tools.sh heap flags' if opts.stock_jvm else 'test-harness flags (small heap, C1 only)'}")
        print(f"servers: {opts.server_jit} JIT; ours: {'editable install' if opts.editable else 'installed layout'}")
        load_before = _load()
        print(f"load average at the start: {load_before}")
        for i in range(opts.runs):
            samples["python -c pass"]["floor"].append(measure("floor", opts.version, [], opts.stock_jvm))
            for case in cases:
                for tool in samples[case]:
                    ours, java = case_args(case, cluster.namesrv_addr, cluster.cluster)  # updateTopic: a new topic
                    args = java if tool == "java" else ours
                    src = str(opts.before) if tool == "before" else None
                    samples[case][tool].append(measure(tool, opts.version, args, opts.stock_jvm, src, check=False))
            print(f"  round {i + 1}/{opts.runs} done; load {os.getloadavg()[0]:.2f}", file=sys.stderr)
        load_after = _load()
    figures = {case: {tool: summarise(s) for tool, s in by_tool.items()} for case, by_tool in samples.items()}
    report(figures, opts.runs, load_before, load_after)
    if opts.out:
        opts.out.parent.mkdir(parents=True, exist_ok=True)
        meta = {
            "version": opts.version,
            "typer": _typer_version(),
            "python": sys.version.split()[0],
            "stock_jvm": opts.stock_jvm,
            "server_jit": opts.server_jit,
            "ours": "editable install" if opts.editable else "installed layout",
            "runs": opts.runs,
            "load_start": load_before,
            "load_end": load_after,
        }
        opts.out.write_text(json.dumps({**meta, "figures": figures}, indent=2) + "\n")
    return 0


def _cluster(opts: argparse.Namespace, scratch: str) -> Any:
    """The cluster the commands talk to: Apache RocketMQ's, or with ``--embedded`` ours."""
    if opts.embedded:
        from tests.devprocs import EmbeddedCluster

        return EmbeddedCluster(Path(scratch) / "cluster")
    from tests.realrmq.apache import ApacheCluster

    return ApacheCluster(opts.version, brokers=2, java_opts=SERVER_JIT_OPTS[opts.server_jit])


def _ratio(by_tool: dict[str, dict], slower: str, key: str, digits: int) -> str:
    if slower not in by_tool or "ours" not in by_tool:
        return ""
    return f"{by_tool[slower][key] / by_tool['ours'][key]:.{digits}f}x"


def report(figures: dict[str, dict[str, dict]], runs: int, load_before: str, load_after: str) -> None:
    print(f"\nmedian of {runs} runs each, interleaved; wall and CPU (user + system) time of the whole process")
    header = f"{'case':<16} {'tool':<7} {'wall s':>7} {'min s':>7} {'CPU s':>7} {'RSS MB':>7}"
    print(f"{header} {'java/ours wall':>15} {'CPU':>6} {'before/ours wall':>17} {'CPU':>6} {'failed':>7}")
    verdicts = []
    for case, by_tool in figures.items():
        for tool, f in by_tool.items():
            ratios = ["", "", "", ""]
            if tool == "ours":
                ratios = [
                    _ratio(by_tool, "java", "median_s", 1),
                    _ratio(by_tool, "java", "cpu_median_s", 1),
                    _ratio(by_tool, "before", "median_s", 2),
                    _ratio(by_tool, "before", "cpu_median_s", 2),
                ]
            print(
                f"{case:<16} {tool:<7} {f['median_s']:>7.3f} {f['min_s']:>7.3f} {f['cpu_median_s']:>7.3f}"
                f" {f['peak_rss_mb']:>7.1f} {ratios[0]:>15} {ratios[1]:>6} {ratios[2]:>17} {ratios[3]:>6}"
                f" {f['failed'] or '':>7}"
            )
        ours = by_tool.get("ours")
        if ours is None:
            continue
        goal_s = HELP_GOAL_S if case == "--help" else ONE_REQUEST_GOAL_S
        verdicts.append((f"{case} at most {goal_s}s (median {ours['median_s']:.3f}s)", ours["median_s"] <= goal_s))
        if case in ("clusterList", "updateTopic -c") and "java" in by_tool:
            ratio = by_tool["java"]["median_s"] / ours["median_s"]
            verdicts.append(
                (f"{case} at least {SPEEDUP_GOAL:g}x faster than Java ({ratio:.1f}x)", ratio >= SPEEDUP_GOAL)
            )
    print(f"\nload average at the start: {load_before}; at the end: {load_after}")
    for goal, met in verdicts:
        print(f"{'met   ' if met else 'MISSED'}  {goal}")
    print("(the time goals are for a quiet machine; compare with the python -c pass floor of the same run)")


if __name__ == "__main__":
    sys.exit(main())
