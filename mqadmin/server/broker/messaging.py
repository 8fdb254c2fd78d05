"""The broker's message path: ``install(broker)`` opens the store and registers the processors.

Store settings come from the BrokerConfig when it has them, under RocketMQ's names:
``flush_disk_type`` (``ASYNC_FLUSH``, the default, or ``SYNC_FLUSH``; see
mqadmin.server.store.store for what each guarantees) and ``mapped_file_size_commitlog``
(segment size, 64 MiB by default).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from mqadmin.server.broker.clients import ClientRegistry, RebalanceLocks
from mqadmin.server.broker.consumer import ConsumerProcessor
from mqadmin.server.broker.offsets import ConsumerOffsetManager
from mqadmin.server.broker.pull import (
    GET_EARLIEST_MSG_STORETIME,
    SEARCH_OFFSET_BY_TIMESTAMP,
    LongPolling,
    PullProcessor,
)
from mqadmin.server.broker.query import QueryProcessor
from mqadmin.server.broker.rates import Rates
from mqadmin.server.broker.send import SendProcessor
from mqadmin.server.store import DEFAULT_SEGMENT_SIZE, FlushDiskType, MessageStore
from mqadmin.wire.codes import RequestCode

if TYPE_CHECKING:
    from mqadmin.server.broker.broker import Broker

log = logging.getLogger(__name__)

CLIENT_SCAN_INTERVAL = 10.0


class BrokerStore:
    """What ``broker.store`` holds: the message store, consumer offsets and connected clients,
    plus the hooks the broker core calls (runtime info, topic and group deletion)."""

    def __init__(
        self, messages: MessageStore, offsets: ConsumerOffsetManager, clients: ClientRegistry, polling: LongPolling
    ) -> None:
        self.messages = messages
        self.offsets = offsets
        self.clients = clients
        self.polling = polling
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


async def install(broker: Broker) -> BrokerStore:
    cfg = broker.config
    messages = await MessageStore.open(
        Path(cfg.data_dir),
        segment_size=int(getattr(cfg, "mapped_file_size_commitlog", DEFAULT_SEGMENT_SIZE)),
        flush_disk_type=FlushDiskType(getattr(cfg, "flush_disk_type", FlushDiskType.ASYNC)),
        store_host=store_host(broker),
    )
    offsets = ConsumerOffsetManager(broker.data_path("consumerOffset.json"))
    offsets.load()

    def notify_enabled(group: str) -> bool:
        return bool((broker.groups.get(group) or {}).get("notifyConsumerIdsChangedEnable", True))

    clients = ClientRegistry(notify_enabled)
    polling = LongPolling()
    messages.add_arrival_listener(polling.on_arrival)
    rates = Rates()
    store = BrokerStore(messages, offsets, clients, polling)

    send = SendProcessor(broker, messages, rates, lambda: store_host(broker))
    pull = PullProcessor(broker, messages, offsets, clients, polling, rates)
    consumer = ConsumerProcessor(broker, messages, offsets, clients, RebalanceLocks())
    query = QueryProcessor(broker, messages, offsets, clients, rates)
    handlers = {
        RequestCode.SEND_MESSAGE: send.send_message,
        RequestCode.SEND_MESSAGE_V2: send.send_message,
        RequestCode.SEND_BATCH_MESSAGE: send.send_message,
        RequestCode.CONSUMER_SEND_MSG_BACK: send.send_back,
        RequestCode.PULL_MESSAGE: pull.pull,
        RequestCode.GET_MAX_OFFSET: pull.get_max_offset,
        RequestCode.GET_MIN_OFFSET: pull.get_min_offset,
        SEARCH_OFFSET_BY_TIMESTAMP: pull.search_offset,
        GET_EARLIEST_MSG_STORETIME: pull.earliest_store_time,
        RequestCode.HEART_BEAT: consumer.heartbeat,
        RequestCode.UNREGISTER_CLIENT: consumer.unregister,
        RequestCode.GET_CONSUMER_LIST_BY_GROUP: consumer.consumer_list,
        RequestCode.GET_CONSUMER_CONNECTION_LIST: consumer.consumer_connections,
        RequestCode.GET_PRODUCER_CONNECTION_LIST: consumer.producer_connections,
        RequestCode.QUERY_CONSUMER_OFFSET: consumer.query_offset,
        RequestCode.UPDATE_CONSUMER_OFFSET: consumer.update_offset,
        RequestCode.LOCK_BATCH_MQ: consumer.lock_batch,
        RequestCode.UNLOCK_BATCH_MQ: consumer.unlock_batch,
        RequestCode.GET_CONSUMER_RUNNING_INFO: consumer.call_consumer,
        RequestCode.CONSUME_MESSAGE_DIRECTLY: consumer.call_consumer,
        RequestCode.QUERY_MESSAGE: query.query_message,
        RequestCode.VIEW_MESSAGE_BY_ID: query.view_message,
        RequestCode.GET_TOPIC_STATS_INFO: query.topic_stats,
        RequestCode.GET_CONSUME_STATS: query.consume_stats,
    }
    for code, handler in handlers.items():
        broker.server.register(code, handler)
    broker.server.on_close(clients.channel_closed)
    broker.consumer_groups_of.append(lambda topic: clients.groups_of(topic) | offsets.groups_of(topic))
    broker.store = store
    store.start()
    broker.on_stop(store.close)
    return store
