"""A small real remoting server on 127.0.0.1 (plain TCP or TLS) that records every request it gets, for tests of
what goes over the wire: signatures, TLS handshakes, where requests go.

It runs its own event loop in a thread, so the CLI can be run in-process against it. As a name server it
lists one broker, ``broker-a``, at its own address (or ``broker_addr``); as a broker it answers runtime info
and topic configs.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import struct
import threading
from collections.abc import Iterator

from mqadmin.model.route import BrokerData, ClusterInfo
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import FrameError, RemotingCommand, check_length, decode_frame, encode_frame


class RecordingServer:
    def __init__(self, ssl_context: ssl.SSLContext | None = None, broker_addr: str | None = None) -> None:
        self.ssl_context = ssl_context
        self.requests: list[RemotingCommand] = []
        self.broker_addr = broker_addr
        self.addr = ""
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._server: asyncio.base_events.Server | None = None

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.ssl_context)
        )
        port = self._server.sockets[0].getsockname()[1]
        self.addr = f"127.0.0.1:{port}"
        self._ready.set()
        self._loop.run_forever()

    def start(self) -> RecordingServer:
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self) -> None:
        async def close() -> None:
            assert self._server is not None
            self._server.close()

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                (length,) = struct.unpack(">i", await reader.readexactly(4))
                check_length(length)  # a TLS hello to this plaintext server: closed, as RocketMQ does
                cmd = decode_frame(await reader.readexactly(length))
                self.requests.append(cmd)
                writer.write(encode_frame(self.answer(cmd)))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError, OSError, FrameError):
            pass
        finally:
            writer.close()

    def answer(self, cmd: RemotingCommand) -> RemotingCommand:
        if cmd.code == RC.GET_BROKER_CLUSTER_INFO:
            info = ClusterInfo(
                {"broker-a": BrokerData("DefaultCluster", "broker-a", {0: self.broker_addr or self.addr})}
            )
            info.clusters["DefaultCluster"] = ["broker-a"]
            return cmd.response(body=fastjson.dumps_bytes(info.to_json()))
        if cmd.code == RC.GET_ALL_TOPIC_LIST_FROM_NAMESERVER:
            return cmd.response(body=fastjson.dumps_bytes({"topicList": ["Orders"]}))
        if cmd.code == RC.GET_BROKER_RUNTIME_INFO:
            return cmd.response(body=fastjson.dumps_bytes({"table": {"brokerVersionDesc": "V5_3_3"}}))
        return cmd.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, f" request type {cmd.code} not supported")


@contextlib.contextmanager
def recording_server(
    ssl_context: ssl.SSLContext | None = None, broker_addr: str | None = None
) -> Iterator[RecordingServer]:
    server = RecordingServer(ssl_context, broker_addr).start()
    try:
        yield server
    finally:
        server.stop()


def server_tls(cert: str, key: str, client_ca: str | None = None) -> ssl.SSLContext:
    """A server context; with ``client_ca`` clients must present a certificate it signed (mutual TLS)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    if client_ca:
        ctx.verify_mode = ssl.CERT_REQUIRED
        ctx.load_verify_locations(client_ca)
    return ctx
