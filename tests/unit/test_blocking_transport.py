"""BlockingTransport against a scripted peer (a thread with a plain socket on 127.0.0.1): the same bytes and the
same errors, with the same texts, as TcpTransport; its coroutines complete without an event loop; and the
runner's loop-free driver never runs a command twice."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import threading
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

import pytest

from mqadmin.transport.blocking import BlockingTransport
from mqadmin.transport.credentials import Credentials
from mqadmin.transport.errors import (
    ConnectionClosed,
    ConnectionRefused,
    HostNotFound,
    RequestTimeout,
    TransportError,
)
from mqadmin.transport.gather import SuspendedWithoutLoop, run_to_end
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand, decode_frame, encode_frame

Script = Callable[[socket.socket], None]


def read_raw(conn: socket.socket) -> bytes:
    """One whole frame as sent (length field included)."""
    head = _exactly(conn, 4)
    return head + _exactly(conn, struct.unpack(">i", head)[0])


def read_cmd(conn: socket.socket) -> RemotingCommand:
    return decode_frame(read_raw(conn)[4:])


def _exactly(conn: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise ConnectionError("the client closed")
        data += chunk
    return data


@contextlib.contextmanager
def peer(script: Script) -> Iterator[str]:
    """A server accepting one connection and running ``script`` on it in a thread; yields its address."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        failures: list[BaseException] = []

        def run() -> None:
            conn, _ = listener.accept()
            with conn:
                try:
                    script(conn)
                except BaseException as e:  # reported by the test, not lost in the thread
                    failures.append(e)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        yield f"127.0.0.1:{listener.getsockname()[1]}"
        thread.join(30)
        assert not thread.is_alive(), "the scripted peer did not finish"
        if failures:
            raise failures[0]


def blocking(coro: Coroutine[Any, Any, Any]) -> Any:
    """A BlockingTransport coroutine, run as the CLI runs it: to its end at its first step."""
    return run_to_end(coro)


def via_tcp(addr: str, cmd: RemotingCommand, timeout: float = 5, **settings: Any) -> RemotingCommand:
    async def go() -> RemotingCommand:
        async with TcpTransport(timeout=timeout, **settings) as t:
            return await t.request(addr, cmd)

    return asyncio.run(go())


def via_blocking(addr: str, cmd: RemotingCommand, timeout: float = 5, **settings: Any) -> RemotingCommand:
    t = BlockingTransport(timeout=timeout, **settings)
    try:
        return blocking(t.request(addr, cmd))
    finally:
        blocking(t.aclose())


def error_text(script: Script, send: Callable[[str, RemotingCommand], RemotingCommand]) -> tuple[type, str]:
    with peer(script) as addr, pytest.raises(TransportError) as e:
        send(addr, RemotingCommand(code=105))
    return type(e.value), str(e.value).replace(addr, "ADDR")


def answer(conn: socket.socket, req: RemotingCommand, remark: str) -> None:
    conn.sendall(encode_frame(req.response(0, remark)))


def test_stale_answers_are_dropped_and_server_requests_refused() -> None:
    seen: list[RemotingCommand] = []

    def script(conn: socket.socket) -> None:
        req = read_cmd(conn)
        answer(conn, RemotingCommand(code=105, opaque=req.opaque + 100), "an answer nobody waits for")
        conn.sendall(encode_frame(RemotingCommand(code=40, opaque=7)))  # the server asks us something
        seen.append(read_cmd(conn))
        answer(conn, req, "the answer")

    with peer(script) as addr:
        resp = via_blocking(addr, RemotingCommand(code=105))
    assert resp.remark == "the answer"
    assert [(r.code, r.opaque, r.is_response) for r in seen] == [(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, 7, True)]


def test_a_timed_out_request_leaves_the_connection_usable_even_mid_frame() -> None:
    gave_up = threading.Event()

    def script(conn: socket.socket) -> None:
        first = read_cmd(conn)
        late = encode_frame(first.response(0, "late"))
        conn.sendall(late[:7])  # half a frame, then nothing until the client has given up
        gave_up.wait(30)
        second = read_cmd(conn)
        conn.sendall(late[7:])
        answer(conn, second, "in time")

    t = BlockingTransport(timeout=0.3)
    with peer(script) as addr:
        with pytest.raises(RequestTimeout) as timed_out:
            blocking(t.request(addr, RemotingCommand(code=105)))
        gave_up.set()
        resp = blocking(t.request(addr, RemotingCommand(code=106)))
        blocking(t.aclose())
    assert str(timed_out.value) == f"request 105 to {addr} got no answer within 0.3s"
    assert resp.remark == "in time"


def test_the_server_closing_mid_frame_reads_as_with_tcp() -> None:
    def script(conn: socket.socket) -> None:
        read_raw(conn)
        conn.sendall(struct.pack(">i", 100) + b"0123456789")

    assert error_text(script, via_blocking) == error_text(script, via_tcp)
    assert error_text(script, via_blocking) == (ConnectionClosed, "connection to ADDR was closed: by the server")


def test_a_malformed_frame_reads_as_with_tcp() -> None:
    def script(conn: socket.socket) -> None:
        read_raw(conn)
        conn.sendall(struct.pack(">ii", 8, 100) + b"{}{}")  # a header of 100 bytes in a frame of 8
        conn.recv(1)  # until the client closes

    kind, text = error_text(script, via_blocking)
    assert (kind, text) == error_text(script, via_tcp)
    assert kind is ConnectionClosed and text.startswith("connection to ADDR was closed: undecodable frame")


def test_refused_and_unknown_hosts_read_as_with_tcp(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.create_server(("127.0.0.1", 0)) as s:
        free = f"127.0.0.1:{s.getsockname()[1]}"
    cmd = RemotingCommand(code=105)
    for send in (via_blocking, via_tcp):
        with pytest.raises(ConnectionRefused, match=f"connection to {free} refused"):
            send(free, cmd)

    def unknown(*args: object, **kw: object) -> None:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", unknown)  # no DNS query leaves the machine
    texts = set()
    for send in (via_blocking, via_tcp):
        with pytest.raises(HostNotFound) as e:
            send("broker.example:10911", cmd)
        texts.add(str(e.value))
    assert texts == {"cannot resolve the host of broker.example:10911: Name or service not known"}


def test_signed_requests_are_the_same_bytes() -> None:
    sent: list[bytes] = []

    def script(conn: socket.socket) -> None:
        raw = read_raw(conn)
        sent.append(raw)
        answer(conn, decode_frame(raw[4:]), "ok")

    credentials = Credentials("rocketmq2", "12345678", "token")
    for send in (via_blocking, via_tcp):
        with peer(script) as addr:
            cmd = RemotingCommand(code=17, ext={"topic": "Orders"}, body=b"payload")
            assert send(addr, cmd, credentials=credentials).remark == "ok"
    assert len(sent) == 2 and sent[0] == sent[1]
    assert {"AccessKey", "Signature", "SecurityToken"} <= decode_frame(sent[0][4:]).ext.keys()


def test_a_command_that_suspends_is_stopped_not_run_again() -> None:
    """The driver of ``blocking=True`` commands: one that awaits something needing an event loop (a
    programming error) is closed where it stands, its cleanup run once, nothing repeated."""
    steps: list[str] = []

    async def command() -> str:
        steps.append("request sent")
        try:
            await asyncio.sleep(0)
        finally:
            steps.append("cleaned up")
        steps.append("after the sleep")
        return "done"

    async def sequential() -> str:
        return "done"

    assert run_to_end(sequential()) == "done"
    with pytest.raises(SuspendedWithoutLoop, match="must not be run with blocking=True"):
        run_to_end(command())
    assert steps == ["request sent", "cleaned up"]


def test_a_oneway_request_is_sent_flagged_and_not_waited_for() -> None:
    got: list[RemotingCommand] = []
    t = BlockingTransport(timeout=5)
    with peer(lambda conn: got.append(read_cmd(conn))) as addr:
        blocking(t.oneway(addr, RemotingCommand(code=34, ext={"clientID": "c1"})))
        blocking(t.aclose())
    assert [(c.code, c.is_oneway, c.ext) for c in got] == [(34, True, {"clientID": "c1"})]
