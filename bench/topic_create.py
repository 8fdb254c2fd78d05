"""Creating N topics in one embedded cluster through UPDATE_AND_CREATE_TOPIC (17), as ``updateTopic -c`` does.

Starts ``mqadmin dev up`` as its own process on free ports, then sends code 17 for every topic to
every master from one client (one connection per broker) with C requests in flight, and reports
topics per second, the name server's view at the end, and the server's resident memory.

    python bench/topic_create.py --topics 10000 --concurrency 64 --brokers 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time

from mqadmin.admin import AdminClient
from mqadmin.model.rpc.topics import UPDATE_AND_CREATE_TOPIC, CreateTopicHeader
from mqadmin.model.topic import TopicConfig
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire.codes import ResponseCode


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process: comparable across runs even on a busy machine."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


async def create_all(info: dict, topics: int, concurrency: int) -> tuple[float, int]:
    masters = [b["addr"] for b in info["brokers"]]
    transport = TcpTransport(timeout=30)
    sem = asyncio.Semaphore(concurrency)
    failures = 0

    async def one(i: int, addr: str) -> None:
        nonlocal failures
        cfg = TopicConfig(f"BenchTopic{i:06d}")
        async with sem:
            resp = await transport.request(addr, UPDATE_AND_CREATE_TOPIC.request(CreateTopicHeader.of(cfg)))
        if resp.code != ResponseCode.SUCCESS:
            failures += 1

    t0 = time.perf_counter()
    await asyncio.gather(*(one(i, a) for i in range(topics) for a in masters))
    elapsed = time.perf_counter() - t0
    await transport.aclose()
    return elapsed, failures


async def routed(namesrv: str, topics: int) -> int:
    async with AdminClient([namesrv]) as admin:
        return sum(1 for t in await admin.topic_list() if t.startswith("BenchTopic"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--topics", type=int, default=10000)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--brokers", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as data:
        cmd = [sys.executable, "-m", "mqadmin", "--format", "json", "dev", "up", "--namesrv-port", "0",
               "--broker-port", "0", "--brokers", str(args.brokers), "--data-dir", data]  # fmt: skip
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        try:
            info = json.loads(proc.stdout.readline())
            ready = time.perf_counter() - t0
            rss0 = rss_mib(proc.pid)
            cpu0, own0 = cpu_seconds(proc.pid), time.process_time()
            elapsed, failures = asyncio.run(create_all(info, args.topics, args.concurrency))
            server_cpu, client_cpu = cpu_seconds(proc.pid) - cpu0, time.process_time() - own0
            n_routed = asyncio.run(routed(info["namesrvAddr"], args.topics))
            rss1 = rss_mib(proc.pid)
        finally:
            proc.terminate()
            proc.wait(10)
        size = os.path.getsize(os.path.join(data, "broker-a", "config", "topics.json"))
    print(json.dumps({
        "topics": args.topics, "brokers": args.brokers, "concurrency": args.concurrency,
        "seconds": round(elapsed, 3), "topicsPerSecond": round(args.topics / elapsed),
        "requestsPerSecond": round(args.topics * args.brokers / elapsed), "failures": failures,
        "serverCpuSeconds": round(server_cpu, 2), "clientCpuSeconds": round(client_cpu, 2),
        "loadAverage": os.getloadavg()[0], "routedAtEnd": n_routed, "processStartToReadySeconds": round(ready, 3),
        "rssMiBIdle": round(rss0, 1), "rssMiBAfter": round(rss1, 1), "topicsJsonBytesAfterStop": size,
    }))  # fmt: skip


if __name__ == "__main__":
    main()
