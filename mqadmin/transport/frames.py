"""Reading remoting frames from a stream and matching responses to the requests waiting for them: the
client connections' read loop (``transport.tcp``); the servers match the responses to their own requests
(``server.remoting``) with ``PendingRequests`` too.

A frame is read whole before it is decoded, its length field checked first (Java's ``frameMaxLength``, 16 MiB).
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Awaitable, Callable

from mqadmin.wire.frame import MAX_ANSWER_LENGTH, RemotingCommand, check_length, decode_frame

_LENGTH = struct.Struct(">i")


class FrameReader:
    """Whole frames from a stream (a client connection; servers cut frames in ``mqadmin.server.framing``)."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    async def read(self) -> RemotingCommand:
        """The next frame; IncompleteReadError at the end of the stream, FrameError for one that cannot be read."""
        (length,) = _LENGTH.unpack(await self._reader.readexactly(4))
        check_length(length, MAX_ANSWER_LENGTH)
        return decode_frame(await self._reader.readexactly(length))


STALL = 0.05
"""Seconds late a request's timer may fire before the lateness counts as this process's own stall."""


async def answer_within(fut: asyncio.Future[RemotingCommand], timeout: float) -> RemotingCommand:
    """``fut``'s result, or TimeoutError once ``timeout`` seconds have passed in which this process could have
    read the answer. When the timer fires late, the event loop was busy here (decoding another large answer,
    writing a large body) and an answer may be waiting unread in the socket: the time lost is given back, so the
    reader gets its turn before the request is declared unanswered (at most ``timeout`` seconds are given back in
    all). A peer that is slow still times out on time when this process is idle."""
    loop = asyncio.get_running_loop()
    spare = timeout
    timers: list[asyncio.TimerHandle] = []

    def expire(due: float) -> None:
        nonlocal spare
        if fut.done():
            return
        late = min(loop.time() - due, spare)
        if late > STALL:
            spare -= late
            timers.append(loop.call_at(loop.time() + late, expire, loop.time() + late))
        else:
            fut.set_exception(TimeoutError())

    due = loop.time() + timeout
    timers.append(loop.call_at(due, expire, due))
    try:
        return await fut
    finally:
        timers[-1].cancel()


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
            return await answer_within(fut, timeout)
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
