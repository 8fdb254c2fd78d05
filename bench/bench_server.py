"""Our embedded cluster (``mqadmin dev up``) against the Apache RocketMQ servers, side by side.

Three parts, each run against our server and the Java servers from the jars (4.9.8 and 5.3.3,
started with tests/realrmq/apache.py), everything on 127.0.0.1:

* ``startup``: time from launching the processes until the name server answers and every broker
  is registered (GET_BROKER_CLUSTER_INFO polled every 10 ms), and resident memory (VmRSS summed
  over the server processes) at that moment and 1 s later; median of ``--reps`` starts.
* ``send``: synchronous sends of ``--body`` byte messages by the real Java client
  (rocketmq-client 4.9.8 DefaultMQProducer, bench/java/SendBench.java) from each of
  ``--threads`` concurrent threads of one JVM, to a topic pre-created with 8 queues; msgs/s and
  latency percentiles over a ``--duration`` window after a ``--warmup``, plus the CPU used by the
  server and by the client in that window (to see which side is the bottleneck).
* ``topics``: ``--topics`` UPDATE_AND_CREATE_TOPIC (17) requests to one broker, ``--concurrency``
  in flight on one connection; topics/s. For our broker the process is then killed with SIGKILL
  and restarted on the same data directory, and GET_ALL_TOPIC_CONFIG must list every acknowledged
  topic. The Java brokers rewrite topics.json in full per topic, so their run stops issuing new
  requests after ``--java-topics-seconds``.

    python bench/bench_server.py                       # everything, a few minutes on 2 cores
    python bench/bench_server.py --parts send --targets ours,java4 --threads 16 --duration 20
    python bench/bench_server.py --parts send --targets ours --profile   # + py-spy hot functions

The table is printed and saved to bench/results/server-<date>.txt (git-ignored).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import io
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mqadmin.admin import AdminClient  # noqa: E402
from mqadmin.model.rpc.topics import CreateTopicHeader  # noqa: E402
from mqadmin.model.topic import TopicConfig  # noqa: E402
from mqadmin.transport.tcp import TcpTransport  # noqa: E402
from mqadmin.wire import fastjson  # noqa: E402
from mqadmin.wire.codes import RequestCode, ResponseCode  # noqa: E402
from mqadmin.wire.frame import RemotingCommand  # noqa: E402
from tests.peers import harness  # noqa: E402
from tests.realrmq import apache  # noqa: E402

BENCH = REPO / "bench"
JAVA_BENCH_DIR = BENCH / "java"
CLUSTER = "DefaultCluster"
SEND_TOPIC = "BenchSendTopic"
TOPIC_PREFIX = "BenchTopic"
READY_TIMEOUT = 90.0
POLL = 0.01
JAVA_JIT_OPTS = {"full": ["-XX:TieredStopAtLevel=4"], "c1": []}
"""The harness limits its JVMs to C1 for quick tests (``c1``); by default the benchmark gives the Java
servers their full JIT (``--java-jit full``)."""
CLK_TCK = os.sysconf("SC_CLK_TCK")
TARGETS = {"ours": "ours", "java4": apache.V4, "java5": apache.V5}


# --------------------------------------------------------------------------- /proc helpers


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = Path(f"/proc/{entry}/stat").read_text()
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


def rss_mib(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total / 1024


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of the processes (all their threads)."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    return total / CLK_TCK


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields[:8]) - idle) / CLK_TCK, sum(fields[:8]) / CLK_TCK


def wait_quiet(max_wait: float, threshold: float = 0.25) -> str:
    """Wait (at most ``max_wait`` s) until the machine's other work uses under ``threshold`` of a core,
    measured over 1 s; returns a note with what was seen. Other benchmarks or test suites running at
    the same time would distort every figure."""
    t0 = time.monotonic()
    while True:
        b0, _ = machine_busy()
        time.sleep(1.0)  # measurement interval
        b1, _ = machine_busy()
        used = b1 - b0
        waited = time.monotonic() - t0
        if used < threshold or waited >= max_wait:
            quiet = "quiet" if used < threshold else "STILL BUSY"
            return f"{quiet}: other processes used {100 * used:.0f}% of a core (after {waited:.0f} s wait)"


def free_port(spaced: int = 1, step: int = 10) -> int:
    """A loopback port P such that P + i*step is free for i < spaced (checked, not reserved)."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port + step * spaced > 65535:
            continue
        ok = True
        for i in range(1, spaced):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port + step * i))
                except OSError:
                    ok = False
        if ok:
            return port
    raise RuntimeError("no free loopback ports")


def poll(cond: Callable[[], bool], timeout: float, what: str, alive: Callable[[], bool]) -> None:
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(OSError, ValueError, apache.RocketMQHarnessError):
            if cond():
                return
        if not alive():
            raise RuntimeError(f"{what}: the server process exited")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: not ready after {timeout:.0f} s")
        time.sleep(POLL)  # poll interval


def brokers_registered(namesrv: str, brokers: dict[str, str]) -> bool:
    info = apache.cluster_info(namesrv, timeout=1.0)
    table = info.get("brokerAddrTable") or {}
    return all((table.get(name) or {}).get("brokerAddrs", {}).get("0") == addr for name, addr in brokers.items())


# --------------------------------------------------------------------------- the servers


class Servers:
    """A running name server + brokers; ``start()`` returns the seconds until all are registered."""

    label = ""
    namesrv_addr = ""
    broker_addrs: dict[str, str]

    def pids(self) -> list[int]:
        raise NotImplementedError

    def start(self) -> float:
        raise NotImplementedError

    def kill(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Servers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()


class OurCluster(Servers):
    """``python -m mqadmin dev up`` as its own process group."""

    def __init__(self, brokers: int, data_dir: Path) -> None:
        self.label = "ours"
        self.brokers = brokers
        self.data_dir = data_dir
        self.proc: subprocess.Popen[bytes] | None = None
        self.broker_addrs = {}

    def start(self) -> float:
        ns_port, broker_port = free_port(), free_port(self.brokers)
        self.namesrv_addr = f"127.0.0.1:{ns_port}"
        self.broker_addrs = {f"broker-{chr(97 + i)}": f"127.0.0.1:{broker_port + 10 * i}" for i in range(self.brokers)}
        self.data_dir.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "mqadmin", "--format", "json", "dev", "up", "--namesrv-port", str(ns_port),
               "--broker-port", str(broker_port), "--brokers", str(self.brokers),
               "--data-dir", str(self.data_dir)]  # fmt: skip
        log = open(self.data_dir / "dev-up.out", "ab")  # noqa: SIM115 - handed to the child
        t0 = time.perf_counter()
        try:
            self.proc = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        finally:
            log.close()
        poll(lambda: brokers_registered(self.namesrv_addr, self.broker_addrs), READY_TIMEOUT, "mqadmin dev up",
             lambda: self.proc is not None and self.proc.poll() is None)  # fmt: skip
        return time.perf_counter() - t0

    def pids(self) -> list[int]:
        return descendants(self.proc.pid) if self.proc and self.proc.poll() is None else []

    def kill(self) -> None:
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(30)
            self.proc = None


class JavaCluster(Servers):
    """Apache name server + ``brokers`` brokers from the jars (tests/realrmq/apache.py)."""

    def __init__(self, version: str, brokers: int = 1, java_opts: list[str] | None = None) -> None:
        self.version = version
        self.java_opts = java_opts or []
        self.label = f"Java {version}"
        self.brokers = brokers
        self.namesrv = apache.NameServer(version, java_opts=self.java_opts)
        self.broker_list: list[apache.Broker] = []
        self.broker_addrs = {}

    def start(self) -> float:
        apache.ensure_distribution(self.version)
        t0 = time.perf_counter()
        self.namesrv.launch()
        self.namesrv_addr = self.namesrv.addr
        poll(lambda: bool(apache.cluster_info(self.namesrv_addr, timeout=1.0) is not None), READY_TIMEOUT,
             f"{self.label} name server", self.namesrv.alive)  # fmt: skip
        for i in range(self.brokers):
            b = apache.Broker(
                self.version, self.namesrv_addr, broker_name=f"broker-{chr(97 + i)}", java_opts=self.java_opts
            )
            b.launch()
            self.broker_list.append(b)
        self.broker_addrs = {b.broker_name: b.addr for b in self.broker_list}
        poll(lambda: brokers_registered(self.namesrv_addr, self.broker_addrs), READY_TIMEOUT, f"{self.label} brokers",
             lambda: all(b.alive() for b in self.broker_list))  # fmt: skip
        return time.perf_counter() - t0

    def pids(self) -> list[int]:
        return [s.pid for s in (self.namesrv, *self.broker_list) if s.alive() and s.pid is not None]

    def kill(self) -> None:
        for s in (*self.broker_list, self.namesrv):
            s.kill()


def make_servers(target: str, brokers: int, args: argparse.Namespace) -> Servers:
    if target == "ours":
        return OurCluster(brokers, Path(tempfile.mkdtemp(prefix="ours-", dir=args.scratch)))
    return JavaCluster(TARGETS[target], brokers, JAVA_JIT_OPTS[args.java_jit])


# --------------------------------------------------------------------------- results


@dataclass
class Row:
    name: str
    unit: str
    better: str  # "higher" | "lower"
    values: dict[str, float | None] = field(default_factory=dict)
    goal: str = ""


@dataclass
class Report:
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def row(self, name: str, unit: str, better: str, goal: str = "") -> Row:
        for r in self.rows:
            if r.name == name:
                return r
        r = Row(name, unit, better, goal=goal)
        self.rows.append(r)
        return r

    def note(self, text: str) -> None:
        print(f"  {text}", file=sys.stderr, flush=True)
        self.notes.append(text)

    def render(self, targets: list[str]) -> str:
        peers = [t for t in targets if t != "ours"]
        head = ["benchmark", "unit", "ours"]
        for p in peers:
            head += [TARGETS[p], f"ours/{TARGETS[p]}"]
        head += ["better", "goal"]
        lines = [head]
        for r in self.rows:
            ours = r.values.get("ours")
            cells = [r.name, r.unit, fmt(ours)]
            for p in peers:
                v = r.values.get(p)
                cells += [fmt(v), f"{ours / v:.2f}" if ours is not None and v else "-"]
            cells += [r.better, r.goal]
            lines.append(cells)
        widths = [max(len(row[i]) for row in lines) for i in range(len(head))]
        out = io.StringIO()
        for i, row in enumerate(lines):
            out.write(
                "  ".join(c.ljust(w) if j < 2 else c.rjust(w) for j, (c, w) in enumerate(zip(row, widths, strict=True)))
            )
            out.write("\n")
            if i == 0:
                out.write("  ".join("-" * w for w in widths) + "\n")
        if self.notes:
            out.write("\nDetails:\n" + "".join(f"  {n}\n" for n in self.notes))
        return out.getvalue()


def fmt(v: float | None) -> str:
    if v is None:
        return "-"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.3f}"


# --------------------------------------------------------------------------- part 1: start-up


def bench_startup(report: Report, targets: list[str], args: argparse.Namespace) -> None:
    configs = [(t, 1) for t in targets] + ([("ours", 2)] if "ours" in targets else [])
    for target, brokers in configs:
        ready, rss0, rss1, busy = [], [], [], []
        for _ in range(args.reps):
            quiet = wait_quiet(args.quiet_wait)
            if not quiet.startswith("quiet"):
                busy.append(quiet)
            with make_servers(target, brokers, args) as servers:
                ready.append(servers.start())
                rss0.append(rss_mib(servers.pids()))
                time.sleep(1.0)  # memory a second after ready, not a synchronisation
                rss1.append(rss_mib(servers.pids()))
        label = "1 ns + 1 broker" if brokers == 1 else f"1 ns + {brokers} brokers (peer: 1 broker)"
        values = {"ready": statistics.median(ready), "rss0": statistics.median(rss0), "rss1": statistics.median(rss1)}
        for key, name, unit in (
            ("ready", "time to ready", "s"),
            ("rss0", "RSS at ready", "MiB"),
            ("rss1", "RSS ready+1s", "MiB"),
        ):
            goal = "< 1 s" if key == "ready" and target == "ours" else ""
            report.row(f"{name}, {label}", unit, "lower", goal).values[target] = values[key]
            if brokers == 2 and target == "ours":
                for peer in targets:
                    if peer != "ours":
                        report.row(f"{name}, {label}", unit, "lower").values[peer] = report.row(
                            f"{name}, 1 ns + 1 broker", unit, "lower"
                        ).values.get(peer)
        report.note(
            f"startup {target} x{brokers} broker(s): ready {', '.join(f'{x:.3f}' for x in ready)} s; "
            f"RSS at ready {', '.join(f'{x:.0f}' for x in rss0)} MiB" + "".join(f"; {b}" for b in busy)
        )


# --------------------------------------------------------------------------- part 2: sync send


def java_bench_command(main_class: str) -> list[str]:
    """java command running ``main_class`` (bench/java: SendBench, DrainBench) on the rocketmq-client
    classpath that tests/peers resolves; the sources are compiled once per content."""
    harness.ensure_java_peer()  # resolves (Maven) and caches the rocketmq-client jars once
    java, javac, _mvn = harness._java_tools()
    lib = harness._java_lib_dir()
    sources = sorted(JAVA_BENCH_DIR.glob("*.java"))
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sources) + harness.JAVA_CLIENT_VERSION.encode())
    base = harness.cache_root() / "bench"
    classes = base / f"classes-{digest.hexdigest()[:16]}"
    if not (classes / f"{main_class}.class").exists():
        base.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=base))
        try:
            subprocess.run([javac, "-nowarn", "-encoding", "UTF-8", "-d", str(tmp), "-cp", str(lib / "*"),
                            *map(str, sources)], check=True, capture_output=True, timeout=180)  # fmt: skip
            if classes.exists():
                shutil.rmtree(classes)
            os.replace(tmp, classes)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    logs = base / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    return [java, "-Xms256m", "-Xmx512m", "-Drocketmq.client.logUseSlf4j=false",
            f"-Drocketmq.client.logRoot={logs}", "-Drocketmq.client.logLevel=WARN",
            "-cp", f"{classes}{os.pathsep}{lib / '*'}", main_class]  # fmt: skip


def create_topic(servers: Servers, topic: str, queues: int = 8) -> None:
    """What ``updateTopic -c DefaultCluster -t <topic> -r 8 -w 8`` does (code 17 to every broker of the
    cluster), then wait for the name server to route it."""

    async def run() -> None:
        transport = TcpTransport(timeout=10)
        try:
            header = CreateTopicHeader.of(TopicConfig(topic, queues, queues)).to_ext()
            for name, addr in servers.broker_addrs.items():
                resp = await transport.request(
                    addr, RemotingCommand(int(RequestCode.UPDATE_AND_CREATE_TOPIC), ext=header)
                )
                if resp.code != ResponseCode.SUCCESS:
                    raise RuntimeError(f"updateTopic {topic} on {name}: {resp.code} {resp.remark}")
        finally:
            await transport.aclose()
        async with AdminClient([servers.namesrv_addr], timeout=10) as admin:
            deadline = time.monotonic() + 30
            while True:
                with contextlib.suppress(Exception):
                    if (await admin.topic_route(topic)).queue_datas:
                        return
                if time.monotonic() > deadline:
                    raise RuntimeError(f"no route for {topic} after 30 s")
                await asyncio.sleep(POLL)

    asyncio.run(run())


@dataclass
class WindowRun:
    """One Java bench program's run: its result event, and the CPU each side used in its measured window."""

    result: dict
    server_cpu: float
    client_cpu: float
    other_cpu: float
    """CPU used by every other process on the machine in the window."""
    window: float

    @property
    def msgs_per_sec(self) -> float:
        return float(self.result["msgsPerSec"])

    def cpu_shares(self, client: str) -> str:
        w = self.window
        return (
            f"CPU in window: server {100 * self.server_cpu / w:.0f}%, {client} {100 * self.client_cpu / w:.0f}%,"
            f" other processes {100 * self.other_cpu / w:.0f}% of one core ({os.cpu_count()} cores)"
        )


class SendRun(WindowRun):
    def describe(self) -> str:
        r = self.result
        return (
            f"{r['sent']} sent in {r['seconds']} s, {r['errors']} errors (first: {r['firstError']}),"
            f" p90 {r['p90Ms']} p99.9 {r['p999Ms']} max {r['maxMs']} ms; {self.cpu_shares('client')}"
        )


def run_send(
    cmd: list[str], servers: Servers, threads: int, args: argparse.Namespace, profile_to: Path | None
) -> SendRun:
    full = cmd + [servers.namesrv_addr, SEND_TOPIC, str(threads), str(args.warmup), str(args.duration),
                  str(args.body), args.producers]  # fmt: skip
    spy: subprocess.Popen[bytes] | None = None
    marks: dict[str, Mark] = {}
    result: dict | None = None

    def on_event(event: dict, proc: subprocess.Popen[str]) -> None:
        nonlocal result, spy
        kind = event.get("event")
        if kind in ("measuring", "measured"):
            marks[kind] = window_mark(servers, proc)
            if kind == "measuring" and profile_to is not None:
                spy = start_py_spy(servers, args.duration, profile_to)
        elif kind == "result":
            result = event

    try:
        stderr = java_events(full, args.warmup + args.duration + 120, on_event)
        if spy is not None:
            spy.wait(args.duration + 60)
    finally:
        if spy is not None and spy.poll() is None:
            spy.kill()
    if result is None or len(marks) != 2:
        raise RuntimeError(f"SendBench failed: {stderr[-2000:]}")
    return SendRun(result, *window_cpu(marks))


Mark = tuple[float, float, float, float]


def window_mark(servers: Servers, client: subprocess.Popen) -> Mark:
    """(time, server CPU, client CPU, whole machine's busy CPU) at one end of a measured window."""
    return time.perf_counter(), cpu_seconds(servers.pids()), cpu_seconds([client.pid]), machine_busy()[0]


def window_cpu(marks: dict[str, Mark]) -> tuple[float, float, float, float]:
    """(server CPU, client CPU, every other process's CPU, seconds) between "measuring" and "measured"."""
    (w0, s0, c0, m0), (w1, s1, c1, m1) = marks["measuring"], marks["measured"]
    return s1 - s0, c1 - c0, (m1 - m0) - (s1 - s0) - (c1 - c0), w1 - w0


def _killpg(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def bench_send(report: Report, targets: list[str], args: argparse.Namespace) -> None:
    """Every target's cluster runs for the whole part; the runs alternate between targets for
    ``--rounds`` rounds and the best round counts (other load on the machine only slows a run)."""
    cmd = java_bench_command("SendBench")
    with contextlib.ExitStack() as stack:
        clusters: dict[str, Servers] = {}
        for target in targets:
            servers = stack.enter_context(make_servers(target, 1, args))
            servers.start()
            create_topic(servers, SEND_TOPIC)
            clusters[target] = servers
        best: dict[tuple[str, int], SendRun] = {}
        for rnd in range(args.rounds):
            order = targets[rnd % len(targets) :] + targets[: rnd % len(targets)]
            for threads in args.threads:
                for target in order:
                    profile_to = None
                    if args.profile and target == "ours":
                        profile_to = args.results_dir / f"py-spy-send-{threads}t-r{rnd + 1}-{args.stamp}.txt"
                    quiet = wait_quiet(args.quiet_wait)
                    run = run_send(cmd, clusters[target], threads, args, profile_to)
                    report.note(f"send {target} {threads}t round {rnd + 1}: {run.describe()}; before: {quiet}")
                    if profile_to is not None and profile_to.exists():
                        report.note(f"py-spy profile of our server, {threads} threads: {profile_to}")
                        for line in summarize_profile(profile_to):
                            report.note("  " + line)
                    key = (target, threads)
                    if key not in best or run.msgs_per_sec > best[key].msgs_per_sec:
                        best[key] = run
        for threads in args.threads:
            reference = {4: "3,200 (author, Java 4.9.8)", 16: "7,300 (author, Java 4.9.8)"}.get(threads, "")
            goal = ">= Java 4.9.8" + (f"; ref {reference}" if reference else "")
            for target in targets:
                run = best[(target, threads)]
                r = run.result
                values = {
                    (f"sync send {args.body} B, {threads} threads (best of {args.rounds})", "msg/s", "higher", goal): (
                        run.msgs_per_sec
                    ),
                    (f"  p50 latency, {threads} threads", "ms", "lower", ""): r["p50Ms"],
                    (f"  p99 latency, {threads} threads", "ms", "lower", ""): r["p99Ms"],
                    (f"  server CPU, {threads} threads", "% core", "lower", ""): 100 * run.server_cpu / run.window,
                    (f"  server CPU per 1000 msgs, {threads} threads", "cpu-ms", "lower", ""): (
                        1e6 * run.server_cpu / r["sent"] if r["sent"] else None
                    ),
                }
                for (name, unit, better, g), value in values.items():
                    report.row(name, unit, better, g).values[target] = value
        for target, servers in clusters.items():
            report.row("server RSS after send runs", "MiB", "lower").values[target] = rss_mib(servers.pids())


# --------------------------------------------------------------------------- part 3: drain a backlog

DRAIN_TOPIC = "BenchDrainTopic"


class DrainRun(WindowRun):
    def describe(self) -> str:
        r = self.result
        done = f"{r['received']} received in {r['seconds']} s (complete: {r['complete']})"
        return f"{done}; {self.cpu_shares('consumer')}"


def java_events(cmd: list[str], timeout: float, on_event: Callable[[dict, subprocess.Popen[str]], None]) -> str:
    """Run a bench/java program (own process group, killed after ``timeout`` s), handing each JSON line of
    its stdout to ``on_event``; returns its stderr."""
    err = tempfile.TemporaryFile()  # noqa: SIM115 - closed in the finally below
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err, text=True,
                            start_new_session=True)  # fmt: skip
    killer = threading.Timer(timeout, lambda: _killpg(proc))
    killer.start()
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            with contextlib.suppress(ValueError):
                on_event(json.loads(line), proc)
        proc.wait(30)
    finally:
        killer.cancel()
        _killpg(proc)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
        err.close()
    return stderr


class ProduceRun(WindowRun):
    def describe(self) -> str:
        r = self.result
        done = f"{r['sent']} messages in {r['seconds']} s ({r['errors']} failed batches, sent again)"
        return f"{done}; {self.cpu_shares('producer')}"


BATCH = 64
"""Messages per batch of the backlog's producer (DefaultMQProducer.send(Collection), 4 threads)."""


def run_window(full: list[str], servers: Servers, timeout: float, what: str) -> tuple[dict, float, float, float, float]:
    """Run a DrainBench program; its result event and the CPU each side used between its "measuring" and
    "measured" events (``WindowRun``'s fields)."""
    marks: dict[str, Mark] = {}
    result: dict | None = None

    def on_event(event: dict, proc: subprocess.Popen[str]) -> None:
        nonlocal result
        kind = event.get("event")
        if kind in ("measuring", "measured"):
            marks[kind] = window_mark(servers, proc)
        elif kind == "result":
            result = event

    stderr = java_events(full, timeout, on_event)
    if result is None or len(marks) != 2:
        raise RuntimeError(f"DrainBench {what} failed: {stderr[-2000:]}")
    return (result, *window_cpu(marks))


def produce_backlog(cmd: list[str], servers: Servers, args: argparse.Namespace) -> ProduceRun:
    """``--backlog`` messages of ``--body`` bytes into DRAIN_TOPIC (8 queues) in batches of ``BATCH``."""
    create_topic(servers, DRAIN_TOPIC)
    full = cmd + ["produce", servers.namesrv_addr, DRAIN_TOPIC, str(args.backlog), str(args.body), "4", str(BATCH)]
    run = ProduceRun(*run_window(full, servers, args.drain_timeout, "produce"))
    if run.result["sent"] < args.backlog:
        raise RuntimeError(f"DrainBench produce fell short: {run.result}")
    return run


def run_drain(cmd: list[str], servers: Servers, group: str, args: argparse.Namespace) -> DrainRun:
    full = cmd + ["drain", servers.namesrv_addr, DRAIN_TOPIC, group, str(args.backlog), str(args.drain_timeout)]
    return DrainRun(*run_window(full, servers, args.drain_timeout + 120, "drain"))


def bench_drain(report: Report, targets: list[str], args: argparse.Namespace) -> None:
    """A backlog is produced into every target first; then, alternating between targets for ``--rounds``
    rounds, a push consumer of a new group drains it from the first offset (best round counts)."""
    cmd = java_bench_command("DrainBench")
    with contextlib.ExitStack() as stack:
        clusters: dict[str, Servers] = {}
        for target in targets:
            servers = stack.enter_context(make_servers(target, 1, args))
            servers.start()
            produced = produce_backlog(cmd, servers, args)
            report.note(f"drain {target}: backlog {produced.describe()}")
            name = f"producer sends {args.backlog:,} x {args.body} B in batches of {BATCH}, 4 threads"
            report.row(name, "msg/s", "higher", "ours vs Java 4.9.8").values[target] = produced.msgs_per_sec
            report.row("  server CPU per 1000 msgs, batch send", "cpu-ms", "lower").values[target] = (
                1e6 * produced.server_cpu / produced.result["sent"]
            )
            clusters[target] = servers
        best: dict[str, DrainRun] = {}
        for rnd in range(args.rounds):
            order = targets[rnd % len(targets) :] + targets[: rnd % len(targets)]
            for target in order:
                quiet = wait_quiet(args.quiet_wait)
                run = run_drain(cmd, clusters[target], f"CG_DRAIN_BENCH_{rnd + 1}", args)
                report.note(f"drain {target} round {rnd + 1}: {run.describe()}; before: {quiet}")
                if target not in best or run.msgs_per_sec > best[target].msgs_per_sec:
                    best[target] = run
        name = f"push consumer drains {args.backlog:,} x {args.body} B (best of {args.rounds})"
        for target in targets:
            run = best[target]
            received = run.result["received"]
            report.row(name, "msg/s", "higher", "ours vs Java 4.9.8").values[target] = run.msgs_per_sec
            report.row("  server CPU per 1000 msgs, drain", "cpu-ms", "lower").values[target] = (
                1e6 * run.server_cpu / received if received else None
            )
            report.row("  consumer CPU per 1000 msgs, drain", "cpu-ms", "lower").values[target] = (
                1e6 * run.client_cpu / received if received else None
            )


# --------------------------------------------------------------------------- profiling (py-spy)


def start_py_spy(servers: Servers, seconds: float, out: Path) -> subprocess.Popen[bytes] | None:
    spy = shutil.which("py-spy")
    pids = servers.pids()
    if spy is None or not pids:
        return None
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = [spy, "record", "--pid", str(pids[0]), "--duration", str(max(1, int(seconds))), "--rate", "200",
           "--nonblocking", "--format", "raw", "--output", str(out)]  # fmt: skip
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def summarize_profile(path: Path, top: int = 18) -> list[str]:
    """Hot functions from py-spy's collapsed stacks: self samples and inclusive samples."""
    own: Counter[str] = Counter()
    incl: Counter[str] = Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        n = int(count)
        frames = [_short(f) for f in stack.split(";") if f]
        total += n
        if frames:
            own[frames[-1]] += n
        for f in set(frames):
            incl[f] += n
    if not total:
        return ["(no samples)"]
    lines = [f"{total} samples of running threads (share of those below); self time by function:"]
    lines += [f"  {100 * n / total:5.1f}%  {f}" for f, n in own.most_common(top)]
    lines.append("inclusive time (mqadmin code):")
    ours = [(f, n) for f, n in incl.most_common() if "mqadmin/" in f and not any(e in f for e in _ENTRY)]
    lines += [f"  {100 * n / total:5.1f}%  {f}" for f, n in ours[:top]]
    return lines


_ENTRY = ("mqadmin/__main__.py", "mqadmin/cli/")
"""Frames every sample of the main thread passes through; left out of the inclusive list."""


def _short(frame: str) -> str:
    """'func (/path/to/lib/python3.11/pkg/mod.py:12)' -> 'func (pkg/mod.py)': one entry per function."""
    name, _, where = frame.partition(" (")
    where = where.rstrip(")").rsplit(":", 1)[0]
    if "/mqadmin/" in where:
        where = "mqadmin/" + where.rsplit("/mqadmin/", 1)[1]
    elif "/lib/python3" in where:
        where = where.split("/lib/python3", 1)[1].split("/", 1)[-1]
    return f"{name} ({where})"


# --------------------------------------------------------------------------- part 3: topics


async def create_topics(
    addr: str, names: list[str], concurrency: int, deadline: float | None
) -> tuple[int, int, float]:
    """Code 17 for every name, ``concurrency`` in flight; stops issuing at ``deadline``.
    Returns (acknowledged, failed, seconds)."""
    transport = TcpTransport(timeout=60)
    sem = asyncio.Semaphore(concurrency)
    acked = failed = 0

    async def one(name: str) -> None:
        nonlocal acked, failed
        async with sem:
            if deadline is not None and time.monotonic() > deadline:
                return
            cmd = RemotingCommand(
                int(RequestCode.UPDATE_AND_CREATE_TOPIC), ext=CreateTopicHeader.of(TopicConfig(name)).to_ext()
            )
            try:
                resp = await transport.request(addr, cmd)
            except Exception:
                failed += 1
                return
        if resp.code == ResponseCode.SUCCESS:
            acked += 1
        else:
            failed += 1

    t0 = time.perf_counter()
    try:
        await asyncio.gather(*(one(n) for n in names))
    finally:
        await transport.aclose()
    return acked, failed, time.perf_counter() - t0


async def topic_names_on(addr: str) -> set[str]:
    transport = TcpTransport(timeout=60)
    try:
        resp = await transport.request(addr, RemotingCommand(int(RequestCode.GET_ALL_TOPIC_CONFIG)))
    finally:
        await transport.aclose()
    return set((fastjson.loads(resp.body).get("topicConfigTable") or {}).keys())


def bench_topics(report: Report, targets: list[str], args: argparse.Namespace) -> None:
    names = [f"{TOPIC_PREFIX}{i:06d}" for i in range(args.topics)]
    name = f"create topics on 1 broker, {args.concurrency} in flight"
    for target in targets:
        with make_servers(target, 1, args) as servers:
            servers.start()
            quiet = wait_quiet(args.quiet_wait)
            addr = servers.broker_addrs["broker-a"]
            deadline = None if target == "ours" else time.monotonic() + args.java_topics_seconds
            acked, failed, secs = asyncio.run(create_topics(addr, names, args.concurrency, deadline))
            rss = rss_mib(servers.pids())
            report.row(name, "topics/s", "higher", ">= 2,000 topics/s (ours)").values[target] = acked / secs
            capped = (
                "" if acked + failed == len(names) else f" (stopped issuing after {args.java_topics_seconds:.0f} s)"
            )
            report.note(
                f"topics {target}: {acked} acknowledged, {failed} failed in {secs:.2f} s{capped}; RSS {rss:.0f} MiB;"
                f" before: {quiet}"
            )
            if target == "ours":
                assert isinstance(servers, OurCluster)
                cfg = servers.data_dir / "broker-a" / "config"
                sizes = {p.name: p.stat().st_size for p in sorted(cfg.glob("topics.json*"))}
                servers.kill()  # SIGKILL: nothing gets a chance to save more on the way out
                restarted = OurCluster(1, servers.data_dir)
                with restarted:
                    restart_secs = restarted.start()
                    found = asyncio.run(topic_names_on(restarted.broker_addrs["broker-a"]))
                durable = sum(1 for n in names if n in found)
                report.row(
                    "topics found after kill -9 + restart", "topics", "higher", f"= {acked} acknowledged"
                ).values["ours"] = durable
                report.note(
                    f"topics ours: files at kill: {sizes}; after SIGKILL + restart (ready in {restart_secs:.2f} s)"
                    f" {durable} of {acked} present"
                )


# --------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parts", default="startup,send,topics",
                    help="comma list of startup, send, topics, drain")  # fmt: skip
    ap.add_argument("--targets", default="ours,java4,java5", help="comma list of ours, java4 (4.9.8), java5 (5.3.3)")
    ap.add_argument("--reps", type=int, default=3, help="starts per configuration (startup)")
    ap.add_argument("--threads", default="4,16", help="concurrent producer threads, one run each (send)")
    ap.add_argument("--warmup", type=float, default=3.0, help="seconds of warm-up before each window (send)")
    ap.add_argument("--duration", type=float, default=10.0, help="measured seconds per run (send)")
    ap.add_argument("--rounds", type=int, default=2, help="runs per target and thread count, best counts (send)")
    ap.add_argument("--body", type=int, default=1024, help="message body bytes (send)")
    ap.add_argument("--producers", choices=("shared", "per-thread"), default="shared",
                    help="one DefaultMQProducer per thread, or one shared by all threads (send)")  # fmt: skip
    ap.add_argument("--java-jit", choices=tuple(JAVA_JIT_OPTS), default="full",
                    help="Java servers with their full JIT, or C1 only as tests/realrmq runs them")  # fmt: skip
    ap.add_argument("--profile", action="store_true", help="py-spy our server during each send window")
    ap.add_argument("--topics", type=int, default=10000, help="topics to create (topics)")
    ap.add_argument("--concurrency", type=int, default=64, help="requests in flight (topics)")
    ap.add_argument("--java-topics-seconds", type=float, default=30.0, help="time cap for the Java brokers (topics)")
    ap.add_argument("--backlog", type=int, default=1_000_000, help="messages produced, then drained (drain)")
    ap.add_argument("--drain-timeout", type=float, default=600.0,
                    help="seconds the backlog's production, and each drain, may take (drain)")  # fmt: skip
    ap.add_argument("--quiet-wait", type=float, default=60.0,
                    help="wait up to this many s before each measurement for other processes to idle")  # fmt: skip
    ap.add_argument("--results-dir", type=Path, default=BENCH / "results")
    args = ap.parse_args(argv)
    args.parts = [p for p in args.parts.split(",") if p]
    args.targets = [t for t in args.targets.split(",") if t]
    args.threads = [int(t) for t in args.threads.split(",") if t]
    for p in args.parts:
        if p not in ("startup", "send", "drain", "topics"):
            ap.error(f"unknown part {p!r}")
    for t in args.targets:
        if t not in TARGETS:
            ap.error(f"unknown target {t!r}")
    args.stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return args


def environment() -> str:
    cpus = os.cpu_count()
    model = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    java = apache.find_java() or "?"
    jv = (
        subprocess.run([java, "-version"], capture_output=True, text=True).stderr.splitlines()[0] if java != "?" else ""
    )
    return f"{cpus} CPUs ({model}); Python {sys.version.split()[0]}; {jv}"


@contextlib.contextmanager
def scratch_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="mqadmin-bench-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    reason = apache.skip_reason() if any(t != "ours" for t in args.targets) else None
    if reason:
        print(f"cannot run the Java servers: {reason}; use --targets ours", file=sys.stderr)
        return 2
    report = Report()
    started = time.monotonic()
    with scratch_dir() as args.scratch:
        parts = (("startup", bench_startup), ("send", bench_send), ("drain", bench_drain), ("topics", bench_topics))
        for part, run in parts:
            if part in args.parts:
                print(f"[{part}] ...", file=sys.stderr, flush=True)
                run(report, args.targets, args)
    header = (
        f"mqadmin server benchmark {datetime.now():%Y-%m-%d %H:%M}; {environment()}\n"
        f"parts {','.join(args.parts)}; startup reps {args.reps}; send: {args.producers} producers, "
        f"{args.body} B bodies, {args.warmup:g} s warm-up + {args.duration:g} s window, best of {args.rounds} rounds; "
        f"drain: {args.backlog} messages; Java servers: {args.java_jit} JIT; topics: {args.topics} "
        f"x code 17, {args.concurrency} in flight; took {time.monotonic() - started:.0f} s\n"
        "ratio = ours / peer (below 1 is better for 'lower', above 1 for 'higher')\n\n"
    )
    text = header + report.render(args.targets)
    print(text)
    args.results_dir.mkdir(parents=True, exist_ok=True)
    out = args.results_dir / f"server-{args.stamp}.txt"
    out.write_text(text)
    print(f"saved to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
