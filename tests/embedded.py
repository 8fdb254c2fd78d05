"""The embedded name server and brokers (``mqadmin.server``) on loopback, on an event loop of their own in a
thread: one per test module, shared by synchronous CLI tests and async admin-client tests alike. What a broker
does is tested against these, never against a script of it (``tests.mock_transport`` scripts answers)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from mqadmin.model.group import GroupWrite, SubscriptionGroupConfig
from mqadmin.model.rpc import groups, topics
from mqadmin.model.rpc.spec import Reply, Rpc
from mqadmin.model.topic import TopicConfig
from mqadmin.server.auth.config import AuthSettings
from mqadmin.server.broker.broker import Broker
from mqadmin.server.dev import DevCluster, start_cluster
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire.frame import RemotingCommand

T = TypeVar("T")
H = TypeVar("H")
B = TypeVar("B")


class ThreadedCluster:
    """``with ThreadedCluster(tmp, brokers=2) as c``: ``c.namesrv_addr``, ``c.addr["broker-a"]``."""

    def __init__(self, data_dir: Path, *, brokers: int = 2, auth: AuthSettings | None = None) -> None:
        self._kwargs: dict[str, Any] = {"data_dir": data_dir, "brokers": brokers, "auth": auth}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="embedded-cluster", daemon=True)
        self.cluster: DevCluster | None = None

    def __enter__(self) -> ThreadedCluster:
        self._thread.start()
        try:
            self.cluster = self.run(start_cluster(namesrv_port=0, broker_port=0, **self._kwargs))
        except BaseException:
            self._halt()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        try:
            if self.cluster is not None:
                self.run(self.cluster.stop())
        finally:
            self._halt()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
        """Run ``coro`` on the servers' loop and wait for it (bounded)."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def call(self, fn: Callable[[], T]) -> T:
        """Call ``fn`` on the servers' loop (to read or set a server's state between requests)."""

        async def on_loop() -> T:
            return fn()

        return self.run(on_loop())

    def request(self, addr: str, rpc: Rpc[H, B, Any, Any], header: H | None = None, body: B | None = None) -> Reply:
        """One request built from its declaration, over TCP; an answer outside ``rpc.ok`` fails the test."""

        async def send() -> RemotingCommand:
            transport = TcpTransport(timeout=10)
            try:
                return await transport.request(addr, rpc.request(header, body))
            finally:
                await transport.aclose()

        resp = self.run(send())
        assert resp.code in rpc.ok, f"{rpc.name} to {addr}: {resp.code} {resp.remark}"
        return rpc.reply(resp)

    def create_topic(self, broker: str, cfg: TopicConfig) -> None:
        self.request(self.addr[broker], topics.UPDATE_AND_CREATE_TOPIC, topics.CreateTopicHeader.of(cfg))

    def topic(self, broker: str, name: str) -> TopicConfig | None:
        """What ``broker`` holds of topic ``name``."""
        return self.call(lambda: self.broker(broker).topics.get(name))

    def create_group(self, broker: str, cfg: SubscriptionGroupConfig) -> None:
        self.request(self.addr[broker], groups.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, body=GroupWrite(cfg))

    def group(self, broker: str, name: str) -> SubscriptionGroupConfig | None:
        """What ``broker`` holds of subscription group ``name``."""
        held = self.call(lambda: self.broker(broker).groups.get(name))
        return SubscriptionGroupConfig.from_json(held, name) if held is not None else None

    def broker(self, name: str) -> Broker:
        assert self.cluster is not None
        return next(b for b in self.cluster.brokers if b.config.broker_name == name)

    @property
    def namesrv_addr(self) -> str:
        assert self.cluster is not None
        return self.cluster.namesrv_addr

    @property
    def addr(self) -> dict[str, str]:
        """Broker name -> address."""
        assert self.cluster is not None
        return {b.config.broker_name: b.config.addr for b in self.cluster.brokers}

    def _halt(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)
        self._loop.close()
