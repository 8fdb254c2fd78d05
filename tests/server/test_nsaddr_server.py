"""The embedded address server (``mqadmin.server.nsaddr``) over a real loopback socket: HTTP/1.x GET answers the
list; random bytes, HTTP/0.9, HTTP/2's preface and an over-long line are answered 400 at once and the connection
closed, without the client closing its side first."""

from __future__ import annotations

import asyncio

import pytest

from mqadmin.server.nsaddr import MAX_HEAD, AddressServer


async def exchange(data: bytes) -> bytes:
    """Send ``data`` (the writing side left open) and read until the server closes."""
    server = AddressServer(lambda: ["127.0.0.1:9876", "127.0.0.1:9877"])
    await server.start()
    try:
        reader, writer = await asyncio.open_connection(server.host, server.port)
        writer.write(data)
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 60)  # the server closes; no wait on READ_TIMEOUT
        writer.close()
        return answer
    finally:
        await server.stop()


def test_an_http_1_get_is_answered_with_the_list():
    answer = asyncio.run(exchange(b"GET /rocketmq/nsaddr HTTP/1.1\r\nHost: x\r\n\r\n"))
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n")
    assert answer.endswith(b"\r\n\r\n127.0.0.1:9876;127.0.0.1:9877")


@pytest.mark.parametrize(
    "data",
    [
        b"\x00\x00\x00\x10\x00\x00\x00\x0c{not remoting}\n",
        b"GET /rocketmq/nsaddr\r\n",  # HTTP/0.9
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
        b"GET /rocketmq/nsaddr HTTP/3\r\n",
        b"A" * (MAX_HEAD + 10),  # no line end within the bound
    ],
    ids=["random", "http-0.9", "http-2", "http-3", "over-long"],
)
def test_anything_else_is_answered_400_and_closed(data: bytes):
    answer = asyncio.run(exchange(data))
    assert answer.startswith(b"HTTP/1.1 400 Bad Request\r\n")
    assert answer.endswith(b"not an HTTP/1.x request\n")
