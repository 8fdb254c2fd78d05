"""TcpTransport against a tiny scripted asyncio server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from mqadmin.transport import ConnectionClosed, ConnectionRefused, RequestTimeout, TcpTransport
from mqadmin.transport.frames import FrameReader
from mqadmin.wire.frame import RemotingCommand, decode_frame, encode_frame

Script = Callable[["Peer"], Awaitable[None]]


class Peer:
    """The server side of one accepted connection, driven by a test script."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.frames = FrameReader(reader)
        self.writer = writer

    async def read(self) -> RemotingCommand:
        return await self.frames.read()

    async def write(self, cmd: RemotingCommand) -> None:
        self.writer.write(encode_frame(cmd))
        await self.writer.drain()

    async def answer(self, req: RemotingCommand, remark: str | None = None) -> None:
        await self.write(req.response(0, remark or f"answer to {req.code}"))


class ScriptedServer:
    def __init__(self, script: Script) -> None:
        self.script = script
        self.accepted = 0
        self.tasks: set[asyncio.Task[None]] = set()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            await self.script(Peer(reader, writer))
        writer.close()


@contextlib.asynccontextmanager
async def serve(script: Script) -> AsyncIterator[tuple[str, ScriptedServer]]:
    state = ScriptedServer(script)
    server = await asyncio.start_server(state._accept, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"127.0.0.1:{port}", state
    finally:
        server.close()


def _request(code: int) -> RemotingCommand:
    return RemotingCommand(code=code)


async def test_out_of_order_responses_are_matched_by_opaque() -> None:
    async def script(peer: Peer) -> None:
        first, second = await peer.read(), await peer.read()
        await peer.answer(second)  # the later request is answered first
        await peer.answer(first)

    async with serve(script) as (addr, _), TcpTransport(timeout=5) as t:
        r1, r2 = await asyncio.gather(t.request(addr, _request(105)), t.request(addr, _request(106)))
    assert (r1.remark, r2.remark) == ("answer to 105", "answer to 106")
    assert r1.opaque != r2.opaque


async def test_unanswered_request_times_out_and_the_connection_stays_usable() -> None:
    async def script(peer: Peer) -> None:
        await peer.read()  # never answered
        await peer.answer(await peer.read())

    async with serve(script) as (addr, state), TcpTransport(timeout=5) as t:
        with pytest.raises(RequestTimeout) as e:
            await t.request(addr, _request(28), timeout=0.2)
        assert e.value.addr == addr and e.value.code == 28
        assert (await t.request(addr, _request(106))).remark == "answer to 106"
    assert state.accepted == 1


async def test_refused_connection() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound but not listening: connecting is refused
        async with TcpTransport(timeout=2) as t:
            with pytest.raises(ConnectionRefused) as e:
                await t.request(f"127.0.0.1:{port}", _request(106))
    assert e.value.addr == f"127.0.0.1:{port}"


async def test_reset_mid_request_is_connection_closed() -> None:
    async def script(peer: Peer) -> None:
        await peer.read()
        sock = peer.writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST on close
        peer.writer.transport.abort()

    async with serve(script) as (addr, _), TcpTransport(timeout=5) as t:
        with pytest.raises(ConnectionClosed):
            await t.request(addr, _request(17))


async def test_server_initiated_request_is_answered_with_code_3_and_oneway_is_not() -> None:
    seen: list[RemotingCommand] = []

    async def script(peer: Peer) -> None:
        req = await peer.read()
        await peer.write(RemotingCommand(code=40, opaque=900, flag=2))  # NOTIFY_CONSUMER_IDS_CHANGED, oneway
        await peer.write(RemotingCommand(code=307, opaque=901))  # GET_CONSUMER_RUNNING_INFO
        seen.append(await peer.read())
        await peer.answer(req)

    async with serve(script) as (addr, _), TcpTransport(timeout=5) as t:
        await t.request(addr, _request(34))
    (answer,) = seen  # the oneway request got nothing, or the script would have read its answer here
    assert (answer.code, answer.opaque, answer.is_response) == (3, 901, True)
    assert "307" in (answer.remark or "")


async def test_oneway_request_sets_the_flag_and_expects_nothing() -> None:
    got: asyncio.Queue[RemotingCommand] = asyncio.Queue()

    async def script(peer: Peer) -> None:
        await got.put(await peer.read())
        await peer.answer(await peer.read())

    async with serve(script) as (addr, _), TcpTransport(timeout=5) as t:
        await t.oneway(addr, _request(15))
        oneway = await asyncio.wait_for(got.get(), 5)
        assert oneway.is_oneway
        assert (await t.request(addr, _request(106))).remark == "answer to 106"


async def test_one_connection_per_address_is_reused() -> None:
    async def script(peer: Peer) -> None:
        while True:
            await peer.answer(await peer.read())

    async with serve(script) as (addr, state), TcpTransport(timeout=5) as t:
        await asyncio.gather(*(t.request(addr, _request(106)) for _ in range(10)))
        await t.request(addr, _request(105))
    assert state.accepted == 1


async def test_a_large_answer_arriving_while_this_process_was_busy_is_read_not_timed_out() -> None:
    """The client's own event loop is busy past a request's deadline (as while it decodes another large answer)
    while a large answer (many socket reads) comes in: the request gets it instead of a timeout, as the loop's
    stall is not the peer's delay. The server is a thread of its own, so the client's stall does not hold it up."""
    import threading
    import time

    listener = socket.create_server(("127.0.0.1", 0))
    received, go, sending = threading.Event(), threading.Event(), threading.Event()
    body = b"x" * (4 << 20)

    def server() -> None:
        conn, _ = listener.accept()
        with conn:
            (length,) = struct.unpack(">i", conn.recv(4, socket.MSG_WAITALL))
            req = decode_frame(conn.recv(length, socket.MSG_WAITALL))
            received.set()
            go.wait(30)
            sending.set()
            conn.sendall(encode_frame(req.response(0, "large", body=body)))
            conn.recv(1)  # until the client closes

    thread = threading.Thread(target=server, daemon=True)
    thread.start()
    timeout = 1.0
    loop = asyncio.get_running_loop()
    async with TcpTransport(timeout=5) as t:
        start = loop.time()
        call = asyncio.create_task(t.request(f"127.0.0.1:{listener.getsockname()[1]}", _request(21), timeout=timeout))
        assert await asyncio.to_thread(received.wait, 30)
        go.set()  # from here the loop is blocked: the busy part of this process
        assert sending.wait(30)
        time.sleep(max(0.0, start + 2 * timeout - loop.time()))  # the stall outlasts the request's deadline
        answer = await call
        assert (answer.remark, len(answer.body or b"")) == ("large", len(body))
    listener.close()
    thread.join(30)
