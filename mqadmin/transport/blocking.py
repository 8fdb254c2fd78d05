"""Blocking-socket connections speaking remoting frames, for commands run without an event loop.

A one-request command spends more time importing asyncio (with ssl, concurrent.futures and logging) and
running its event loop than waiting for its answer. ``BlockingTransport`` has the same methods as
``TcpTransport``, coroutines too, but they wait on the socket itself and never suspend: a coroutine that
reaches the network only through it completes at its first step (``transport.gather.run_to_end`` drives it
so, without an event loop). A connection runs one request at a time: coroutines that ``transport.gather`` runs on
threads of their own (a fan-out without an event loop) each hold their server's connection while they use it.

The bytes sent (opaque numbering, signing) and the errors raised, with their texts, are those of
``TcpTransport`` (shared in ``transport.base`` and ``transport.errors``). Received bytes are kept until a
whole frame is there, so a request that timed out leaves the connection usable, as with ``TcpTransport``;
an answer that arrives late is dropped by its opaque. A request the server sends us (never to an admin
tool in practice) gets REQUEST_CODE_NOT_SUPPORTED, as ``TcpTransport`` without a handler answers it.
"""

from __future__ import annotations

import socket
import struct
import time
from _thread import allocate_lock  # threading's Lock, without importing threading (1 ms) for every command
from typing import TYPE_CHECKING

from mqadmin.transport.base import FramingTransport, not_served
from mqadmin.transport.errors import ConnectionClosed, RequestTimeout, TransportError, connect_error
from mqadmin.wire.address import split_addr
from mqadmin.wire.frame import (
    MAX_ANSWER_LENGTH,
    ONEWAY_FLAG,
    FrameError,
    RemotingCommand,
    check_length,
    decode_frame,
    encode_frame,
)

if TYPE_CHECKING:
    import ssl


_LENGTH = struct.Struct(">i")
_CHUNK = 64 * 1024


class BlockingConnection:
    """One socket; each request waits for its own answer before the next is sent."""

    def __init__(self, addr: str, sock: socket.socket, oneway_timeout: float) -> None:
        self.addr = addr
        self._sock = sock
        self._oneway_timeout = oneway_timeout
        self._received = bytearray()
        self._closed: TransportError | None = None
        self._turn = allocate_lock()  # one request at a time, whichever thread sends it

    @classmethod
    def open(
        cls,
        addr: str,
        *,
        timeout: float,
        oneway_timeout: float,
        ssl: ssl.SSLContext | None = None,
        server_hostname: str | None = None,
    ) -> BlockingConnection:
        """Connect within ``timeout`` (and shake hands when ``ssl`` is given, checking the certificate against
        ``server_hostname``, by default the host dialled). A oneway request may take ``oneway_timeout`` to
        write."""
        host, port = split_addr(addr)
        sock = None
        try:
            # a str host goes through the idna codec (importing it, stringprep and unicodedata): not needed for
            # an IP address or an ASCII name
            sock = socket.create_connection((host.encode() if host.isascii() else host, port), timeout)  # type: ignore[arg-type]  # a bytes host is accepted; typeshed says str
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as asyncio does
            if ssl is not None:
                sock = ssl.wrap_socket(sock, server_hostname=server_hostname or host)
        except OSError as e:  # TimeoutError, refused, unresolvable, TLS refused
            if sock is not None:
                sock.close()
            raise connect_error(addr, e, timeout=timeout, tls=ssl is not None) from None
        return cls(addr, sock, oneway_timeout)

    @property
    def closed(self) -> bool:
        return self._closed is not None

    async def request(self, cmd: RemotingCommand, timeout: float) -> RemotingCommand:
        """Send ``cmd`` and wait (up to ``timeout``: RequestTimeout) for its answer; never suspends."""
        deadline = time.monotonic() + timeout
        try:
            with self._turn:
                self._send(cmd, deadline)
                while True:
                    frame = self._read_frame(deadline)
                    if not frame.is_response:
                        self._refuse(frame, deadline)
                    elif frame.opaque == cmd.opaque:
                        return frame
        except TimeoutError:
            raise RequestTimeout(self.addr, cmd.code, timeout) from None

    async def oneway(self, cmd: RemotingCommand) -> None:
        cmd.flag |= ONEWAY_FLAG
        try:
            with self._turn:
                self._send(cmd, time.monotonic() + self._oneway_timeout)
        except TimeoutError:  # the frame could not be written in time (the connection is then closed)
            raise self._closed or RequestTimeout(self.addr, cmd.code, self._oneway_timeout) from None

    def _send(self, cmd: RemotingCommand, deadline: float) -> None:
        if self._closed:
            raise self._closed
        data = encode_frame(cmd)
        self._wait_until(deadline)
        try:
            self._sock.sendall(data)
        except TimeoutError:
            self._fail(ConnectionClosed(self.addr, "a frame was left half written"))  # the stream is lost
            raise
        except OSError as e:
            self._fail(ConnectionClosed.broken(self.addr, e))
            raise self._closed from None  # type: ignore[misc]  # _fail has set it

    def _read_frame(self, deadline: float) -> RemotingCommand:
        """The next whole frame; TimeoutError at ``deadline`` with the bytes read so far kept for the next call."""
        self._fill(4, deadline)
        (length,) = _LENGTH.unpack_from(self._received)
        try:
            check_length(length, MAX_ANSWER_LENGTH)
            self._fill(4 + length, deadline)
            frame = bytes(self._received[4 : 4 + length])
            del self._received[: 4 + length]
            return decode_frame(frame)
        except FrameError as e:
            self._fail(ConnectionClosed.undecodable(self.addr, e))
            raise self._closed from None  # type: ignore[misc]  # _fail has set it

    def _fill(self, size: int, deadline: float) -> None:
        while len(self._received) < size:
            if self._closed:
                raise self._closed
            self._wait_until(deadline)
            try:
                chunk = self._sock.recv(max(_CHUNK, size - len(self._received)))
            except TimeoutError:
                raise  # the bytes read so far stay for the next call
            except OSError as e:
                self._fail(ConnectionClosed.broken(self.addr, e))
                raise self._closed from None  # type: ignore[misc]  # _fail has set it
            if not chunk:
                self._fail(ConnectionClosed.by_server(self.addr))
                raise self._closed  # type: ignore[misc]  # _fail has set it
            self._received += chunk

    def _wait_until(self, deadline: float) -> None:
        """The socket's timeout for its next call: what is left until ``deadline`` (TimeoutError when nothing)."""
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        self._sock.settimeout(left)

    def _refuse(self, req: RemotingCommand, deadline: float) -> None:
        """A request the server sent us: not served here (oneway ones get nothing)."""
        if not req.is_oneway:
            self._send(not_served(req), deadline)

    def _fail(self, err: TransportError) -> None:
        if self._closed is None:
            self._closed = err
        self._sock.close()

    def close(self) -> None:
        self._sock.close()  # without TLS's close_notify exchange, as TcpTransport (the servers never answer it)


class BlockingTransport(FramingTransport[BlockingConnection]):
    """Blocking connections keyed by address (the settings are ``FramingTransport``'s); ``request`` and
    ``oneway`` are coroutines that never suspend."""

    _keeping = allocate_lock()  # held only to look at and set ``_conns``, never while connecting

    async def _connection(self, addr: str) -> BlockingConnection:
        conn = self._conns.get(addr)
        if conn is None or conn.closed:
            opened = BlockingConnection.open(
                addr,
                timeout=self.connect_timeout,
                oneway_timeout=self.timeout,
                ssl=self._ssl,
                server_hostname=self._server_name,
            )
            with self._keeping:  # another thread may have opened one meanwhile: every thread uses the first kept
                conn = self._conns.get(addr)
                if conn is None or conn.closed:
                    conn = self._conns[addr] = opened
            if conn is not opened:
                opened.close()
        return conn

    async def aclose(self) -> None:
        conns, self._conns = list(self._conns.values()), {}
        for conn in conns:
            conn.close()
