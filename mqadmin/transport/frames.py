"""Reading remoting frames from a stream and matching responses to the requests waiting for them:
the one read loop of both the client connections (``transport.tcp``) and the servers
(``server.remoting``).

A frame is read whole before it is decoded: its length field is checked first (Java's
``frameMaxLength``, 16 MiB), and a frame larger than ``SMALL_FRAME`` may be charged to a
``FrameBudget`` shared by many connections while its bytes arrive, so that a server can bound the
memory held by frames still in transit.
"""

from __future__ import annotations

import asyncio
import struct
import time
from collections.abc import Awaitable, Callable

from mqadmin.wire.frame import FrameError, HeaderParser, RemotingCommand, check_length, decode_frame

SMALL_FRAME = 64 * 1024
"""Frames up to this size are not charged to a budget."""

_LENGTH = struct.Struct(">i")


class FrameBudget:
    """Bytes that large frames may hold, all connections together, while they arrive."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.held = 0

    def reserve(self, length: int) -> int:
        """Charge a frame of ``length`` bytes (FrameError when it would pass the limit); returns the charge."""
        if length <= SMALL_FRAME:
            return 0
        if self.held + length > self.limit:
            raise FrameError(
                f"a frame of {length} bytes would take the memory held by incoming frames past {self.limit} bytes"
            )
        self.held += length
        return length

    def release(self, charged: int) -> None:
        self.held -= charged


class FrameReader:
    """Whole frames from a stream. ``frame_started`` (monotonic time the length field of the frame in
    transit was read, 0 between frames) and ``last_active`` let a server time connections out.

    ``text_errors="surrogateescape"`` (servers) decodes invalid UTF-8 in a header to lone surrogates so
    the request can be refused naming the field, instead of failing the frame; ``parse_json`` reads JSON
    headers (``decode_frame``'s)."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        *,
        text_errors: str = "strict",
        budget: FrameBudget | None = None,
        parse_json: HeaderParser | None = None,
    ) -> None:
        self._reader = reader
        self._text_errors = text_errors
        self._parse_json = parse_json
        self._budget = budget
        self.frame_started = 0.0
        self.last_active = time.monotonic()

    async def read(self) -> RemotingCommand:
        """The next frame; IncompleteReadError at the end of the stream, FrameError for one that cannot be read."""
        (length,) = _LENGTH.unpack(await self._reader.readexactly(4))
        check_length(length)
        self.last_active = self.frame_started = time.monotonic()
        charged = self._budget.reserve(length) if self._budget is not None else 0
        try:
            frame = await self._reader.readexactly(length)
        finally:
            if charged:
                self._budget.release(charged)  # type: ignore[union-attr]
            self.frame_started = 0.0
        self.last_active = time.monotonic()
        return decode_frame(frame, self._text_errors, self._parse_json)


class PendingRequests:
    """Requests sent on one connection and waiting for their response, matched by ``opaque``."""

    def __init__(self) -> None:
        self._waiting: dict[int, asyncio.Future[RemotingCommand]] = {}

    async def call(self, opaque: int, send: Callable[[], Awaitable[None]], timeout: float) -> RemotingCommand:
        """Wait (up to ``timeout``: TimeoutError) for the response to the request ``send`` writes."""
        fut: asyncio.Future[RemotingCommand] = asyncio.get_running_loop().create_future()
        self._waiting[opaque] = fut
        try:
            await send()
            return await asyncio.wait_for(fut, timeout)
        finally:
            self._waiting.pop(opaque, None)

    def resolve(self, resp: RemotingCommand) -> None:
        """Hand a response to its request (one nobody waits for any more is dropped)."""
        fut = self._waiting.get(resp.opaque)
        if fut is not None and not fut.done():
            fut.set_result(resp)

    def fail(self, error: BaseException) -> None:
        """The connection is gone: every waiting request gets ``error``."""
        for fut in self._waiting.values():
            if not fut.done():
                fut.set_exception(error)


async def read_frames(
    frames: FrameReader, pending: PendingRequests, on_request: Callable[[RemotingCommand], None]
) -> None:
    """Read until the stream ends or breaks (the exception says which): responses go to the requests
    waiting for them, requests (the peer calling us) to ``on_request``."""
    while True:
        cmd = await frames.read()
        if cmd.is_response:
            pending.resolve(cmd)
        else:
            on_request(cmd)
