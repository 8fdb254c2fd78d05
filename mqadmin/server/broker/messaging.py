"""The broker's message path: ``install(broker)`` opens the store and registers the processors.

Store settings come from the BrokerConfig when it has them, under RocketMQ's names:
``flush_disk_type`` (``ASYNC_FLUSH``, the default, or ``SYNC_FLUSH``; see
mqadmin.server.store.store for what each guarantees) and ``mapped_file_size_commitlog``
(segment size, 64 MiB by default).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mqadmin.model.rpc.messages import QUERY_CONSUME_QUEUE
from mqadmin.server.broker import broker_consume_stats, consumer_admin, schedule, stats_items
from mqadmin.server.broker.brokerstore import BrokerStore, store_host
from mqadmin.server.broker.clients import ClientRegistry
from mqadmin.server.broker.consumer import ConsumerProcessor
from mqadmin.server.broker.offsets import ConsumerOffsetManager
from mqadmin.server.broker.pull import GET_EARLIEST_MSG_STORETIME, SEARCH_OFFSET_BY_TIMESTAMP, PullProcessor
from mqadmin.server.broker.query import QueryProcessor
from mqadmin.server.broker.queue_query import QueueQueryProcessor
from mqadmin.server.broker.send import SendProcessor
from mqadmin.server.store import DEFAULT_SEGMENT_SIZE, FlushDiskType, MessageStore
from mqadmin.wire.codes import RequestCode

if TYPE_CHECKING:
    from mqadmin.server.broker.broker import Broker


async def install(broker: Broker) -> BrokerStore:
    cfg = broker.config
    levels = schedule.delay_levels(cfg.message_delay_level)  # a bad setting stops the start before anything runs
    offsets = ConsumerOffsetManager(
        broker.data_path("consumerOffset.json"), reset_unreadable=cfg.reset_unreadable_metadata
    )
    offsets.load()  # before the store opens: an unreadable file stops the start with nothing running
    messages = await MessageStore.open(
        Path(cfg.data_dir),
        segment_size=int(getattr(cfg, "mapped_file_size_commitlog", DEFAULT_SEGMENT_SIZE)),
        flush_disk_type=FlushDiskType(getattr(cfg, "flush_disk_type", FlushDiskType.ASYNC)),
        store_host=store_host(broker),
    )

    def notify_enabled(group: str) -> bool:
        return bool((broker.groups.get(group) or {}).get("notifyConsumerIdsChangedEnable", True))

    clients = ClientRegistry(notify_enabled)
    store = BrokerStore(messages, offsets, clients)
    send, pull = SendProcessor(broker, store), PullProcessor(broker, store)
    consumer, query = ConsumerProcessor(broker, store), QueryProcessor(broker, store)
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
    stats_items.install(broker, store.rates)
    broker.server.serve(QUERY_CONSUME_QUEUE, QueueQueryProcessor(broker, store).query_consume_queue)
    consumer_admin.install(broker, store)
    broker_consume_stats.install(broker, store)
    broker.server.on_close(clients.channel_closed)
    broker.consumer_groups_of.append(lambda topic: clients.groups_of(topic) | offsets.groups_of(topic))
    broker.store = store
    store.start()
    broker.on_stop(store.close)
    schedule.install(broker, store, levels)  # after store.close's hook, so it stops first
    return store
