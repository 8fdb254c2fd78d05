"""The Broker: its remoting server, config managers, registration and life cycle."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

from mqadmin.server.broker.config import BrokerConfig
from mqadmin.server.broker.data_version import DataVersion
from mqadmin.server.broker.groups import SubscriptionGroupManager
from mqadmin.server.broker.registration import NamesrvRegistrar
from mqadmin.server.broker.stats import BrokerStats
from mqadmin.server.broker.topics import TopicConfigManager
from mqadmin.server.paths import child
from mqadmin.server.remoting import RemotingServer
from mqadmin.server.validation import check_request

log = logging.getLogger(__name__)

MESSAGING_MODULE = "mqadmin.server.broker.messaging"


class Broker:
    """One broker. ``start()`` loads the config files, installs the message path when
    ``mqadmin.server.broker.messaging`` exists, listens, and registers with the name servers."""

    def __init__(self, config: BrokerConfig) -> None:
        from mqadmin.server.broker import admin, refusals, replication, store_admin

        self.config = config
        self.server = RemotingServer(f"broker {config.broker_name}", check_request, config.limits)
        self.stats = BrokerStats()
        self.registrar = NamesrvRegistrar(self)
        self.topics = TopicConfigManager(config, self.data_path("topics.json"), self.registrar.publish)
        self.groups = SubscriptionGroupManager(
            self.data_path("subscriptionGroup.json"), reset_unreadable=config.reset_unreadable_metadata
        )
        self.store: Any = None
        """Set by ``messaging.install(broker)``. Optional hooks the broker uses when present:
        ``runtime_info() -> dict[str, str]`` (merged into GET_BROKER_RUNTIME_INFO) and
        ``async delete_topic(topic)`` (after DELETE_TOPIC_IN_BROKER)."""
        self.consumer_groups_of: list[Callable[[str], Iterable[str]]] = []
        """Providers of the groups consuming a topic (QUERY_TOPIC_CONSUME_BY_WHO), added by the message path."""
        self.boot_timestamp = int(time.time() * 1000)
        self.config_version = DataVersion()
        """Bumped by UPDATE_BROKER_CONFIG; GET_BROKER_CONFIG reports it."""
        self._stop_hooks: list[Callable[[], Awaitable[None] | None]] = []
        self.started = False
        admin.install(self)
        refusals.install(self)
        replication.install(self)
        store_admin.install(self)

    def data_path(self, name: str) -> Path:
        """Where a config file lives: ``<data_dir>/config/<name>`` (checked to stay there)."""
        return child(self.config.config_dir, name)

    def on_stop(self, hook: Callable[[], Awaitable[None] | None]) -> None:
        """Run ``hook`` (sync or async) during ``stop()``, after the server stopped listening."""
        self._stop_hooks.append(hook)

    async def start(self) -> None:
        self.config.config_dir.mkdir(parents=True, exist_ok=True)
        self.topics.load()
        self.groups.load()
        self.groups.auto_create = self.config.auto_create_subscription_group
        await self._install_messaging()
        self.config.listen_port = await self.server.start(self.config.listen_host, self.config.listen_port)
        self.started = True
        await self.registrar.start()

    async def _install_messaging(self) -> None:
        try:
            module = importlib.import_module(MESSAGING_MODULE)
        except ModuleNotFoundError as e:
            if e.name != MESSAGING_MODULE:
                raise
            log.info("%s: no message path installed (%s missing)", self.config.broker_name, MESSAGING_MODULE)
            return
        result = module.install(self)
        if inspect.isawaitable(result):
            await result

    async def stop(self) -> None:
        if not self.started:
            return
        self.started = False
        await self.registrar.stop()
        await self.server.close()
        for hook in reversed(self._stop_hooks):
            try:
                result = hook()
                if inspect.isawaitable(result):
                    await result
            except Exception:
                log.exception("%s: stop hook failed", self.config.broker_name)
        await asyncio.gather(self.topics.close(), self.groups.close())
