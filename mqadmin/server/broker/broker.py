"""The Broker: assembles its parts (config tables, message store, clients, registration), answers
the requests in ``_serve``, and runs its life cycle."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from mqadmin.model.rpc import brokers, clients, groups, messages, topics
from mqadmin.server.broker.admin import AdminProcessor
from mqadmin.server.broker.brokerstore import BrokerParts, BrokerStore, store_host
from mqadmin.server.broker.clients import ClientRegistry
from mqadmin.server.broker.config import BrokerConfig
from mqadmin.server.broker.consumer import ConsumerProcessor
from mqadmin.server.broker.groups import SubscriptionGroupManager
from mqadmin.server.broker.offsets import ConsumerOffsetManager
from mqadmin.server.broker.pull import PullProcessor
from mqadmin.server.broker.query import QueryProcessor
from mqadmin.server.broker.registration import NamesrvRegistrar
from mqadmin.server.broker.send import SendProcessor
from mqadmin.server.broker.stats import BrokerStats
from mqadmin.server.broker.topics import TopicConfigManager
from mqadmin.server.paths import child
from mqadmin.server.remoting import RemotingServer
from mqadmin.server.store import MessageStore
from mqadmin.server.validation import check_text

log = logging.getLogger(__name__)


class Broker:
    """One broker. Everything is built here (no I/O); ``start()`` loads the config files, recovers the
    message store, listens, and registers with the name servers."""

    def __init__(self, config: BrokerConfig) -> None:
        self.config = config
        self.server = RemotingServer(f"broker {config.broker_name}", check_text, config.limits)
        self.stats = BrokerStats()
        self.topics = TopicConfigManager(
            config, self.data_path("topics.json"), lambda changed: self.registrar.publish(changed)
        )
        self.groups = SubscriptionGroupManager(
            self.data_path("subscriptionGroup.json"), reset_unreadable=config.reset_unreadable_metadata
        )
        self.registrar = NamesrvRegistrar(config, self.topics)
        messages_ = MessageStore(
            Path(config.data_dir),
            segment_size=config.mapped_file_size_commitlog,
            flush_disk_type=config.flush_disk_type,
            store_host=store_host(config),
        )
        offsets = ConsumerOffsetManager(
            self.data_path("consumerOffset.json"), reset_unreadable=config.reset_unreadable_metadata
        )
        self.store = BrokerStore(messages_, offsets, ClientRegistry(self._notify_enabled))
        self.parts = BrokerParts(config, self.topics, self.groups, self.stats, self.store)
        self.server.on_close(self.store.clients.channel_closed)
        self._serve()
        self.started = False

    def data_path(self, name: str) -> Path:
        """Where a config file lives: ``<data_dir>/config/<name>`` (checked to stay there)."""
        return child(self.config.config_dir, name)

    def _notify_enabled(self, group: str) -> bool:
        return bool((self.groups.get(group) or {}).get("notifyConsumerIdsChangedEnable", True))

    def _serve(self) -> None:
        """Every request the broker answers, by declaration."""
        serve, parts = self.server.serve, self.parts
        admin = AdminProcessor(parts, self.registrar.register_all)
        serve(topics.UPDATE_AND_CREATE_TOPIC, admin.update_and_create_topic)
        serve(topics.UPDATE_AND_CREATE_TOPIC_LIST, admin.update_and_create_topic_list)
        serve(topics.DELETE_TOPIC_IN_BROKER, admin.delete_topic)
        serve(topics.GET_ALL_TOPIC_CONFIG, admin.get_all_topic_config)
        serve(topics.GET_TOPIC_CONFIG, admin.get_topic_config)
        serve(topics.QUERY_TOPIC_CONSUME_BY_WHO, admin.query_topic_consume_by_who)
        serve(groups.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, admin.update_subscription_group)
        serve(groups.DELETE_SUBSCRIPTIONGROUP, admin.delete_subscription_group)
        serve(groups.GET_ALL_SUBSCRIPTIONGROUP_CONFIG, admin.get_all_subscription_groups)
        serve(brokers.GET_BROKER_CONFIG, admin.get_broker_config)
        serve(brokers.UPDATE_BROKER_CONFIG, admin.update_broker_config)
        serve(brokers.GET_BROKER_RUNTIME_INFO, admin.get_broker_runtime_info)
        send = SendProcessor(parts)
        serve(messages.SEND_MESSAGE, send.send_message)
        serve(messages.SEND_MESSAGE_V2, send.send_message)
        serve(messages.SEND_BATCH_MESSAGE, send.send_batch)
        serve(messages.CONSUMER_SEND_MSG_BACK, send.send_back)
        pull = PullProcessor(parts)
        serve(messages.PULL_MESSAGE, pull.pull)
        serve(messages.GET_MAX_OFFSET, pull.get_max_offset)
        serve(messages.GET_MIN_OFFSET, pull.get_min_offset)
        serve(messages.SEARCH_OFFSET_BY_TIMESTAMP, pull.search_offset)
        serve(messages.GET_EARLIEST_MSG_STORETIME, pull.earliest_store_time)
        query = QueryProcessor(parts)
        serve(messages.QUERY_MESSAGE, query.query_message)
        serve(messages.VIEW_MESSAGE_BY_ID, query.view_message)
        serve(topics.GET_TOPIC_STATS_INFO, query.topic_stats)
        serve(groups.GET_CONSUME_STATS, query.consume_stats)
        consumer = ConsumerProcessor(parts)
        serve(clients.HEART_BEAT, consumer.heartbeat)
        serve(clients.UNREGISTER_CLIENT, consumer.unregister)
        serve(clients.GET_CONSUMER_LIST_BY_GROUP, consumer.consumer_list)
        serve(clients.GET_CONSUMER_CONNECTION_LIST, consumer.consumer_connections)
        serve(clients.GET_PRODUCER_CONNECTION_LIST, consumer.producer_connections)
        serve(clients.QUERY_CONSUMER_OFFSET, consumer.query_offset)
        serve(clients.UPDATE_CONSUMER_OFFSET, consumer.update_offset)
        serve(clients.LOCK_BATCH_MQ, consumer.lock_batch)
        serve(clients.UNLOCK_BATCH_MQ, consumer.unlock_batch)
        serve(clients.GET_CONSUMER_RUNNING_INFO, consumer.call_consumer)
        serve(clients.CONSUME_MESSAGE_DIRECTLY, consumer.call_consumer)

    async def start(self) -> None:
        self.config.config_dir.mkdir(parents=True, exist_ok=True)
        self.topics.load()
        self.groups.load()
        self.groups.auto_create = self.config.auto_create_subscription_group
        await self.store.open()
        self.config.listen_port = await self.server.start(self.config.listen_host, self.config.listen_port)
        self.started = True
        await self.registrar.start()

    async def stop(self) -> None:
        if not self.started:
            return
        self.started = False
        await self.registrar.stop()
        await self.server.close()
        try:
            await self.store.close()
        except Exception:  # the tables below must still be written
            log.exception("%s: closing the message store failed", self.config.broker_name)
        await asyncio.gather(self.topics.close(), self.groups.close())
