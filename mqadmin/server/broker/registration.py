"""Registering the broker with every name server.

* A full registration (all topics, current DataVersion) at start and every
  ``register_interval`` seconds, to every name server at once; a failed one is retried after
  a second, so a name server started late or restarted learns the broker quickly.
* After topic changes, an incremental registration carrying just the changed topics with the
  new DataVersion (what a Java broker sends after UPDATE_AND_CREATE_TOPIC). Concurrent changes
  are batched into one request per name server, and the callers wait for it. A name server on a
  new connection (it restarted, or this is the first contact) gets a full registration instead,
  because it does not know the broker yet.
* The connections stay open: a name server unregisters a broker whose connection closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from typing import Any

from mqadmin.model.data_version import DataVersion
from mqadmin.model.register_body import RegisterBody, encode_compressed, encode_json
from mqadmin.model.rpc import registration as reg
from mqadmin.model.static_topic import TopicQueueMappingInfo
from mqadmin.model.topic import PERM_READ, PERM_WRITE, TopicConfig
from mqadmin.server.batcher import Batcher
from mqadmin.server.broker.config import BrokerConfig
from mqadmin.server.broker.topics import TopicConfigManager
from mqadmin.transport.errors import TransportError
from mqadmin.transport.tcp import Connection
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import MAX_FRAME_LENGTH, RemotingCommand
from mqadmin.wire.message import body_crc
from mqadmin.wire.signing import signed_ext

log = logging.getLogger(__name__)

RETRY_AFTER_FAILURE = 1.0


class RegistrationError(Exception):
    pass


def register_body(
    data_version: dict[str, Any],
    topics: dict[str, TopicConfig],
    mappings: dict[str, TopicQueueMappingInfo] | None = None,
) -> bytes:
    """The JSON body, or, when that would not fit in a request frame (about 80,000 topics), the compressed form a
    Java broker sends with compressedRegister (every name server reads both). ``mappings``: the static topics'
    logic-queue mappings among ``topics``."""
    body = encode_json(RegisterBody(data_version, topics, mappings=mappings or {}))
    return body if len(body) < MAX_FRAME_LENGTH - 65536 else encode_compressed(data_version, topics, mappings)


class NamesrvRegistrar:
    def __init__(self, config: BrokerConfig, topics: TopicConfigManager) -> None:
        self.config = config
        self.topics = topics
        self._conns: dict[str, Connection] = {}
        self._known: set[str] = set()
        """Name servers that got a full registration on their current connection."""
        self._opaque = itertools.count(1)
        self._batcher: Batcher[TopicConfig] = Batcher(self._register_changes)
        self._task: asyncio.Task[None] | None = None
        self._tls = config.namesrv_tls()
        self._credentials = config.internal_credentials()
        self.registrations = 0

    @property
    def addrs(self) -> list[str]:
        return list(self.config.namesrv_addrs)

    async def start(self) -> bool:
        """First full registration (awaited), then the periodic loop. True if every name server took it."""
        ok = await self.register_all()
        self._task = asyncio.get_running_loop().create_task(self._periodic(ok))
        return ok

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self._batcher.drain()
        await asyncio.gather(*(self._unregister(a) for a in list(self._conns)), return_exceptions=True)
        await asyncio.gather(*(c.close() for c in self._conns.values()), return_exceptions=True)
        self._conns.clear()

    async def _periodic(self, ok: bool) -> None:
        """Full registration every ``register_interval``; sooner (checked every second) when the last
        one failed, an incremental one failed, or a name-server connection dropped (that name server
        forgot the broker)."""
        loop = asyncio.get_running_loop()
        last = loop.time()
        while True:
            await asyncio.sleep(min(self.config.register_interval, RETRY_AFTER_FAILURE))
            due = loop.time() - last >= self.config.register_interval
            if due or not ok or self._lost_connection() or not self._known.issuperset(self.addrs):
                last = loop.time()
                ok = await self.register_all()

    def _lost_connection(self) -> bool:
        return any(addr not in self._conns or self._conns[addr].closed for addr in self.addrs)

    # --- full and incremental registration ------------------------------------------------

    async def register_all(self) -> bool:
        results = await asyncio.gather(*(self._register_current(a) for a in self.addrs), return_exceptions=True)
        failed = [(a, r) for a, r in zip(self.addrs, results, strict=True) if isinstance(r, BaseException)]
        for addr, err in failed:
            log.warning("%s: registration with %s failed: %s", self.config.broker_name, addr, err)
        return not failed

    async def _register_current(self, addr: str) -> None:
        """A full registration; or, to a name server that got one on this connection and holds this DataVersion
        (QUERY_DATA_VERSION, as a Java broker asks before registering), one without topics: it keeps the broker
        alive and brings the orderTopicConf, and the name server does not decode 100,000 topics (16 MB) again
        every ``register_interval`` for nothing."""
        if addr in self._known and not await self._version_changed(addr):
            await self._register(addr, {})
        else:
            await self._register(addr, None)

    async def _version_changed(self, addr: str) -> bool:
        conn = await self._connection(addr)
        cfg = self.config
        header = reg.BrokerLivenessHeader(
            cluster_name=cfg.cluster_name, broker_addr=cfg.addr, broker_name=cfg.broker_name, broker_id=cfg.broker_id
        )
        cmd = reg.QUERY_DATA_VERSION.request(header, DataVersion.from_json(self.topics.data_version))
        cmd.opaque = next(self._opaque)
        resp = await conn.request(self._signed(cmd), cfg.register_timeout)
        if resp.code != ResponseCode.SUCCESS:
            return True
        answer = reg.QUERY_DATA_VERSION.reply(resp).header
        return answer is None or answer.changed

    async def publish(self, changed: list[TopicConfig], wait: bool = True) -> None:
        """Announce changed topics to every name server; returns once they have been sent, or at once when not
        ``wait`` (they are sent in the background; ``stop`` still sends them before unregistering)."""
        if wait:
            await self._batcher.submit(*changed)
        else:
            self._batcher.post(*changed)

    async def _register_changes(self, changed: list[TopicConfig]) -> None:
        if not changed:
            return
        topics = {tc.topic_name: tc for tc in changed}
        results = await asyncio.gather(*(self._register(a, topics) for a in self.addrs), return_exceptions=True)
        for addr, r in zip(self.addrs, results, strict=True):
            if isinstance(r, BaseException):  # a full registration within a second will catch up
                self._known.discard(addr)
                log.warning("%s: incremental registration with %s failed: %s", self.config.broker_name, addr, r)

    async def _register(self, addr: str, topics: dict[str, TopicConfig] | None) -> None:
        conn = await self._connection(addr)
        if topics is None or addr not in self._known:
            topics = self.topics.all()
        cfg = self.config
        announced = {name: self._announced(tc) for name, tc in topics.items()}
        dv = self.topics.data_version
        mappings = self.topics.mapping_infos(announced)
        body = (
            register_body(dv, announced, mappings)
            if len(announced) <= 500
            else await asyncio.to_thread(register_body, dv, announced, mappings)
        )
        header = reg.RegisterBrokerHeader(
            broker_name=cfg.broker_name, broker_addr=cfg.addr, cluster_name=cfg.cluster_name,
            ha_server_addr=cfg.ha_addr, broker_id=cfg.broker_id, compressed=False, enable_acting_master=False,
            body_crc32=body_crc(body),
        )  # fmt: skip
        cmd = self._signed(
            RemotingCommand(reg.REGISTER_BROKER.code, next(self._opaque), ext=header.to_ext(), body=body)
        )
        resp = await conn.request(cmd, cfg.register_timeout)
        if resp.code != ResponseCode.SUCCESS:
            raise RegistrationError(f"code {resp.code}: {resp.remark}")
        self._known.add(addr)
        self.registrations += 1
        try:
            order = reg.REGISTER_BROKER.reply(resp).body
        except (ValueError, RecursionError):
            return
        if order:
            await self.topics.apply_order_config(order)

    def _signed(self, cmd: RemotingCommand) -> RemotingCommand:
        """With ACL on, signed with the broker's internal credentials (our name server, as Apache's, checks
        nothing; a name server that does can check them)."""
        if (c := self._credentials) is not None:
            cmd.ext = signed_ext(cmd.ext, cmd.body, c.access_key, c.secret_key)
        return cmd

    def _announced(self, tc: TopicConfig) -> TopicConfig:
        """A broker without read or write permission announces its topics with reduced perms."""
        bp = self.config.broker_permission
        if bp & PERM_READ and bp & PERM_WRITE:
            return tc
        return tc.with_(perm=tc.perm & bp)

    async def _connection(self, addr: str) -> Connection:
        conn = self._conns.get(addr)
        if conn is None or conn.closed:
            self._known.discard(addr)
            if conn is not None:
                await conn.close()
            conn = await Connection.open(addr, timeout=self.config.register_timeout, ssl=self._tls)
            self._conns[addr] = conn
        return conn

    async def _unregister(self, addr: str) -> None:
        conn = self._conns.get(addr)
        if conn is None or conn.closed:
            return
        cfg = self.config
        header = reg.BrokerIdentityHeader(
            broker_name=cfg.broker_name, broker_addr=cfg.addr, cluster_name=cfg.cluster_name, broker_id=cfg.broker_id
        )
        cmd = self._signed(RemotingCommand(reg.UNREGISTER_BROKER.code, next(self._opaque), ext=header.to_ext()))
        with contextlib.suppress(TransportError, TimeoutError):
            await conn.request(cmd, 1.0)
