"""consumerProgress for every group, ours against Java mqadmin, side by side on the same cluster.

Builds a cluster with ``--groups`` consumer groups and ``--topics`` topics (default 1,000 each; two master
brokers): every topic has 4 queues on each broker, every group has a retry topic (1 queue per broker), a
subscription group and committed offsets on its own topic, and every topic holds ``--messages`` messages, so
each group lags. Then runs ``consumerProgress`` without ``-g`` (every group) with each tool, interleaved,
``--runs`` times: median and minimum wall time, peak resident memory of the tool's process, the ratio, and
the number of groups each listed (they must agree).

    python bench/bench_consumer_progress.py                              # Apache 5.3.3 cluster
    python bench/bench_consumer_progress.py --cluster embedded --runs 5  # mqadmin dev up (Java mqadmin 5.3.3)
    python bench/bench_consumer_progress.py --groups 200 --topics 200    # a quicker run

Each run is measured by bench/bench_cli.py's helper process (the tool's own peak RSS from
``getrusage(RUSAGE_CHILDREN)``; the helper's start-up is not counted). Java mqadmin runs with the test
harness's flags (small heap, C1 only; ``--stock-jvm`` for tools.sh's 1 GiB heap).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.bench_cli import measure, ours_argv, summarise  # noqa: E402

QUEUES = 4
CONCURRENCY = 64
SLOW_CONCURRENCY = 8
"""Group creations and sends in flight (a Java broker rewrites subscriptionGroup.json for every group)."""


@contextlib.contextmanager
def apache_cluster(version: str) -> Iterator[str]:
    from tests.realrmq.apache import ApacheCluster, skip_reason

    reason = skip_reason(version)
    if reason:
        raise SystemExit(f"cannot run: {reason}")
    with ApacheCluster(version, brokers=2) as cluster:
        yield cluster.namesrv_addr


@contextlib.contextmanager
def embedded_cluster() -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="bench-consumer-progress-") as tmp:
        cmd = [sys.executable, "-m", "mqadmin", "--format", "json", "dev", "up", "--brokers", "2",
               "--namesrv-port", "0", "--broker-port", "0", "--data-dir", tmp]  # fmt: skip
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, start_new_session=True)
        try:
            assert proc.stdout is not None
            ready = json.loads(proc.stdout.readline())
            yield ready["namesrvAddr"]
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(30)


async def populate(namesrv: str, groups: int, topics: int, messages: int) -> None:
    """Topics, retry topics, subscription groups, messages and committed offsets, as fast as the brokers take them."""
    from mqadmin.admin import AdminClient
    from mqadmin.admin.consumers import bounded
    from mqadmin.admin.errors import ResponseError
    from mqadmin.admin.messaging import send_message
    from mqadmin.model.rpc import clients as off
    from mqadmin.model.rpc import groups as group_rpc
    from mqadmin.model.rpc import topics as topic_rpc
    from mqadmin.model.topic import TopicConfig
    from mqadmin.wire.codes import ResponseCode

    async with AdminClient([namesrv], timeout=60) as admin:
        targets = await admin.targets(None, "DefaultCluster")
        names = [f"BenchTopic_{i:04d}" for i in range(topics)]
        group_names = [f"BenchGroup_{i:04d}" for i in range(groups)]
        configs = [TopicConfig(t, QUEUES, QUEUES, 6) for t in names]
        configs += [TopicConfig(f"%RETRY%{g}", 1, 1, 6) for g in group_names]
        for t in targets:
            for start in range(0, len(configs), 500):
                await admin.request(t.addr, topic_rpc.UPDATE_AND_CREATE_TOPIC_LIST, body=configs[start : start + 500])

        async def patient(call: Callable[[], Awaitable[object]]) -> None:
            """A Java broker on a busy machine answers SYSTEM_BUSY (flow control): try again a little later."""
            for attempt in range(50):
                try:
                    await call()
                    return
                except ResponseError as e:
                    if e.code != ResponseCode.SYSTEM_BUSY or attempt == 49:
                        raise
                    await asyncio.sleep(0.2)

        async def group(args: tuple[str, str]) -> None:
            addr, name = args
            body = {"groupName": name}
            await patient(lambda: admin.request(addr, group_rpc.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, body=body))

        await bounded([(t.addr, g) for t in targets for g in group_names], SLOW_CONCURRENCY, group)
        deadline = time.monotonic() + 120
        while len(set(await admin.topic_list()) & set(names)) < topics:
            if time.monotonic() > deadline:
                raise SystemExit("the name server did not list every topic within 120 s")
            await asyncio.sleep(1)

        async def send(args: tuple[str, int]) -> None:
            topic, i = args
            broker, queue = targets[i % len(targets)].name, i % QUEUES
            await patient(lambda: send_message(admin, topic, b"x" * 64, broker=broker, queue_id=queue))

        await bounded([(t, i) for t in names for i in range(messages)], SLOW_CONCURRENCY, send)

        async def commit(args: tuple[str, str, str, int]) -> None:
            addr, g, topic, q = args
            header = off.UpdateOffsetHeader(consumer_group=g, topic=topic, queue_id=q, commit_offset=0)
            await patient(lambda: admin.request(addr, off.UPDATE_CONSUMER_OFFSET, header))

        work = [
            (t.addr, g, names[i % topics], q) for t in targets for i, g in enumerate(group_names) for q in range(QUEUES)
        ]
        await bounded(work, CONCURRENCY, commit)


def listed_groups(namesrv: str, version: str) -> dict[str, int]:
    """How many groups each tool lists (one more, unmeasured run each; data lines after the header)."""
    from tests.realrmq.apache import java_mqadmin

    outs = {
        "ours": subprocess.run(
            [*ours_argv(), "consumerProgress", "-n", namesrv], capture_output=True, text=True
        ).stdout,
        "java": java_mqadmin(version, ["consumerProgress"], namesrv).stdout,
    }
    return {tool: max(len([ln for ln in out.splitlines() if ln.strip()]) - 1, 0) for tool, out in outs.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cluster", choices=["apache", "embedded"], default="apache")
    parser.add_argument("--version", default="5.3.3", help="Apache RocketMQ version of the cluster and of Java mqadmin")
    parser.add_argument("--groups", type=int, default=1000)
    parser.add_argument("--topics", type=int, default=1000)
    parser.add_argument("--messages", type=int, default=2, help="messages per topic")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--stock-jvm", action="store_true", help="run Java mqadmin with tools.sh's 1 GiB heap flags")
    parser.add_argument("--out", type=Path, help="also write the figures as JSON here")
    opts = parser.parse_args()

    cluster = apache_cluster(opts.version) if opts.cluster == "apache" else embedded_cluster()
    with cluster as namesrv:
        t0 = time.monotonic()
        asyncio.run(populate(namesrv, opts.groups, opts.topics, opts.messages))
        print(f"{opts.cluster} cluster {namesrv}: {opts.groups} groups, {opts.topics} topics "
              f"({opts.messages} messages each), populated in {time.monotonic() - t0:.0f} s")  # fmt: skip
        print(f"ours: {' '.join(ours_argv())}; java: mqadmin {opts.version}; load average {os.getloadavg()[0]:.1f}")
        samples: dict[str, list[dict]] = {"ours": [], "java": []}
        for _ in range(opts.runs):  # interleaved, so both tools see the same machine load
            for tool in ("ours", "java"):
                samples[tool].append(measure(tool, opts.version, ["consumerProgress", "-n", namesrv], opts.stock_jvm))
        counts = listed_groups(namesrv, opts.version)
    figures = {tool: summarise(s) for tool, s in samples.items()}
    print(f"groups listed: ours {counts['ours']}, java {counts['java']}")
    ratio = figures["java"]["median_s"] / figures["ours"]["median_s"]
    print(f"\n{'tool':<5} {'median s':>9} {'min s':>7} {'peak RSS MB':>12} {'java/ours':>10}")
    for tool in ("ours", "java"):
        f = figures[tool]
        shown = f"{ratio:.1f}x" if tool == "ours" else ""
        print(f"{tool:<5} {f['median_s']:>9.2f} {f['min_s']:>7.2f} {f['peak_rss_mb']:>12.1f} {shown:>10}")
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f} ({os.cpu_count()} CPUs)")
    if opts.out:
        opts.out.parent.mkdir(parents=True, exist_ok=True)
        meta = {"cluster": opts.cluster, "version": opts.version, "groups": opts.groups, "topics": opts.topics}
        opts.out.write_text(json.dumps({**meta, "figures": figures}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
