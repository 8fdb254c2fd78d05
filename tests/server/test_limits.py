"""Connection limits of the remoting server: idle connections, frames that never finish, memory held
by incoming frames, deeply nested headers, and rate-limited logging of bad frames."""

from __future__ import annotations

import asyncio
import inspect
import logging
import socket
import struct
from pathlib import Path

import pytest

from mqadmin.model.rpc.namesrv import GET_BROKER_CLUSTER_INFO
from mqadmin.server.namesrv.config import NamesrvConfig
from mqadmin.server.namesrv.server import NameServer
from mqadmin.server.ratelog import RateLimitedLog
from mqadmin.server.remoting import ConnectionLimits, RemotingServer
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire.codes import ResponseCode as R
from mqadmin.wire.frame import MAX_FRAME_LENGTH, RemotingCommand
from tests.devprocs import start_dev

from .conftest import request, until
from .hostile import raw_frame


class Peer:
    """A raw TCP connection whose closing by the server can be observed without blocking."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self._eof = asyncio.get_running_loop().create_task(self._wait_eof())

    @classmethod
    async def open(cls, port: int) -> Peer:
        return cls(*await asyncio.open_connection("127.0.0.1", port))

    async def _wait_eof(self) -> None:
        try:
            while await self.reader.read(1 << 16):
                pass
        except (ConnectionError, OSError):
            pass

    @property
    def closed_by_server(self) -> bool:
        return self._eof.done()

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    def close(self) -> None:
        self.writer.close()
        self._eof.cancel()


@pytest.fixture
async def serve():
    """``await serve(limits)``: a bare remoting server with a blocking handler (code 1) and an echo (code 2)."""
    servers: list[RemotingServer] = []
    peers: list[Peer] = []

    async def factory(limits: ConnectionLimits) -> tuple[RemotingServer, asyncio.Event]:
        server = RemotingServer("limits", limits=limits)
        release = asyncio.Event()

        async def blocking(cmd: RemotingCommand, ch) -> RemotingCommand:
            await release.wait()
            return cmd.response(R.SUCCESS)

        async def echo(cmd: RemotingCommand, ch) -> RemotingCommand:
            return cmd.response(R.SUCCESS, body=cmd.body)

        server.register(1, blocking)
        server.register(2, echo)
        await server.start()
        servers.append(server)
        return server, release

    async def connect(server: RemotingServer) -> Peer:
        peer = await Peer.open(server.port)
        peers.append(peer)
        return peer

    factory.connect = connect  # type: ignore[attr-defined]
    yield factory
    for p in peers:
        p.close()
    for s in servers:
        await s.close()


async def test_an_idle_connection_is_closed_but_not_one_with_a_request_in_progress(serve):
    server, release = await serve(ConnectionLimits(idle_timeout=0.2, frame_timeout=30))
    busy = await serve.connect(server)
    await busy.send(raw_frame(1, {}))
    await until(lambda: any(ch.in_flight for ch in server._channels), what="the request in progress")
    idle = await serve.connect(server)
    await until(lambda: idle.closed_by_server, what="the idle connection to be closed")
    assert not busy.closed_by_server  # idle as long, but a request is being handled
    release.set()
    await until(lambda: busy.closed_by_server, what="the busy connection to be closed once idle")


async def test_a_frame_that_never_finishes_is_dropped_and_its_memory_released(serve):
    server, _ = await serve(ConnectionLimits(idle_timeout=600, frame_timeout=0.2))
    stalled = await serve.connect(server)
    await stalled.send(struct.pack(">i", 1_000_000) + b"\x00" * 4096)
    await until(lambda: server.partial_bytes == 1_000_000, what="the frame to be reserved")
    await until(lambda: stalled.closed_by_server, what="the stalled frame's connection to be closed")
    await until(lambda: server.partial_bytes == 0, what="the reservation to be released")


async def test_memory_held_by_incoming_frames_is_capped(serve):
    """20 connections each sending 16 MiB minus 4 KiB and stalling held 320 MiB indefinitely."""
    cap = 64 * 1024 * 1024
    server, _ = await serve(ConnectionLimits(idle_timeout=600, frame_timeout=600, partial_frame_memory=cap))
    length = MAX_FRAME_LENGTH - 4096
    peers = [await serve.connect(server) for _ in range(20)]
    for p in peers:
        await p.send(struct.pack(">i", length) + b"\x00" * 4096)
    fits = cap // length
    await until(lambda: sum(p.closed_by_server for p in peers) == 20 - fits, what="the frames over the cap refused")
    assert server.partial_bytes == fits * length <= cap
    async with TcpTransport(timeout=10) as t:  # small frames still get through
        resp = await request(t, f"127.0.0.1:{server.port}", 2, body=b"ping")
    assert (resp.code, resp.body) == (R.SUCCESS, b"ping")
    for p in peers:
        p.close()
    await until(lambda: server.partial_bytes == 0, what="the reservations to be released")


async def test_deeply_nested_headers_cost_one_connection_and_one_rate_limited_line_each(serve, caplog):
    server, _ = await serve(ConnectionLimits())
    caplog.set_level(logging.INFO, logger="mqadmin.server.remoting")
    for depth in (17, 5000, 500_000):
        header = b"[" * depth + b"]" * depth
        peer = await serve.connect(server)
        await peer.send(struct.pack(">ii", 4 + len(header), len(header)) + header)
        await until(lambda p=peer: p.closed_by_server, what="the connection with a deep header to be closed")
    lines = [r for r in caplog.records if r.name == "mqadmin.server.remoting"]
    assert len(lines) == 3 and all(r.exc_info is None and "nested deeper than 16" in r.getMessage() for r in lines)
    async with TcpTransport(timeout=10) as t:
        assert (await request(t, f"127.0.0.1:{server.port}", 2, body=b"x")).code == R.SUCCESS


def test_rate_limited_log_keeps_floods_to_a_few_lines(caplog):
    now = [0.0]
    logger = logging.getLogger("test.ratelog")
    rl = RateLimitedLog(logger, period=10, burst=3, clock=lambda: now[0])
    with caplog.at_level(logging.INFO, logger="test.ratelog"):
        for i in range(1000):
            rl.info("bad frame %d", i)
        now[0] = 11.0
        rl.info("next window")
    assert [r.getMessage() for r in caplog.records] == [
        "bad frame 0",
        "bad frame 1",
        "bad frame 2",
        "997 similar message(s) left out in the last 10 s",
        "next window",
    ]


async def test_limits_come_from_the_server_config(tmp_path: Path):
    limits = ConnectionLimits(idle_timeout=0.2, frame_timeout=0.2, partial_frame_memory=1 << 20)
    ns = NameServer(NamesrvConfig(listen_port=0, data_dir=tmp_path, limits=limits))
    await ns.start()
    try:
        assert ns.server.limits == limits
        peer = await Peer.open(ns.config.listen_port)
        await until(lambda: peer.closed_by_server, what="the name server to close an idle connection")
        peer.close()
        async with TcpTransport(timeout=10) as t:
            assert (await t.request(ns.addr, GET_BROKER_CLUSTER_INFO.request())).code == R.SUCCESS
    finally:
        await ns.stop()


@pytest.mark.parametrize("command", ["up", "namesrv", "broker"])
def test_the_dev_commands_default_to_the_servers_limits(command):
    from mqadmin.cli.commands import dev

    params = inspect.signature(getattr(dev, command)).parameters
    limits = ConnectionLimits()
    assert params["idle_timeout"].default == limits.idle_timeout
    assert params["frame_timeout"].default == limits.frame_timeout
    assert params["partial_frame_memory"].default * 1024 * 1024 == limits.partial_frame_memory


def test_dev_namesrv_takes_the_limits_from_its_options(tmp_path):
    proc, info = start_dev("namesrv", "--port", "0", "--data-dir", str(tmp_path), "--idle-timeout", "0.3")
    try:
        host, port = info["namesrvAddr"].rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=30) as s:
            assert s.recv(1) == b""  # closed by the server once idle
    finally:
        assert proc.stop() == 0
