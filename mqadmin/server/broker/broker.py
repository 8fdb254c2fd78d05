"""The Broker: assembles its parts (config tables, message store, clients, registration), answers
the requests in ``_serve``, and runs its life cycle."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from mqadmin.model.rpc import brokers, clients, consumers, groups, ha, messages, pop, static_topics, stats, topics
from mqadmin.server.auth.guard import Guard
from mqadmin.server.auth.management import AuthManagement
from mqadmin.server.auth.store import AuthStore
from mqadmin.server.broker import refusals
from mqadmin.server.broker.admin import AdminProcessor
from mqadmin.server.broker.broker_consume_stats import BrokerConsumeStatsProcessor
from mqadmin.server.broker.brokerstore import BrokerParts, BrokerStore, apply_store_settings, store_host
from mqadmin.server.broker.clients import ClientRegistry
from mqadmin.server.broker.config import BrokerConfig
from mqadmin.server.broker.consumer import ConsumerProcessor
from mqadmin.server.broker.consumer_admin import ConsumerAdminProcessor
from mqadmin.server.broker.group_admin import GroupAdmin
from mqadmin.server.broker.groups import SubscriptionGroupManager
from mqadmin.server.broker.lite import LiteProcessor
from mqadmin.server.broker.offsets import ConsumerOffsetManager
from mqadmin.server.broker.peers import PeerBrokers
from mqadmin.server.broker.pop import PopProcessor
from mqadmin.server.broker.pull import PullProcessor
from mqadmin.server.broker.query import QueryProcessor
from mqadmin.server.broker.queue_query import QueueQueryProcessor
from mqadmin.server.broker.registration import NamesrvRegistrar
from mqadmin.server.broker.replication import ReplicationProcessor, no_controller
from mqadmin.server.broker.schedule import ScheduleService
from mqadmin.server.broker.send import SendProcessor
from mqadmin.server.broker.stats import BrokerStats
from mqadmin.server.broker.stats_items import stats_item_view
from mqadmin.server.broker.store_admin import ColdDataFlowControl, StoreAdmin
from mqadmin.server.broker.system_topics import system_topic_list
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
            config, self.data_path("topics.json"), lambda changed, wait: self.registrar.publish(changed, wait)
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
        messages_.max_transfer_count, messages_.max_transfer_bytes = (
            config.max_transfer_count,
            config.max_transfer_bytes,
        )
        offsets = ConsumerOffsetManager(
            self.data_path("consumerOffset.json"),
            reset_unreadable=config.reset_unreadable_metadata,
        )
        self.store = BrokerStore(messages_, offsets, ClientRegistry(self._notify_enabled))
        self.parts = BrokerParts(config, self.topics, self.groups, self.stats, self.store, PeerBrokers(config))
        self.schedule = ScheduleService(self.parts, self.data_path("delayOffset.json"))
        self.consumer_admin = ConsumerAdminProcessor(self.parts, self.data_path("messageRequestMode.json"))
        self.pop = PopProcessor(self.parts, self.consumer_admin.mode_of)
        self.consumer_admin.on_reset = self.pop.reset
        self.store_admin = StoreAdmin(self.parts)
        self.server.on_close(self.store.clients.channel_closed)
        self.auth: AuthStore | None = None
        if config.auth is not None:
            self.auth = AuthStore(
                self.data_path("auth.json"), config.auth, reset_unreadable=config.reset_unreadable_metadata
            )
            self.server.guard = Guard(self.auth.user, self.auth.acl, config.cluster_name)
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
        serve(static_topics.UPDATE_AND_CREATE_STATIC_TOPIC, admin.update_and_create_static_topic)
        serve(topics.QUERY_TOPIC_CONSUME_BY_WHO, admin.query_topic_consume_by_who)
        serve(brokers.GET_BROKER_CONFIG, admin.get_broker_config)
        serve(brokers.UPDATE_BROKER_CONFIG, admin.update_broker_config)
        serve(brokers.GET_BROKER_RUNTIME_INFO, admin.get_broker_runtime_info)
        serve(consumers.GET_BROKER_CONSUME_STATS, BrokerConsumeStatsProcessor(parts).consume_stats)
        serve(stats.GET_SYSTEM_TOPIC_LIST_FROM_BROKER, system_topic_list(self.config))
        serve(stats.VIEW_BROKER_STATS_DATA, stats_item_view(self.store.rates))
        group_admin = GroupAdmin(parts)
        serve(groups.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, group_admin.update)
        serve(groups.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST, group_admin.update_list)
        serve(groups.GET_ALL_SUBSCRIPTIONGROUP_CONFIG, group_admin.get_all)
        serve(groups.GET_SUBSCRIPTIONGROUP_CONFIG, group_admin.get_one)
        serve(groups.DELETE_SUBSCRIPTIONGROUP, group_admin.delete)
        send = SendProcessor(parts)
        serve(messages.SEND_MESSAGE, send.send_message)
        serve(messages.SEND_MESSAGE_V2, send.send_message)
        serve(messages.SEND_BATCH_MESSAGE, send.send_message)
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
        serve(messages.QUERY_CONSUME_QUEUE, QueueQueryProcessor(parts).query_consume_queue)
        serve(topics.GET_TOPIC_STATS_INFO, query.topic_stats)
        serve(groups.GET_CONSUME_STATS, query.consume_stats)
        serve(groups.GET_ALL_CONSUMER_OFFSET, query.all_consumer_offsets)
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
        consumer_admin = self.consumer_admin
        serve(consumers.INVOKE_BROKER_TO_RESET_OFFSET, consumer_admin.reset_offset)
        serve(consumers.INVOKE_BROKER_TO_GET_CONSUMER_STATUS, consumer_admin.consumer_status)
        serve(consumers.GET_ALL_PRODUCER_INFO, consumer_admin.producer_table)
        serve(consumers.SET_MESSAGE_REQUEST_MODE, consumer_admin.set_request_mode)
        serve(consumers.GET_ALL_MESSAGE_REQUEST_MODE, consumer_admin.request_modes)
        serve(pop.QUERY_ASSIGNMENT, self.pop.query_assignment)
        serve(pop.POP_MESSAGE, self.pop.pop)
        serve(pop.ACK_MESSAGE, self.pop.ack)
        serve(pop.CHANGE_MESSAGE_INVISIBLETIME, self.pop.change_invisible_time)
        replication = ReplicationProcessor(parts)
        serve(ha.GET_BROKER_HA_STATUS, replication.ha_status)
        serve(ha.GET_BROKER_EPOCH_CACHE, replication.epoch_cache)
        serve(brokers.RESET_MASTER_FLUSH_OFFSET, replication.reset_master_flush_offset)
        for code in ha.CONTROLLER_ADMIN_CODES:
            self.server.register(code, no_controller)
        self.store_admin.serve(self.server)
        ColdDataFlowControl(parts).serve(self.server)
        LiteProcessor(parts).serve(self.server)
        for rpc, refuse in refusals.refused():
            serve(rpc, refuse)
        if self.auth is not None:
            AuthManagement(self.auth).serve(self.server)

    async def start(self) -> None:
        self.config.config_dir.mkdir(parents=True, exist_ok=True)
        self.topics.load()
        self.groups.load()
        if self.auth is not None:
            self.auth.load()
        self.groups.auto_create = self.config.auto_create_subscription_group
        self.consumer_admin.load()
        self.schedule.configure()
        await self.store.open()
        apply_store_settings(self.config, self.store)
        self.schedule.start()
        self.store_admin.start()
        cfg = self.config
        tls = cfg.tls.server_context() if cfg.tls else None
        permissive = cfg.tls is not None and cfg.tls.permissive
        cfg.listen_port = await self.server.start(cfg.listen_host, cfg.listen_port, tls, permissive)
        self.started = True
        await self.registrar.start()

    async def stop(self) -> None:
        if not self.started:
            return
        self.started = False
        await self.registrar.stop()
        await self.server.close()
        await self.pop.close()
        await self.schedule.close()  # before the store: it stores due messages
        await self.store_admin.close()
        await self.parts.peers.aclose()
        try:
            await self.store.close()
        except Exception:  # the tables below must still be written
            log.exception("%s: closing the message store failed", self.config.broker_name)
        await asyncio.gather(self.topics.close(), self.groups.close())
