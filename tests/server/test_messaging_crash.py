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
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from mqadmin.model.rpc.messages import PULL_MESSAGE, SEND_BATCH_MESSAGE, SEND_MESSAGE, SendHeaderV2
from mqadmin.server.broker.batch import encode_batch
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire.codes import ResponseCode as R
from mqadmin.wire.message import decode_messages, new_uniq_key

from .conftest import call, pull_header, send_header


async def dev_up(data_dir: Path) -> tuple[asyncio.subprocess.Process, dict]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mqadmin", "--format", "json", "dev", "up", "--brokers", "1",
        "--namesrv-port", "0", "--broker-port", "0", "--data-dir", str(data_dir),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    line = await asyncio.wait_for(proc.stdout.readline(), 60)  # type: ignore[union-attr]
    return proc, json.loads(line)


@asynccontextmanager
async def running(data_dir: Path) -> AsyncIterator[tuple[asyncio.subprocess.Process, TcpTransport, str]]:
    """``dev up`` on ``data_dir``: its process, a transport and the broker's address; stopped at the end
    unless killed before."""
    proc, info = await dev_up(data_dir)
    transport = TcpTransport(timeout=10)
    try:
        yield proc, transport, info["brokers"][0]["addr"]
    finally:
        await transport.aclose()
        if proc.returncode is None:
            proc.terminate()
            await proc.wait()


async def kill_9(proc: asyncio.subprocess.Process) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    await proc.wait()


async def test_acknowledged_messages_survive_kill_9(tmp_path: Path):
    acked = []
    async with running(tmp_path) as (proc, transport, addr):
        for i in range(50):
            resp = await call(transport, addr, SEND_MESSAGE, send_header("Crash", queue_id=i % 2), b"m%d" % i)
            assert resp.code == R.SUCCESS
            acked.append(b"m%d" % i)
        await kill_9(proc)
    async with running(tmp_path) as (proc, transport, addr):
        got = []
        for qid in (0, 1):
            resp = await call(transport, addr, PULL_MESSAGE, pull_header("Crash", queue_id=qid, max_msgs=64))
            got += [m.body for m in decode_messages(resp.body)]
        assert sorted(got) == sorted(acked)
        nxt = await call(transport, addr, SEND_MESSAGE, send_header("Crash", queue_id=0), b"after")
        assert (nxt.code, SEND_MESSAGE.reply(nxt).header.queue_offset) == (R.SUCCESS, 25)


async def test_acknowledged_batches_survive_kill_9(tmp_path: Path):
    """A batch is answered once its records are written, as one unit: every acknowledged batch is read back
    whole after ``kill -9``, and the queue's offsets go on after it."""
    header = SendHeaderV2(
        producer_group="PG", topic="CrashBatch", default_topic="TBW102", default_topic_queue_nums=4, queue_id=1,
        sys_flag=0, born_timestamp=0, flag=0, batch=True,
    )  # fmt: skip
    acked: list[bytes] = []
    async with running(tmp_path) as (proc, transport, addr):
        for b in range(20):  # the first creates the topic; the others are answered from the store's commit
            bodies = [b"b%d-m%d" % (b, i) for i in range(16)]
            props = "TAGS\x01t\x02WAIT\x01true\x02UNIQ_KEY\x01{}\x02"
            batch = encode_batch([(0, body, props.format(new_uniq_key())) for body in bodies])
            resp = await call(transport, addr, SEND_BATCH_MESSAGE, header, batch)
            assert (resp.code, resp.ext["queueOffset"]) == (R.SUCCESS, str(16 * b)), resp.remark
            acked += bodies
        await kill_9(proc)
    async with running(tmp_path) as (proc, transport, addr):
        got: list[bytes] = []
        while len(got) < len(acked):
            pull = pull_header("CrashBatch", queue_id=1, offset=len(got), max_msgs=32)
            resp = await call(transport, addr, PULL_MESSAGE, pull)
            assert resp.code == R.SUCCESS and resp.body, resp.remark
            got += [m.body for m in decode_messages(resp.body)]
        assert got == acked
        nxt = await call(transport, addr, SEND_BATCH_MESSAGE, header, encode_batch([(0, b"after", "")]))
        assert (nxt.code, nxt.ext["queueOffset"]) == (R.SUCCESS, "320")
