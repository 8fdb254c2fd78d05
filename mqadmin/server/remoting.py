"""An asyncio remoting server: frames in, dispatch by request code, responses out.

It never dies on bad input: an undecodable or oversized frame closes that one connection; a
request that fails the server's ``check`` (text that is not valid Unicode), its ``guard`` (ACL 2.0
authentication and authorization, ``mqadmin.server.auth``) or its declaration
(``serve``: a missing or malformed field, an illegal name) is answered without reaching its
handler; a handler that raises answers SYSTEM_ERROR with the exception text (as Java
does); an unknown code answers REQUEST_CODE_NOT_SUPPORTED; a response that cannot be encoded is
replaced by a SYSTEM_ERROR answer, so a client never waits for its timeout. Oneway requests are
never answered.

A request is handled as soon as its frame is whole (``mqadmin.server.framing`` cuts frames in the event
loop's read callback): the checks, decoding and the handler's call run in that turn of the loop, and only a
handler that returns a coroutine gets a task of its own (one that returns a future is answered from the
future's callback, one that returns a ``Later``, as the send path does, when it is given).

Connections are bounded (``ConnectionLimits``): one that is idle (nothing read or written, no
request being handled) for ``idle_timeout`` seconds is closed, as Java's
``serverChannelMaxIdleTimeSeconds`` does; a frame must arrive whole within ``frame_timeout``
seconds of its length field; and frames larger than 64 KiB (``server.framing.SMALL_FRAME``) may
hold at most ``partial_frame_memory`` bytes, all connections together, while they arrive. A
connection breaking a limit is closed; the log line for it is rate-limited. Responses to the server's
own requests are matched by ``mqadmin.transport.frames.PendingRequests``, as on the client side.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import ssl
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, cast

from mqadmin.model.rpc.spec import Decoded, RequestRefused, Rpc
from mqadmin.server.framing import FrameBudget, FrameProtocol
from mqadmin.server.ratelog import RateLimitedLog
from mqadmin.server.sniff import PermissiveListener
from mqadmin.transport.frames import PendingRequests
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import (
    MAX_ANSWER_LENGTH,
    MAX_FRAME_LENGTH,
    RESPONSE_FLAG,
    FrameError,
    RemotingCommand,
    encode_frame,
)
from mqadmin.wire.orjson_headers import dump_header_json

log = logging.getLogger(__name__)


class Later:
    """A response given later by a plain call (``give``), answered in that same turn of the event loop: the
    send path's answer once the store has committed, without a future's extra turn per message. An outcome
    given before anyone asked (``then``) is kept for them; only the first outcome counts."""

    __slots__ = ("_then", "_early")

    def __init__(self) -> None:
        self._then: Callable[[RemotingCommand | BaseException], None] | None = None
        self._early: RemotingCommand | BaseException | object = _NOT_GIVEN

    def then(self, callback: Callable[[RemotingCommand | BaseException], None]) -> None:
        """Who answers once the outcome is given (the server, when the handler returns this)."""
        early, self._early = self._early, _ANSWERED
        if early is _NOT_GIVEN:
            self._then = callback
        elif early is not _ANSWERED:
            callback(cast("RemotingCommand | BaseException", early))  # given, not a marker

    def give(self, outcome: RemotingCommand | BaseException) -> None:
        """The response, or the exception the handler failed with (answered SYSTEM_ERROR)."""
        then, self._then = self._then, None
        if then is not None:
            then(outcome)
        elif self._early is _NOT_GIVEN:
            self._early = outcome


_NOT_GIVEN = object()
_ANSWERED = object()


Answer = RemotingCommand | None | Later | Awaitable[RemotingCommand | None]
"""What a handler returns: the response now (None: no response), a ``Later``, or a coroutine or future of it."""
Handler = Callable[[RemotingCommand, "ClientChannel"], Answer]
DecodedHandler = Callable[[Decoded[Any, Any], "ClientChannel"], Answer]
Check = Callable[[RemotingCommand], RemotingCommand | None]
CloseListener = Callable[["ClientChannel"], None]


class RequestGuard(Protocol):
    """ACL 2.0 (``mqadmin.server.auth.guard.Guard``): each answers the refusal, or None to go on."""

    def authenticate(self, cmd: RemotingCommand) -> RemotingCommand | None: ...

    def authorize(
        self, cmd: RemotingCommand, rpc: Rpc[Any, Any, Any, Any] | None, req: Decoded[Any, Any] | None, source_ip: str
    ) -> RemotingCommand | None: ...


_DRAIN_ABOVE = 1 << 20
"""Bytes buffered on a connection above which ``send`` waits for the kernel to take them."""


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    idle_timeout: float = 120.0
    """Seconds without a frame in or out (and no request in progress) before a connection is closed."""
    frame_timeout: float = 30.0
    """Seconds a frame may take to arrive whole once its length field has been read."""
    partial_frame_memory: int = 256 * 1024 * 1024
    """Bytes that frames larger than 64 KiB may hold, all connections together, while they arrive."""

    def watch_interval(self) -> float:
        """How often the connections are checked against the timeouts."""
        return min(max(min(self.idle_timeout, self.frame_timeout) / 4, 0.01), 1.0)


class ClientChannel:
    """One accepted connection. Handlers get it to learn the peer or to call the client back."""

    _opaques = itertools.count(1 << 30)

    def __init__(self, conn: FrameProtocol) -> None:
        self.conn = conn
        self._transport = conn.transport
        peer = self._transport.get_extra_info("peername") or ("?", 0)
        self.remote_addr = f"{peer[0]}:{peer[1]}"
        self.remote_ip = str(peer[0])
        self.closed = False
        self.attrs: dict[str, Any] = {}
        self.pending = PendingRequests()
        self._out: list[bytes] = []
        self.in_flight = 0  # requests being handled; while others are, responses are coalesced
        self._last_write = time.monotonic()

    @property
    def last_active(self) -> float:
        """When a frame last came in or went out."""
        return max(self.conn.last_read, self._last_write)

    async def send(self, cmd: RemotingCommand) -> None:
        """``queue``, then wait for the kernel (drain) when the connection's buffer is over its limit."""
        if self.closed:
            return
        self.queue(cmd)
        if self._transport.get_write_buffer_size() > _DRAIN_ABOVE:
            try:
                await self.conn.drain()
            except (ConnectionError, OSError):
                self.close()

    def queue(self, cmd: RemotingCommand) -> None:
        """Queue a frame; frames queued in one turn of the event loop go out in one write.

        One socket write per response was the largest cost of the send path under many producers."""
        if self.closed:
            return
        first = not self._out
        self._out.append(_encode(cmd))
        if first and self.in_flight <= 1:  # nothing else to batch with: write now, no extra loop turn
            self._flush()
        elif first:
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        if self.closed or not self._out:
            self._out.clear()
            return
        data = b"".join(self._out)
        self._out.clear()
        self._last_write = time.monotonic()
        try:
            self._transport.write(data)
        except (ConnectionError, OSError, RuntimeError):
            self.close()

    async def request(self, cmd: RemotingCommand, timeout: float) -> RemotingCommand:
        """Call the client (e.g. GET_CONSUMER_RUNNING_INFO) and wait for its answer."""
        cmd.opaque = next(self._opaques)
        return await self.pending.call(cmd.opaque, lambda: self.send(cmd), timeout)

    def close(self) -> None:
        if not self.closed:
            self._flush()
            self.closed = True
            self._transport.close()
            self.pending.fail(ConnectionError("client connection closed"))

    def abort(self) -> None:
        """Close at once, dropping unsent data (a peer that stalls may never read it)."""
        self.close()
        self._transport.abort()


REMARK_LIMIT = 512
"""Characters of a response's remark sent at most: remarks quote client input, which handlers cut short
(``mqadmin.model.names.clipped``); this bounds any that does not."""


def _encode(cmd: RemotingCommand) -> bytes:
    """The frame of ``cmd``; a response that cannot be encoded (text that is not valid Unicode, a
    frame over the size limit) becomes a SYSTEM_ERROR answer saying so."""
    if cmd.is_response and cmd.remark is not None and len(cmd.remark) > REMARK_LIMIT:
        cmd.remark = f"{cmd.remark[:REMARK_LIMIT]}… ({len(cmd.remark)} characters)"
    try:
        return encode_frame(cmd, dump_header_json, MAX_ANSWER_LENGTH if cmd.is_response else MAX_FRAME_LENGTH)
    except (UnicodeEncodeError, FrameError) as e:
        if not cmd.is_response:
            raise
        _bad_output.warning("could not encode the response to request %d: %s", cmd.opaque, _short(e))
        remark = f"the response could not be encoded ({type(e).__name__})"
        return encode_frame(
            RemotingCommand(
                ResponseCode.SYSTEM_ERROR, cmd.opaque, RESPONSE_FLAG, remark=remark, serialize=cmd.serialize
            ),
            dump_header_json,
        )


_bad_output = RateLimitedLog(log)


def _short(e: Exception) -> str:
    """An exception's text for a log line, cut short (it may quote megabytes of hostile input)."""
    text = str(e)
    return text if len(text) <= 200 else text[:200] + "…"


class RemotingServer:
    def __init__(self, name: str = "server", check: Check | None = None, limits: ConnectionLimits | None = None):
        self.name = name
        self.limits = limits or ConnectionLimits()
        self._check = check
        self.guard: RequestGuard | None = None
        """Authentication of every request after ``check``, authorization of declared ones once decoded."""
        self.validate = True
        """Whether requests are checked against their declarations' rules (names); tests of the layers
        below switch it off."""
        self._handlers: dict[int, tuple[Rpc[Any, Any, Any, Any] | None, Any]] = {}
        self._close_listeners: list[CloseListener] = []
        self._server: asyncio.Server | PermissiveListener | None = None
        self._channels: set[ClientChannel] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._watchdog: asyncio.Task[None] | None = None
        self._budget = FrameBudget(self.limits.partial_frame_memory)
        self._bad_input = RateLimitedLog(log)
        self.port = 0

    def register(self, code: int, handler: Handler) -> None:
        """Handle ``code`` with ``handler``, which gets the request as it came (tests; requests with no
        declaration). Servers use ``serve``."""
        self._handlers[int(code)] = (None, handler)

    def serve(self, rpc: Rpc[Any, Any, Any, Any], handler: DecodedHandler) -> None:
        """Handle ``rpc``'s code with ``handler``, which gets the request decoded and validated by its
        declaration; a request that fails (a missing or malformed field, a refused name) is answered with
        the declaration's refusal before the handler runs, so it changes nothing."""
        self._handlers[rpc.code] = (rpc, handler)

    def intercept(self, code: int, wrap: Callable[[Any], Any]) -> None:
        """Replace ``code``'s handler by ``wrap(handler)``, keeping its declaration (tests that hold requests)."""
        rpc, handler = self._handlers[int(code)]
        self._handlers[int(code)] = (rpc, wrap(handler))

    def unserve(self, code: int) -> None:
        """Stop handling ``code``: it is answered REQUEST_CODE_NOT_SUPPORTED, as by a broker that lacks it."""
        del self._handlers[int(code)]

    def served(self) -> dict[int, Rpc[Any, Any, Any, Any] | None]:
        """Every request code this server handles, with its declaration (None: registered raw)."""
        return {code: rpc for code, (rpc, _) in self._handlers.items()}

    @property
    def partial_bytes(self) -> int:
        """Bytes held by large frames being received (see ConnectionLimits.partial_frame_memory)."""
        return self._budget.held

    def on_close(self, listener: CloseListener) -> None:
        self._close_listeners.append(listener)

    async def start(
        self, host: str = "127.0.0.1", port: int = 0, tls: ssl.SSLContext | None = None, plain_too: bool = False
    ) -> int:
        """Listen. With ``tls``, TLS only (a client that does not shake hands within the frame timeout, or sends
        plain frames, loses its connection and nothing else happens), or, with ``plain_too``, TLS and plain
        TCP on the one port (mqadmin.server.sniff)."""
        if tls is not None and plain_too:
            timeout = self.limits.frame_timeout
            self._server = PermissiveListener(self._connection, host, port, tls, timeout=timeout)
        else:
            self._server = await asyncio.get_running_loop().create_server(
                self._connection,
                host,
                port,
                reuse_address=True,
                ssl=tls,
                ssl_handshake_timeout=self.limits.frame_timeout if tls else None,
            )
        self.port = self._server.sockets[0].getsockname()[1]
        self._watchdog = asyncio.get_running_loop().create_task(self._watch())
        return self.port

    async def close(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watchdog
        if self._server is not None:
            self._server.close()
        for ch in list(self._channels):
            ch.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await self._server.wait_closed()

    # --- reading ---------------------------------------------------------------------------

    def _connection(self) -> _Connection:
        return _Connection(self)

    def _opened(self, ch: ClientChannel) -> None:
        self._channels.add(ch)

    def _closed(self, ch: ClientChannel) -> None:
        self._channels.discard(ch)
        ch.close()
        for listener in self._close_listeners:
            try:
                listener(ch)
            except Exception:  # a listener bug must not take the server down
                log.exception("%s: close listener failed", self.name)

    def _bad_frame(self, ch: ClientChannel, e: Exception) -> None:
        if isinstance(e, FrameError):
            self._bad_input.info("%s: closing %s: %s", self.name, ch.remote_addr, _short(e))
        else:
            self._bad_input.warning("%s: closing %s: %s: %s", self.name, ch.remote_addr, type(e).__name__, _short(e))

    async def _watch(self) -> None:
        """Close connections that stay idle, or take too long over a frame."""
        limits = self.limits
        while True:
            await asyncio.sleep(limits.watch_interval())
            now = time.monotonic()
            for ch in list(self._channels):
                started = ch.conn.frame_started
                if started and now - started > limits.frame_timeout:
                    reason = f"a frame did not arrive whole within {limits.frame_timeout:g} s"
                elif not started and not ch.in_flight and now - ch.last_active > limits.idle_timeout:
                    reason = f"idle for {limits.idle_timeout:g} s"
                else:
                    continue
                self._bad_input.info("%s: closing %s: %s", self.name, ch.remote_addr, reason)
                ch.abort()

    # --- dispatching -----------------------------------------------------------------------

    def _refusal(self, cmd: RemotingCommand) -> RemotingCommand | None:
        """The answer of a request refused before decoding: by ``check``, then by authentication."""
        if self._check is not None and (refused := self._check(cmd)) is not None:
            return refused
        return self.guard.authenticate(cmd) if self.guard is not None else None

    def _dispatch(self, cmd: RemotingCommand, ch: ClientChannel) -> None:
        """Handle one request: answer it now, from its future's callback, or from a task awaiting its coroutine."""
        try:
            answer = self._call(cmd, ch)
        except Exception as e:
            answer = self._failure(cmd, e)
        if isinstance(answer, RemotingCommand) or answer is None:
            self._respond(cmd, ch, answer)
        elif isinstance(answer, Later):
            answer.then(
                lambda outcome: self._respond(
                    cmd, ch, outcome if isinstance(outcome, RemotingCommand) else self._failure(cmd, outcome)
                )
            )
        elif isinstance(answer, asyncio.Future):
            answer.add_done_callback(lambda fut: self._respond(cmd, ch, self._outcome(cmd, fut)))
        else:
            task = asyncio.get_running_loop().create_task(self._finish(cmd, ch, answer))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _call(self, cmd: RemotingCommand, ch: ClientChannel) -> Answer:
        """The checks, the decoding, then the handler's call."""
        rpc, handler = self._handlers.get(cmd.code, (None, None))
        if handler is None:
            return cmd.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, f" request type {cmd.code} not supported")
        if (refused := self._refusal(cmd)) is not None:
            return refused
        guard = self.guard
        if rpc is None:
            refused = guard.authorize(cmd, None, None, ch.remote_ip) if guard is not None else None
            return refused if refused is not None else handler(cmd, ch)
        try:
            req = rpc.decode(cmd, self.validate)
        except RequestRefused as e:
            return cmd.response(e.code, e.remark)
        refused = guard.authorize(cmd, rpc, req, ch.remote_ip) if guard is not None else None
        return refused if refused is not None else handler(req, ch)

    async def _finish(self, cmd: RemotingCommand, ch: ClientChannel, answer: Awaitable[RemotingCommand | None]) -> None:
        try:
            resp = await answer
        except asyncio.CancelledError:
            ch.in_flight -= 1
            raise
        except Exception as e:
            resp = self._failure(cmd, e)
        if resp is None or cmd.is_oneway:
            ch.in_flight -= 1
            return
        resp.opaque = cmd.opaque
        try:
            await ch.send(resp)
        finally:
            ch.in_flight -= 1

    def _outcome(self, cmd: RemotingCommand, fut: asyncio.Future[RemotingCommand | None]) -> RemotingCommand | None:
        if fut.cancelled():
            return None
        e = fut.exception()
        return self._failure(cmd, e) if e is not None else fut.result()

    def _respond(self, cmd: RemotingCommand, ch: ClientChannel, resp: RemotingCommand | None) -> None:
        try:
            if resp is not None and not cmd.is_oneway:
                resp.opaque = cmd.opaque
                ch.queue(resp)
        finally:
            ch.in_flight -= 1

    def _failure(self, cmd: RemotingCommand, e: BaseException) -> RemotingCommand:
        """Answer like Java: SYSTEM_ERROR with the exception text."""
        log.debug("%s: handler for %d failed", self.name, cmd.code, exc_info=e)
        return cmd.response(ResponseCode.SYSTEM_ERROR, f"{type(e).__name__}: {e}")


class _Connection(FrameProtocol):
    """One accepted connection's frames: responses to the requests the server sent on it, requests to dispatch."""

    def __init__(self, server: RemotingServer) -> None:
        super().__init__(server._budget)
        self._server = server
        self.channel: ClientChannel | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.channel = ClientChannel(self)
        self._server._opened(self.channel)

    def frame_received(self, cmd: RemotingCommand) -> None:
        ch = self.channel
        assert ch is not None
        if cmd.is_response:
            ch.pending.resolve(cmd)
        else:
            ch.in_flight += 1
            self._server._dispatch(cmd, ch)

    def bad_input(self, error: Exception) -> None:
        assert self.channel is not None
        self._server._bad_frame(self.channel, error)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if self.channel is not None:
            self._server._closed(self.channel)
