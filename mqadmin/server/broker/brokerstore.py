"""The broker's storage side as the message path sees it, and the base of its processors."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from mqadmin.server.broker.clients import ClientRegistry, RebalanceLocks
from mqadmin.server.broker.offsets import ConsumerOffsetManager
from mqadmin.server.broker.polling import LongPolling
from mqadmin.server.broker.rates import Rates
from mqadmin.server.store import MessageStore

if TYPE_CHECKING:
    from mqadmin.server.broker.broker import Broker

CLIENT_SCAN_INTERVAL = 10.0
"""Seconds between scans for clients that stopped sending heartbeats."""


class BrokerStore:
    """What ``broker.store`` holds: the message store, consumer offsets and connected clients,
    plus the hooks the broker core calls (runtime info, topic and group deletion)."""

    def __init__(self, messages: MessageStore, offsets: ConsumerOffsetManager, clients: ClientRegistry) -> None:
        self.messages = messages
        self.offsets = offsets
        self.clients = clients
        self.polling = LongPolling()
        self.rates = Rates()
        self.locks = RebalanceLocks()
        messages.add_arrival_listener(self.polling.on_arrival)
        self._scan: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.offsets.start()
        self._scan = asyncio.get_running_loop().create_task(self._scan_clients())

    async def _scan_clients(self) -> None:
        while True:
            await asyncio.sleep(CLIENT_SCAN_INTERVAL)
            self.clients.expire()

    def runtime_info(self) -> dict[str, str]:
        m = self.messages
        return {
            "commitLogMaxOffset": str(m.max_phys_offset),
            "commitLogMinOffset": str(m.min_phys_offset),
            "flushDiskType": m.flush_disk_type.value,
        }

    async def delete_topic(self, topic: str) -> None:
        await self.messages.delete_topic(topic)
        self.offsets.delete_topic(topic)

    async def delete_group(self, group: str) -> None:
        self.offsets.delete_group(group)

    async def close(self) -> None:
        if self._scan is not None:
            self._scan.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._scan
        await self.offsets.close()
        await self.messages.close()


def store_host(broker: Broker) -> tuple[str, int]:
    """The address stored in messages (and encoded in their offset ids): where clients reach us."""
    host = broker.config.listen_host
    if host in ("", "0.0.0.0", "::"):
        host = "127.0.0.1"
    return host, broker.config.listen_port


class Processor:
    """Base of the message-path request processors: the broker and the parts of its store."""

    def __init__(self, broker: Broker, store: BrokerStore) -> None:
        self.broker = broker
        self.messages = store.messages
        self.offsets = store.offsets
        self.clients = store.clients
        self.polling = store.polling
        self.rates = store.rates
        self.locks = store.locks
