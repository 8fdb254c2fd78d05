"""The broker's storage side as the request processors see it, and the base of its processors.

Processors depend on ``BrokerParts`` (the config, the topic and group tables, the counters and the
store), never on the ``Broker`` that assembles them.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from mqadmin.model.data_version import DataVersion
from mqadmin.server.broker.clients import ClientRegistry, RebalanceLocks
from mqadmin.server.broker.config import BrokerConfig
from mqadmin.server.broker.groups import SubscriptionGroupManager
from mqadmin.server.broker.offsets import ConsumerOffsetManager
from mqadmin.server.broker.peers import PeerBrokers
from mqadmin.server.broker.polling import LongPolling
from mqadmin.server.broker.rates import Rates
from mqadmin.server.broker.stats import BrokerStats
from mqadmin.server.broker.topics import TopicConfigManager
from mqadmin.server.loop import stop_task
from mqadmin.server.store import MessageStore

CLIENT_SCAN_INTERVAL = 10.0
"""Seconds between scans for clients that stopped sending heartbeats."""


class BrokerStore:
    """The message store, consumer offsets and connected clients, with long polling, rates and locks."""

    def __init__(self, messages: MessageStore, offsets: ConsumerOffsetManager, clients: ClientRegistry) -> None:
        self.messages = messages
        self.offsets = offsets
        self.clients = clients
        self.polling = LongPolling()
        self.rates = Rates()
        self.locks = RebalanceLocks()
        messages.add_arrival_listener(self.polling.on_arrival)
        self._scan: asyncio.Task[None] | None = None

    async def open(self) -> None:
        """Read the committed offsets (an unreadable file stops the start before anything runs), recover
        the message store in a worker thread, and start the background tasks."""
        self.offsets.load()
        await asyncio.to_thread(self.messages.recover)
        self.messages.start()
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
            "earliestMessageTimeStamp": str(m.earliest_store_time()),
            "flushDiskType": m.flush_disk_type.value,
        }

    def consumer_groups(self, topic: str) -> set[str]:
        """The groups consuming ``topic``: subscribed now, or with committed offsets."""
        return self.clients.groups_of(topic) | self.offsets.groups_of(topic)

    async def delete_topic(self, topic: str) -> None:
        await self.messages.delete_topic(topic)
        self.offsets.delete_topic(topic)

    async def close(self) -> None:
        await stop_task(self._scan)
        await self.offsets.close()
        await self.messages.close()


def apply_store_settings(config: BrokerConfig, store: BrokerStore) -> None:
    """The broker settings its open store and offsets read while running (at start, and after each update)."""
    m = store.messages
    m.flush_interval, store.offsets.flush_interval = (
        config.flush_interval_commitlog,
        config.flush_consumer_offset_interval,
    )
    m.max_transfer_count, m.max_transfer_bytes = config.max_transfer_count, config.max_transfer_bytes
    if config.data_read_ahead != m.log.read_ahead:
        m.log.set_read_ahead(config.data_read_ahead)


def store_host(config: BrokerConfig) -> tuple[str, int]:
    """The address stored in messages (and encoded in their offset ids): where clients reach us."""
    host = config.listen_host
    if host in ("", "0.0.0.0", "::"):
        host = "127.0.0.1"
    return host, config.listen_port


@dataclass(frozen=True, slots=True)
class BrokerParts:
    """What request processors work with."""

    config: BrokerConfig
    topics: TopicConfigManager
    groups: SubscriptionGroupManager
    stats: BrokerStats
    store: BrokerStore
    peers: PeerBrokers
    """Requests forwarded to other brokers (reads of a static topic's items held there)."""
    config_version: DataVersion = field(default_factory=DataVersion)
    """Bumped by UPDATE_BROKER_CONFIG; GET_BROKER_CONFIG reports it."""


class Processor:
    """Base of the request processors: the broker's parts under short names."""

    def __init__(self, parts: BrokerParts) -> None:
        self.parts = parts
        self.config = parts.config
        self.topics = parts.topics
        self.groups = parts.groups
        self.stats = parts.stats
        self.store = parts.store
        self.messages = parts.store.messages
        self.offsets = parts.store.offsets
        self.clients = parts.store.clients
        self.polling = parts.store.polling
        self.rates = parts.store.rates
        self.locks = parts.store.locks
        self.peers = parts.peers
