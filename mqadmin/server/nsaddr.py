"""Java's name-server address endpoint (``rocketmq.namesrv.domain``): ``GET /rocketmq/nsaddr`` over HTTP,
answered with the ``;``-separated name-server list.

Only the request line is read (the headers up to a bounded size, then ignored); another path is answered
404, another method 405, anything else 400. Whatever arrives costs only its connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

PATH = "/rocketmq/nsaddr"
READ_TIMEOUT = 10.0
MAX_HEAD = 16 * 1024

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
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), READ_TIMEOUT)
            writer.write(self._answer(head.split(b"\r\n", 1)[0]))
            await writer.drain()
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, OSError):
            pass
        except Exception:  # a bug must cost one connection, not the server
            log.warning("address server: answering failed", exc_info=True)
        finally:
            writer.close()

    def _answer(self, request_line: bytes) -> bytes:
        parts = request_line.decode("latin-1").split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/"):
            return _response(400, "Bad Request", "not an HTTP request\n")
        method, target = parts[0], parts[1].split("?", 1)[0]
        if target != PATH:
            return _response(404, "Not Found", f"only {PATH} is served here\n")
        if method not in ("GET", "HEAD"):
            return _response(405, "Method Not Allowed", "GET only\n")
        body = ";".join(self._list())
        return _response(200, "OK", body, head_only=method == "HEAD")


def _response(status: int, reason: str, body: str, head_only: bool = False) -> bytes:
    data = body.encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + (b"" if head_only else data)
