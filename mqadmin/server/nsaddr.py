"""Java's name-server address endpoint (``rocketmq.namesrv.domain``): ``GET /rocketmq/nsaddr`` over HTTP,
answered with the ``;``-separated name-server list.

Only the request line is read (the headers up to a bounded size, then ignored); another path is answered
404, another method 405. Anything that is not an HTTP/1.x request line (random bytes, HTTP/0.9's
``GET /path``, HTTP/2's preface, a line longer than ``MAX_HEAD``) is answered 400 at once, without waiting for
headers, and the connection closed; an HTTP/1.x head the client cuts short is closed unanswered. Whatever arrives
costs only its connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Callable

PATH = "/rocketmq/nsaddr"
READ_TIMEOUT = 10.0
MAX_HEAD = 16 * 1024
_HTTP_1 = re.compile(rb"[!-~]+ [!-~]+ HTTP/1\.[0-9]")

log = logging.getLogger(__name__)


class AddressServer:
    def __init__(self, namesrv_list: Callable[[], list[str]]) -> None:
        self._list = namesrv_list
        self._server: asyncio.Server | None = None
        self.host = ""
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}{PATH}"

    @property
    def domain(self) -> str:
        """What Java takes as ``-Drocketmq.namesrv.domain`` to fetch ``url``."""
        return f"{self.host}:{self.port}"

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._server = await asyncio.start_server(self._serve, host, port, limit=MAX_HEAD)
        self.host, self.port = host, self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await _read_head(reader)
            if head:
                line = head.partition(b"\n")[0].rstrip(b"\r")
                whole = b"\r\n\r\n" in head or b"\n\n" in head
                http_1 = _HTTP_1.fullmatch(line)
                if whole and http_1:
                    writer.write(self._answer(line))
                elif not http_1:
                    writer.write(_response(400, "Bad Request", "not an HTTP/1.x request\n"))
                # an HTTP/1.x head cut short (the client closed or stalled before its end) is closed unanswered
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        except Exception:  # a bug must cost one connection, not the server
            log.warning("address server: answering failed", exc_info=True)
        finally:
            writer.close()

    def _answer(self, request_line: bytes) -> bytes:
        """The answer to an HTTP/1.x request line."""
        parts = request_line.decode("latin-1").split(" ")
        method, target = parts[0], parts[1].split("?", 1)[0]
        if target != PATH:
            return _response(404, "Not Found", f"only {PATH} is served here\n")
        if method not in ("GET", "HEAD"):
            return _response(405, "Method Not Allowed", "GET only\n")
        body = ";".join(self._list())
        return _response(200, "OK", body, head_only=method == "HEAD")


async def _read_head(reader: asyncio.StreamReader) -> bytes:
    """What arrived until the end of the head, the end of a first line that is not HTTP/1.x, the end of the
    stream, ``READ_TIMEOUT`` or ``MAX_HEAD`` bytes, whichever comes first."""
    data = b""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(READ_TIMEOUT):
            while len(data) <= MAX_HEAD:
                chunk = await reader.read(4096)
                if not chunk:
                    break
                data += chunk
                first, newline, _ = data.partition(b"\n")
                if newline and not _HTTP_1.fullmatch(first.rstrip(b"\r")):
                    break
                if b"\r\n\r\n" in data or b"\n\n" in data:
                    break
    return data


def _response(status: int, reason: str, body: str, head_only: bool = False) -> bytes:
    data = body.encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + (b"" if head_only else data)
