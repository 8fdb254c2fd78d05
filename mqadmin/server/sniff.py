"""Apache's permissive TLS mode (``tls.server.mode=permissive``): one port for TLS and plain TCP, told apart by
the first byte a client sends (0x16 starts a TLS handshake), as Netty's ``SslHandler`` detection does.

RocketMQ clients speak first, so the first byte is peeked (left in the socket) before the connection is handed
to asyncio with or without TLS. A client that sends nothing within the timeout, or fails its handshake, loses
its connection and nothing else happens.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
from collections.abc import Callable

TLS_HANDSHAKE = 0x16

ProtocolFactory = Callable[[], asyncio.Protocol]

log = logging.getLogger(__name__)


class PermissiveListener:
    """What RemotingServer needs of an ``asyncio.Server``: ``sockets``, ``close`` and ``wait_closed``."""

    def __init__(self, protocol: ProtocolFactory, host: str, port: int, tls: ssl.SSLContext, *, timeout: float) -> None:
        """Listen on ``host:port`` (within a running event loop); each connection gets a ``protocol()``."""
        self._sock = socket.create_server((host, port))
        self._sock.setblocking(False)
        self._protocol = protocol
        self._tls = tls
        self._timeout = timeout
        self._connections: set[asyncio.Task[None]] = set()
        self._task = asyncio.get_running_loop().create_task(self._accept_loop())

    @property
    def sockets(self) -> list[socket.socket]:
        return [self._sock]

    def close(self) -> None:
        self._task.cancel()
        for task in list(self._connections):
            task.cancel()
        self._sock.close()

    async def wait_closed(self) -> None:
        await asyncio.gather(self._task, *self._connections, return_exceptions=True)

    async def _accept_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                conn, _ = await loop.sock_accept(self._sock)
            except OSError as e:  # out of file descriptors: let connections close before accepting more
                log.warning("accepting a connection failed: %s", e)
                await asyncio.sleep(1.0)
                continue
            task = loop.create_task(self._serve(conn))
            self._connections.add(task)
            task.add_done_callback(self._connections.discard)

    async def _serve(self, conn: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        handed_over = False
        try:
            first = await asyncio.wait_for(_peek(loop, conn), self._timeout)
            if not first:
                return
            tls = self._tls if first[0] == TLS_HANDSHAKE else None
            await loop.connect_accepted_socket(
                self._protocol, conn, ssl=tls, ssl_handshake_timeout=self._timeout if tls else None
            )
            handed_over = True
        except (TimeoutError, OSError):  # silent, a failed handshake (ssl.SSLError is an OSError)
            pass
        finally:
            if not handed_over:
                conn.close()


async def _peek(loop: asyncio.AbstractEventLoop, conn: socket.socket) -> bytes:
    """The first byte the peer sent, left in the socket (b"": it closed)."""
    while True:
        with contextlib.suppress(BlockingIOError, InterruptedError):
            return conn.recv(1, socket.MSG_PEEK)
        readable = loop.create_future()
        loop.add_reader(conn.fileno(), _wake, readable)
        try:
            await readable
        finally:
            loop.remove_reader(conn.fileno())


def _wake(readable: asyncio.Future[None]) -> None:
    if not readable.done():
        readable.set_result(None)
