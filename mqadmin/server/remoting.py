"""An asyncio remoting server: frames in, dispatch by request code, responses out.

It never dies on bad input: an undecodable or oversized frame closes that one connection; a
handler that raises answers SYSTEM_ERROR with the exception text (as Java does); an unknown
code answers REQUEST_CODE_NOT_SUPPORTED. Oneway requests are never answered.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import struct
from collections.abc import Awaitable, Callable
from typing import Any

from mqadmin.model.rpc import Decoded, RequestRefused, Rpc
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import FrameError, RemotingCommand, check_length, decode_frame, encode_frame

log = logging.getLogger(__name__)

Handler = Callable[[RemotingCommand, "ClientChannel"], Awaitable[RemotingCommand | None]]
DecodedHandler = Callable[[Decoded[Any, Any], "ClientChannel"], Awaitable[RemotingCommand | None]]
CloseListener = Callable[["ClientChannel"], None]

_DRAIN_ABOVE = 1 << 20
"""Bytes buffered on a connection above which ``send`` waits for the kernel to take them."""


class ClientChannel:
    """One accepted connection. Handlers get it to learn the peer or to call the client back."""

    _opaques = itertools.count(1 << 30)

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        peer = writer.get_extra_info("peername") or ("?", 0)
        self.remote_addr = f"{peer[0]}:{peer[1]}"
        self.closed = False
        self.attrs: dict[str, Any] = {}
        self._pending: dict[int, asyncio.Future[RemotingCommand]] = {}
        self._out: list[bytes] = []
        self.in_flight = 0  # requests being handled; while others are, responses are coalesced

    async def send(self, cmd: RemotingCommand) -> None:
        """Queue a frame; frames queued in one turn of the event loop go out in one write.

        One socket write per response was the largest cost of the send path under many producers.
        Waiting for the kernel (drain) happens only when the connection's buffer is over its limit.
        """
        if self.closed:
            return
        first = not self._out
        self._out.append(encode_frame(cmd))
        if first and self.in_flight <= 1:  # nothing else to batch with: write now, no extra loop turn
            self._flush()
        elif first:
            asyncio.get_running_loop().call_soon(self._flush)
        if self._writer.transport.get_write_buffer_size() > _DRAIN_ABOVE:
            try:
                await self._writer.drain()
            except (ConnectionError, OSError):
                self.close()

    def _flush(self) -> None:
        if self.closed or not self._out:
            self._out.clear()
            return
        data = b"".join(self._out)
        self._out.clear()
        try:
            self._writer.write(data)
        except (ConnectionError, OSError, RuntimeError):
            self.close()

    async def request(self, cmd: RemotingCommand, timeout: float) -> RemotingCommand:
        """Call the client (e.g. GET_CONSUMER_RUNNING_INFO) and wait for its answer."""
        cmd.opaque = next(self._opaques)
        fut: asyncio.Future[RemotingCommand] = asyncio.get_running_loop().create_future()
        self._pending[cmd.opaque] = fut
        try:
            await self.send(cmd)
            return await asyncio.wait_for(fut, timeout)
        finally:
            self._pending.pop(cmd.opaque, None)

    def close(self) -> None:
        if not self.closed:
            self._flush()
            self.closed = True
            self._writer.close()
            for fut in self._pending.values():
                if not fut.done():
                    fut.set_exception(ConnectionError("client connection closed"))


class RemotingServer:
    def __init__(self, name: str = "server") -> None:
        self.name = name
        self._handlers: dict[int, Handler] = {}
        self._close_listeners: list[CloseListener] = []
        self._server: asyncio.Server | None = None
        self._channels: set[ClientChannel] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self.port = 0

    def register(self, code: int, handler: Handler) -> None:
        self._handlers[int(code)] = handler

    def serve(self, rpc: Rpc[Any, Any, Any, Any], handler: DecodedHandler) -> None:
        """Handle ``rpc``'s code with ``handler``, which gets the request decoded and validated by its
        declaration; a request that fails (a missing or malformed field, a refused name) is answered with
        the declaration's refusal before the handler runs, so it changes nothing."""

        async def decode_then_handle(cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand | None:
            try:
                req = rpc.decode(cmd)
            except RequestRefused as e:
                return cmd.response(e.code, e.remark)
            return await handler(req, ch)

        self.register(rpc.code, decode_then_handle)

    def on_close(self, listener: CloseListener) -> None:
        self._close_listeners.append(listener)

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        self._server = await asyncio.start_server(self._accept, host, port, limit=1 << 20, reuse_address=True)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    async def close(self) -> None:
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

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        ch = ClientChannel(reader, writer)
        self._channels.add(ch)
        try:
            while True:
                head = await reader.readexactly(4)
                (length,) = struct.unpack(">i", head)
                check_length(length)
                cmd = decode_frame(await reader.readexactly(length))
                if cmd.is_response:
                    fut = ch._pending.get(cmd.opaque)
                    if fut is not None and not fut.done():
                        fut.set_result(cmd)
                    continue
                ch.in_flight += 1
                task = asyncio.get_running_loop().create_task(self._dispatch(cmd, ch))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            pass
        except FrameError as e:
            log.info("%s: closing %s: %s", self.name, ch.remote_addr, e)
        except asyncio.CancelledError:
            pass
        finally:
            self._channels.discard(ch)
            ch.close()
            for listener in self._close_listeners:
                try:
                    listener(ch)
                except Exception:  # a listener bug must not take the server down
                    log.exception("%s: close listener failed", self.name)

    async def _dispatch(self, cmd: RemotingCommand, ch: ClientChannel) -> None:
        handler = self._handlers.get(cmd.code)
        try:
            if handler is None:
                resp = cmd.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, f" request type {cmd.code} not supported")
            else:
                resp = await handler(cmd, ch)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # answer like Java: SYSTEM_ERROR with the exception text
            log.debug("%s: handler for %d failed", self.name, cmd.code, exc_info=True)
            resp = cmd.response(ResponseCode.SYSTEM_ERROR, f"{type(e).__name__}: {e}")
        try:
            if resp is not None and not cmd.is_oneway:
                resp.opaque = cmd.opaque
                await ch.send(resp)
        finally:
            ch.in_flight -= 1
