"""A server connection's bytes cut into frames in the event loop's read callback.

Frames are decoded and handed on (``frame_received``) in the same turn of the loop in which their last bytes
arrive: no stream reader waking a reading task per chunk, no coroutine call per frame. Bytes of a frame still
in transit are kept until it is whole; its length field is checked first (``check_length``), and a frame larger
than ``SMALL_FRAME`` is charged to a ``FrameBudget`` shared by the server's connections until it is whole or
the connection is gone, so that the memory held by frames in transit stays bounded.
"""

from __future__ import annotations

import asyncio
import struct
import time
from typing import cast

from mqadmin.wire.frame import FrameError, RemotingCommand, check_length, decode_frame
from mqadmin.wire.orjson_headers import parse_header_json

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


class FrameProtocol(asyncio.Protocol):
    """Frames in (``frame_received``), bytes out (``transport``), with the writer's flow control (``drain``).

    ``frame_started`` is the monotonic time the length field of the frame in transit arrived (0 between frames)
    and ``last_read`` the time bytes last arrived, so that a server can time connections out. JSON headers are
    read with orjson (``mqadmin.wire.orjson_headers``); invalid UTF-8 in a header is decoded to lone surrogates,
    so that the request can be refused naming the field."""

    transport: asyncio.Transport

    def __init__(self, budget: FrameBudget) -> None:
        self._budget = budget
        self._buf = bytearray()
        self._need = 4  # bytes ``_buf`` must hold before a frame can be whole
        self._charged = 0
        self._paused: asyncio.Future[None] | None = None
        self.frame_started = 0.0
        self.last_read = time.monotonic()

    # --- for subclasses ------------------------------------------------------------------------

    def frame_received(self, cmd: RemotingCommand) -> None:
        raise NotImplementedError

    def bad_input(self, error: Exception) -> None:
        """A frame that cannot be read (FrameError) or decoded: the connection is closed after this."""
        raise NotImplementedError

    # --- asyncio.Protocol ----------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's are not asyncio.Transport subclasses

    def data_received(self, data: bytes) -> None:
        self.last_read = time.monotonic()
        buf = self._buf
        if buf:
            buf += data
            if len(buf) < self._need:
                return
            data = bytes(buf)
            buf.clear()
        try:
            self._frames(data)
        except Exception as e:  # a decoding bug must cost one connection, not the server
            self.bad_input(e)
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._release()
        self._buf.clear()
        if self._paused is not None and not self._paused.done():
            self._paused.set_exception(ConnectionError("connection lost"))

    def pause_writing(self) -> None:
        if self._paused is None or self._paused.done():
            self._paused = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        if self._paused is not None and not self._paused.done():
            self._paused.set_result(None)

    async def drain(self) -> None:
        """Wait until the transport takes writes again (ConnectionError: the connection is gone)."""
        if self._paused is not None and not self._paused.done():
            await asyncio.shield(self._paused)

    # --- reading ---------------------------------------------------------------------------------

    def _frames(self, data: bytes) -> None:
        view = memoryview(data)
        pos, end = 0, len(data)
        while end - pos >= 4:
            (length,) = _LENGTH.unpack_from(data, pos)
            check_length(length)
            stop = pos + 4 + length
            if stop > end:
                break
            cmd = decode_frame(view[pos + 4 : stop], "surrogateescape", parse_header_json)
            pos = stop
            self._release()
            self.frame_started = 0.0
            self.frame_received(cmd)
            if self.transport.is_closing():
                return
        if pos == end:
            self._need = 4
            return
        self._buf += view[pos:]
        if end - pos < 4:
            self._need = 4
            return
        (length,) = _LENGTH.unpack_from(data, pos)
        self._need = 4 + length
        if not self.frame_started:
            self.frame_started = self.last_read
            self._charged = self._budget.reserve(length)

    def _release(self) -> None:
        if self._charged:
            self._budget.release(self._charged)
            self._charged = 0
