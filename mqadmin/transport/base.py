"""What every client transport shares, without asyncio: the ``Transport`` protocol the admin layer talks to, and
``FramingTransport``: the connection cache, opaque numbering, signing and ``--debug`` trace of both the asyncio
transport (``transport.tcp``) and the blocking one (``transport.blocking``), which differ only in how a
connection is opened and waited on.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from mqadmin.transport.errors import TransportError
from mqadmin.transport.stop import check_sending
from mqadmin.transport.trace import describe_request, describe_response
from mqadmin.wire.codes import ResponseCode

if TYPE_CHECKING:
    import ssl

    from mqadmin.transport.credentials import Credentials
    from mqadmin.transport.tls import TlsSettings
    from mqadmin.wire.frame import RemotingCommand


class Transport(Protocol):
    async def request(self, addr: str, cmd: RemotingCommand, timeout: float | None = None) -> RemotingCommand: ...

    async def oneway(self, addr: str, cmd: RemotingCommand) -> None: ...

    async def aclose(self) -> None: ...


class Connection(Protocol):
    """One server's connection, as ``FramingTransport`` uses it."""

    @property
    def closed(self) -> bool: ...

    async def request(self, cmd: RemotingCommand, timeout: float) -> RemotingCommand: ...

    async def oneway(self, cmd: RemotingCommand) -> None: ...


ConnT = TypeVar("ConnT", bound=Connection)


class FramingTransport(Generic[ConnT]):
    """Connections keyed by address, opened by the subclass's ``_connection`` on first use and reused until
    ``aclose``; every request numbered (``opaque``), signed when there are credentials, and traced."""

    def __init__(
        self,
        *,
        timeout: float = 5.0,
        connect_timeout: float | None = None,
        tls: TlsSettings | ssl.SSLContext | None = None,
        credentials: Credentials | None = None,
        trace: Callable[[str], None] | None = None,
    ) -> None:
        """``tls``: TLS on every connection (``TlsConfigError`` at once when its files cannot be used).
        ``credentials``: every request is signed (AccessKey, SecurityToken, Signature ext fields).
        ``trace`` receives one line per request sent and per answer or failure (``--debug``)."""
        self.timeout = timeout
        self.connect_timeout = connect_timeout if connect_timeout is not None else min(timeout, 3.0)
        self._trace = trace
        self._ssl, self._server_name = _tls_context(tls)
        self._credentials = credentials
        self._opaque = itertools.count(1)
        self._conns: dict[str, ConnT] = {}

    async def _connection(self, addr: str) -> ConnT:
        """The open connection to ``addr``, opened when there is none."""
        raise NotImplementedError

    def _prepare(self, cmd: RemotingCommand) -> RemotingCommand:
        cmd.opaque = next(self._opaque)
        if self._credentials:
            from mqadmin.wire.signing import signed_ext  # hashlib and hmac: only when requests are signed

            c = self._credentials
            cmd.ext = signed_ext(cmd.ext, cmd.body, c.access_key, c.secret_key, c.security_token)
        return cmd

    async def request(self, addr: str, cmd: RemotingCommand, timeout: float | None = None) -> RemotingCommand:
        check_sending(addr)
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


def not_served(req: RemotingCommand) -> RemotingCommand:
    """The answer to a request a server sent us that we do not serve (as a Java client answers it)."""
    return req.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, f" request type {req.code} not supported")


def _tls_context(tls: TlsSettings | ssl.SSLContext | None) -> tuple[ssl.SSLContext | None, str | None]:
    """The context and the server-name override of ``tls`` (ssl is imported only when TLS is on)."""
    if tls is None:
        return None, None
    from mqadmin.transport.tls import TlsSettings

    if isinstance(tls, TlsSettings):
        return tls.context(), tls.server_name
    return tls, None
