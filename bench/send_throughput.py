"""Synchronous 1 KiB sends from P concurrent producers against the embedded broker (own process).

Each producer has its own connection and sends SEND_MESSAGE_V2 (310) one at a time, waiting for
every answer, like a Java ``DefaultMQProducer.send`` loop. The broker runs in a separate process
(``--serve``), so on a 2-core machine client and broker each get one core.

    python bench/send_throughput.py --producers 4 16 --seconds 10 [--flush SYNC_FLUSH]

Reference (issue 3): the Java client against a Java 4.9.8 broker on 2 cores, about 3,200
messages/s with 4 producers and 7,300 with 16.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mqadmin.model.rpc.topics import UPDATE_AND_CREATE_TOPIC, CreateTopicHeader
from mqadmin.model.topic import TopicConfig
from mqadmin.transport.frames import FrameReader
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire.codes import RequestCode, ResponseCode
from mqadmin.wire.frame import RemotingCommand, encode_frame
from mqadmin.wire.message import encode_properties, new_uniq_key

TOPIC = "BenchSend"


async def serve(data_dir: str, flush: str) -> None:
    from mqadmin.server.broker.broker import Broker
    from mqadmin.server.broker.config import BrokerConfig
    from mqadmin.server.namesrv.config import NamesrvConfig
    from mqadmin.server.namesrv.server import NameServer

    namesrv = NameServer(NamesrvConfig(listen_host="127.0.0.1", listen_port=0, data_dir=Path(data_dir) / "ns"))
    await namesrv.start()
    cfg = BrokerConfig(listen_port=0, namesrv_addrs=[namesrv.addr], data_dir=Path(data_dir) / "broker-a")
    cfg.flush_disk_type = flush
    broker = Broker(cfg)
    await broker.start()
    print(json.dumps({"broker": cfg.addr}), flush=True)
    await asyncio.Event().wait()


async def producer(addr: str, deadline: float, body: bytes) -> int:
    """One synchronous producer on its own connection: a minimal framing loop, so that the client
    costs as little as possible and the broker is what is measured."""
    host, port = addr.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    frames = FrameReader(reader)
    sent = 0
    try:
        while time.perf_counter() < deadline:
            ext = {
                "a": "PG_BENCH", "b": TOPIC, "c": "TBW102", "d": "4", "e": str(sent % 8), "f": "0",
                "g": str(int(time.time() * 1000)), "h": "0", "j": "0", "k": "false", "m": "false",
                "i": encode_properties({"UNIQ_KEY": new_uniq_key(), "WAIT": "true"}),
            }  # fmt: skip
            writer.write(encode_frame(RemotingCommand(RequestCode.SEND_MESSAGE_V2, opaque=sent, ext=ext, body=body)))
            resp = await frames.read()
            if resp.code != ResponseCode.SUCCESS:
                raise RuntimeError(f"send failed: {resp.code} {resp.remark}")
            sent += 1
    finally:
        writer.close()
    return sent


async def run(addr: str, producers: int, seconds: float) -> float:
    transport = TcpTransport(timeout=30)
    cfg = TopicConfig(TOPIC, 8, 8)
    await transport.request(addr, UPDATE_AND_CREATE_TOPIC.request(CreateTopicHeader.of(cfg)))
    await transport.aclose()
    body = bytes(1024)
    await asyncio.gather(*(producer(addr, time.perf_counter() + 1.0, body) for _ in range(producers)))  # warm up
    t0 = time.perf_counter()
    counts = await asyncio.gather(*(producer(addr, t0 + seconds, body) for _ in range(producers)))
    return sum(counts) / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--producers", type=int, nargs="+", default=[4, 16])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--flush", default="ASYNC_FLUSH", choices=["ASYNC_FLUSH", "SYNC_FLUSH"])
    ap.add_argument("--serve", metavar="DATA_DIR", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        asyncio.run(serve(args.serve, args.flush))
        return
    with tempfile.TemporaryDirectory() as data:
        cmd = [sys.executable, __file__, "--serve", data, "--flush", args.flush]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        try:
            addr = json.loads(proc.stdout.readline())["broker"]  # type: ignore[union-attr]
            for p in args.producers:
                rate = asyncio.run(run(addr, p, args.seconds))
                result = {"producers": p, "bodyBytes": 1024, "flush": args.flush, "msgsPerSecond": round(rate)}
                print(json.dumps(result))
        finally:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
