"""A message the broker acknowledged survives ``kill -9`` of the broker process.

With the default ASYNC_FLUSH a send is answered once its bytes are written to the operating
system, so a killed process loses nothing acknowledged (a power loss could lose the last ~0.5 s,
which SYNC_FLUSH prevents; that is not testable here)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

from mqadmin.model.rpc.messages import PULL_MESSAGE, SEND_MESSAGE
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire.codes import ResponseCode as R
from mqadmin.wire.message import decode_messages

from .conftest import call, pull_header, send_header


async def dev_up(data_dir: Path) -> tuple[asyncio.subprocess.Process, dict]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mqadmin", "--format", "json", "dev", "up", "--brokers", "1",
        "--namesrv-port", "0", "--broker-port", "0", "--data-dir", str(data_dir),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    line = await asyncio.wait_for(proc.stdout.readline(), 60)  # type: ignore[union-attr]
    return proc, json.loads(line)


async def test_acknowledged_messages_survive_kill_9(tmp_path: Path):
    proc, info = await dev_up(tmp_path)
    transport = TcpTransport(timeout=10)
    try:
        addr = info["brokers"][0]["addr"]
        acked = []
        for i in range(50):
            resp = await call(transport, addr, SEND_MESSAGE, send_header("Crash", queue_id=i % 2), b"m%d" % i)
            assert resp.code == R.SUCCESS
            acked.append(b"m%d" % i)
        os.kill(proc.pid, signal.SIGKILL)
        await proc.wait()
    finally:
        await transport.aclose()
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    proc, info = await dev_up(tmp_path)
    transport = TcpTransport(timeout=10)
    try:
        addr = info["brokers"][0]["addr"]
        got = []
        for qid in (0, 1):
            resp = await call(transport, addr, PULL_MESSAGE, pull_header("Crash", queue_id=qid, max_msgs=64))
            got += [m.body for m in decode_messages(resp.body)]
        assert sorted(got) == sorted(acked)
        nxt = await call(transport, addr, SEND_MESSAGE, send_header("Crash", queue_id=0), b"after")
        assert (nxt.code, SEND_MESSAGE.reply(nxt).header.queue_offset) == (R.SUCCESS, 25)
    finally:
        await transport.aclose()
        proc.terminate()
        await proc.wait()
