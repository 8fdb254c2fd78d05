"""asyncio TCP (optionally TLS) connections speaking remoting frames.

One ``Connection`` per server address, reused for every request of a command. A reader task
matches responses to waiting requests by ``opaque``; requests that the server starts on our
connection (CHECK_TRANSACTION_STATE, GET_CONSUMER_RUNNING_INFO, …) go to a handler, or get
REQUEST_CODE_NOT_SUPPORTED, and oneway ones get nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl as ssl_mod
from collections.abc import Awaitable, Callable

from mqadmin.transport.base import FramingTransport, Transport, not_served
from mqadmin.transport.credentials import Credentials
from mqadmin.transport.errors import ConnectionClosed, RequestTimeout, TransportError, connect_error
from mqadmin.transport.frames import FrameReader, PendingRequests, read_frames
from mqadmin.transport.tls import TlsSettings
from mqadmin.wire.address import split_addr
from mqadmin.wire.frame import ONEWAY_FLAG, FrameError, RemotingCommand, encode_frame

__all__ = ["Connection", "Credentials", "ServerRequestHandler", "TcpTransport", "Transport"]

ServerRequestHandler = Callable[[RemotingCommand], Awaitable[RemotingCommand | None]]


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
        except OSError as e:  # TimeoutError (of wait_for), refused, unresolvable, TLS refused
            raise connect_error(addr, e, timeout=timeout, tls=ssl is not None) from None
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
            self._fail(ConnectionClosed.broken(self.addr, e))
            raise self._closed from None  # type: ignore[misc]  # _fail has set it

    async def _read_loop(self) -> None:
        try:
            await read_frames(FrameReader(self._reader), self._pending, self._on_request)
        except asyncio.IncompleteReadError:
            self._fail(ConnectionClosed.by_server(self.addr))
        except FrameError as e:
            self._fail(ConnectionClosed.undecodable(self.addr, e))
        except (ConnectionError, OSError) as e:
            self._fail(ConnectionClosed.broken(self.addr, e))
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
            resp = not_served(req)
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


class TcpTransport(FramingTransport[Connection]):
    """asyncio connections; requests to one server may be in flight together, and servers may call us."""

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
        """``handler`` answers the requests servers send on our connections (see ``FramingTransport``
        for the rest)."""
        super().__init__(
            timeout=timeout, connect_timeout=connect_timeout, tls=tls, credentials=credentials, trace=trace
        )
        self._handler = handler
        self._opening: dict[str, asyncio.Future[Connection]] = {}

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

    async def aclose(self) -> None:
        conns, self._conns = list(self._conns.values()), {}
        await asyncio.gather(*(c.close() for c in conns), return_exceptions=True)

    async def __aenter__(self) -> TcpTransport:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
