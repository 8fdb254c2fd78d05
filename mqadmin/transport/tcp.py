"""asyncio TCP (optionally TLS) connections speaking remoting frames.

One ``Connection`` per server address, reused for every request of a command. A reader task
matches responses to waiting requests by ``opaque``; requests that the server starts on our
connection (CHECK_TRANSACTION_STATE, GET_CONSUMER_RUNNING_INFO, …) go to a handler, or get
REQUEST_CODE_NOT_SUPPORTED, and oneway ones get nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import socket
import ssl as ssl_mod
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

from mqadmin.transport.errors import (
    ConnectionClosed,
    ConnectionRefused,
    ConnectTimeout,
    HostNotFound,
    RequestTimeout,
    TlsHandshakeFailed,
    TransportError,
)
from mqadmin.transport.frames import FrameReader, PendingRequests, read_frames
from mqadmin.transport.tls import TlsSettings
from mqadmin.transport.trace import describe_request, describe_response
from mqadmin.wire.address import split_addr
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import ONEWAY_FLAG, FrameError, RemotingCommand, encode_frame

ServerRequestHandler = Callable[[RemotingCommand], Awaitable[RemotingCommand | None]]


class Transport(Protocol):
    async def request(self, addr: str, cmd: RemotingCommand, timeout: float | None = None) -> RemotingCommand: ...

    async def oneway(self, addr: str, cmd: RemotingCommand) -> None: ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Credentials:
    """What every request is signed with (``repr`` never shows the secret or the token)."""

    access_key: str
    secret_key: str = field(repr=False)
    security_token: str | None = field(default=None, repr=False)


class Connection:
    def __init__(
        self,
        addr: str,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        handler: ServerRequestHandler | None = None,
    ) -> None:
        self.addr = addr
        self._reader = reader
        self._writer = writer
        self._handler = handler
        self._pending = PendingRequests()
        self._closed: TransportError | None = None
        self._write_lock = asyncio.Lock()
        self._task = asyncio.get_running_loop().create_task(self._read_loop())

    @classmethod
    async def open(
        cls,
        addr: str,
        *,
        timeout: float,
        ssl: ssl_mod.SSLContext | None = None,
        server_hostname: str | None = None,
        handler: ServerRequestHandler | None = None,
    ) -> Connection:
        """Connect (and shake hands when ``ssl`` is given, checking the certificate against ``server_hostname``,
        by default the host dialled)."""
        host, port = split_addr(addr)
        sni = (server_hostname or host) if ssl else None
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(host, port, ssl=ssl, server_hostname=sni, limit=1 << 20), timeout
            )
        except TimeoutError:
            raise ConnectTimeout(addr, timeout) from None
        except ConnectionRefusedError as e:
            raise ConnectionRefused(addr, e.strerror or "") from None
        except ssl_mod.SSLCertVerificationError as e:
            raise TlsHandshakeFailed(addr, e.verify_message or str(e), verify=True) from None
        except (ssl_mod.SSLError, ConnectionResetError, BrokenPipeError) as e:
            if ssl:
                raise TlsHandshakeFailed(addr, f"{e} (is TLS enabled on that server?)") from None
            raise ConnectionClosed(addr, str(e)) from None
        except socket.gaierror as e:
            raise HostNotFound(addr, e.strerror or str(e)) from None
        except OSError as e:
            raise ConnectionRefused(addr, e.strerror or str(e)) from None
        return cls(addr, reader, writer, handler)

    @property
    def closed(self) -> bool:
        return self._closed is not None

    async def request(self, cmd: RemotingCommand, timeout: float) -> RemotingCommand:
        if self._closed:
            raise self._closed
        try:
            return await self._pending.call(cmd.opaque, lambda: self._send(cmd), timeout)
        except TimeoutError:
            raise RequestTimeout(self.addr, cmd.code, timeout) from None

    async def oneway(self, cmd: RemotingCommand) -> None:
        if self._closed:
            raise self._closed
        cmd.flag |= ONEWAY_FLAG
        await self._send(cmd)

    async def _send(self, cmd: RemotingCommand) -> None:
        data = encode_frame(cmd)
        try:
            async with self._write_lock:
                self._writer.write(data)
                await self._writer.drain()
        except (ConnectionError, OSError) as e:
            self._fail(ConnectionClosed(self.addr, str(e) or type(e).__name__))
            raise self._closed from None  # type: ignore[misc]

    async def _read_loop(self) -> None:
        try:
            await read_frames(FrameReader(self._reader), self._pending, self._on_request)
        except asyncio.IncompleteReadError:
            self._fail(ConnectionClosed(self.addr, "by the server"))
        except FrameError as e:
            self._fail(ConnectionClosed(self.addr, f"undecodable frame from the server ({e})"))
        except (ConnectionError, OSError) as e:
            self._fail(ConnectionClosed(self.addr, str(e) or type(e).__name__))
        except asyncio.CancelledError:
            self._fail(ConnectionClosed(self.addr, "by us"))
            raise

    def _on_request(self, req: RemotingCommand) -> None:
        asyncio.get_running_loop().create_task(self._serve(req))

    async def _serve(self, req: RemotingCommand) -> None:
        resp = await self._handler(req) if self._handler else None
        if req.is_oneway:
            return
        if resp is None:
            resp = req.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, f" request type {req.code} not supported")
        with contextlib.suppress(TransportError):
            await self._send(resp)

    def _fail(self, err: TransportError) -> None:
        if self._closed is None:
            self._closed = err
        self._pending.fail(err)
        self._writer.close()

    async def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, TransportError):
            await self._task
        if self._writer.get_extra_info("ssl_object") is not None:
            # Closing sent our close_notify; like the Java client, do not wait for the server's: Apache
            # RocketMQ's servers never send one back (TLS 1.3 allows that) and asyncio would wait 30 s for it.
            self._writer.transport.abort()
        with contextlib.suppress(Exception):
            await self._writer.wait_closed()


class TcpTransport:
    """Connections keyed by address, created on first use and reused until ``aclose``."""

    def __init__(
        self,
        *,
        timeout: float = 5.0,
        connect_timeout: float | None = None,
        tls: TlsSettings | ssl_mod.SSLContext | None = None,
        credentials: Credentials | None = None,
        handler: ServerRequestHandler | None = None,
        trace: Callable[[str], None] | None = None,
    ) -> None:
        """``tls``: TLS on every connection (``TlsConfigError`` at once when its files cannot be used).
        ``credentials``: every request is signed (AccessKey, SecurityToken, Signature ext fields).
        ``trace`` receives one line per request sent and per answer or failure (``--debug``)."""
        self.timeout = timeout
        self._trace = trace
        self.connect_timeout = connect_timeout if connect_timeout is not None else min(timeout, 3.0)
        self._ssl = tls.context() if isinstance(tls, TlsSettings) else tls
        self._server_name = tls.server_name if isinstance(tls, TlsSettings) else None
        self._credentials = credentials
        self._handler = handler
        self._conns: dict[str, Connection] = {}
        self._opening: dict[str, asyncio.Future[Connection]] = {}
        self._opaque = itertools.count(1)

    async def _connection(self, addr: str) -> Connection:
        conn = self._conns.get(addr)
        if conn is not None and not conn.closed:
            return conn
        pending = self._opening.get(addr)
        if pending is not None:
            return await asyncio.shield(pending)
        fut: asyncio.Future[Connection] = asyncio.get_running_loop().create_future()
        self._opening[addr] = fut
        try:
            conn = await Connection.open(
                addr,
                timeout=self.connect_timeout,
                ssl=self._ssl,
                server_hostname=self._server_name,
                handler=self._handler,
            )
        except BaseException as e:
            fut.set_exception(e)
            fut.exception()  # mark retrieved when nobody else waits
            raise
        else:
            fut.set_result(conn)
            self._conns[addr] = conn
            return conn
        finally:
            del self._opening[addr]

    def _prepare(self, cmd: RemotingCommand) -> RemotingCommand:
        cmd.opaque = next(self._opaque)
        if self._credentials:
            from mqadmin.wire.signing import signed_ext  # hashlib and hmac: only when requests are signed

            c = self._credentials
            cmd.ext = signed_ext(cmd.ext, cmd.body, c.access_key, c.secret_key, c.security_token)
        return cmd

    async def request(self, addr: str, cmd: RemotingCommand, timeout: float | None = None) -> RemotingCommand:
        if self._trace is None:
            conn = await self._connection(addr)
            return await conn.request(self._prepare(cmd), timeout if timeout is not None else self.timeout)
        start = time.monotonic()
        try:
            conn = await self._connection(addr)
            cmd = self._prepare(cmd)
            self._trace(describe_request(addr, cmd))
            resp = await conn.request(cmd, timeout if timeout is not None else self.timeout)
        except TransportError as e:
            self._trace(f"< {addr} failed: {e}")
            raise
        self._trace(describe_response(addr, cmd, resp, time.monotonic() - start))
        return resp

    async def oneway(self, addr: str, cmd: RemotingCommand) -> None:
        conn = await self._connection(addr)
        await conn.oneway(self._prepare(cmd))

    async def aclose(self) -> None:
        conns, self._conns = list(self._conns.values()), {}
        await asyncio.gather(*(c.close() for c in conns), return_exceptions=True)

    async def __aenter__(self) -> TcpTransport:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
