"""Who is connected: producer and consumer groups (from HEART_BEAT), and the orderly-consumer locks.

A client joins a group with a heartbeat and leaves it by UNREGISTER_CLIENT, by closing its
connection, or by staying silent for two minutes (RocketMQ's channel expiry). Whenever a
consumer group's members or subscriptions change, every member gets NOTIFY_CONSUMER_IDS_CHANGED
(oneway) so it rebalances at once, as the Java broker does.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from mqadmin.model.clients import Connection, ConsumerConnection, ConsumerData
from mqadmin.model.queue import MessageQueue
from mqadmin.model.rpc.clients import NOTIFY_CONSUMER_IDS_CHANGED, ConsumerGroupHeader
from mqadmin.model.tags import SubscriptionData
from mqadmin.server.remoting import ClientChannel
from mqadmin.wire.frame import ONEWAY_FLAG

log = logging.getLogger(__name__)

CHANNEL_EXPIRY = 120.0
"""Seconds of silence after which a client is dropped (Java's channelExpiredTimeout)."""
LOCK_MAX_LIVE = 60.0
"""Seconds a queue lock lasts without renewal (Java's REBALANCE_LOCK_MAX_LIVE_TIME)."""


@dataclass(slots=True, eq=False)
class ClientConn:
    channel: ClientChannel
    client_id: str
    language: str
    version: int
    last_update: float = field(default_factory=time.monotonic)

    def connection(self) -> Connection:
        """This client as a ``Connection`` (ConsumerConnection / ProducerConnection bodies)."""
        return Connection(self.client_id, self.channel.remote_addr, self.language, self.version)


@dataclass(slots=True)
class ConsumerGroupInfo:
    group: str
    consume_type: str = "CONSUME_PASSIVELY"
    message_model: str = "CLUSTERING"
    consume_from_where: str = "CONSUME_FROM_LAST_OFFSET"
    subscriptions: dict[str, SubscriptionData] = field(default_factory=dict)
    conns: dict[ClientChannel, ClientConn] = field(default_factory=dict)

    def client_ids(self) -> list[str]:
        return [c.client_id for c in self.conns.values()]

    def update_subscriptions(self, subs: tuple[SubscriptionData, ...]) -> bool:
        """Java's ``updateSubscription``: True when a topic was added or removed."""
        changed = False
        seen = set()
        for sub in subs:
            seen.add(sub.topic)
            old = self.subscriptions.get(sub.topic)
            if old is None:
                changed = True
                self.subscriptions[sub.topic] = sub
            elif sub.sub_version > old.sub_version or sub.sub_string != old.sub_string:
                self.subscriptions[sub.topic] = sub
        for topic in [t for t in self.subscriptions if t not in seen]:
            del self.subscriptions[topic]
            changed = True
        return changed

    def connection_body(self) -> ConsumerConnection:
        """The ConsumerConnection body of GET_CONSUMER_CONNECTION_LIST."""
        return ConsumerConnection(
            [c.connection() for c in self.conns.values()],
            dict(sorted(self.subscriptions.items())),
            self.consume_type,
            self.message_model,
            self.consume_from_where,
        )


class ClientRegistry:
    def __init__(self, notify_enabled: Callable[[str], bool] = lambda group: True) -> None:
        self.consumers: dict[str, ConsumerGroupInfo] = {}
        self.producers: dict[str, dict[ClientChannel, ClientConn]] = {}
        self._notify_enabled = notify_enabled
        self._tasks: set[asyncio.Task[None]] = set()

    # --- consumers -------------------------------------------------------------------------

    def register_consumer(self, data: ConsumerData, conn: ClientConn) -> bool:
        """Add or refresh a consumer; True (and members notified) when the group changed."""
        info = self.consumers.get(data.group)
        if info is None:
            info = self.consumers[data.group] = ConsumerGroupInfo(data.group)
        info.consume_type = data.consume_type
        info.message_model = data.message_model
        info.consume_from_where = data.consume_from_where
        old = info.conns.get(conn.channel)
        new_member = old is None or old.client_id != conn.client_id
        info.conns[conn.channel] = conn
        changed = info.update_subscriptions(data.subscriptions) or new_member
        if changed:
            self._notify(info)
        return changed

    def unregister_consumer(self, group: str, channel: ClientChannel) -> None:
        info = self.consumers.get(group)
        if info is None or info.conns.pop(channel, None) is None:
            return
        self._after_removal(info)

    def groups_of(self, topic: str) -> set[str]:
        return {g for g, info in self.consumers.items() if topic in info.subscriptions}

    def find_subscription(self, group: str, topic: str) -> SubscriptionData | None:
        """What an online consumer of ``group`` subscribed to on ``topic``, if any."""
        info = self.consumers.get(group)
        return info.subscriptions.get(topic) if info is not None else None

    def _after_removal(self, info: ConsumerGroupInfo) -> None:
        if not info.conns:
            del self.consumers[info.group]
        else:
            self._notify(info)

    def _notify(self, info: ConsumerGroupInfo) -> None:
        if not self._notify_enabled(info.group):
            return
        loop = asyncio.get_running_loop()
        for ch in list(info.conns):
            cmd = NOTIFY_CONSUMER_IDS_CHANGED.request(ConsumerGroupHeader(consumer_group=info.group))
            cmd.flag, cmd.language = ONEWAY_FLAG, "JAVA"
            task = loop.create_task(ch.send(cmd))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    # --- producers -------------------------------------------------------------------------

    def register_producer(self, group: str, conn: ClientConn) -> None:
        self.producers.setdefault(group, {})[conn.channel] = conn

    def unregister_producer(self, group: str, channel: ClientChannel) -> None:
        members = self.producers.get(group)
        if members is not None and members.pop(channel, None) is not None and not members:
            del self.producers[group]

    # --- connections going away ------------------------------------------------------------

    def channel_closed(self, channel: ClientChannel) -> None:
        for group in list(self.producers):
            self.unregister_producer(group, channel)
        for group in list(self.consumers):
            self.unregister_consumer(group, channel)

    def expire(self, now: float | None = None, timeout: float = CHANNEL_EXPIRY) -> list[ClientChannel]:
        """Drop (and close) clients silent for ``timeout`` seconds."""
        now = time.monotonic() if now is None else now
        stale: set[ClientChannel] = set()
        for members in [*self.producers.values(), *(i.conns for i in self.consumers.values())]:
            stale.update(ch for ch, c in members.items() if now - c.last_update > timeout)
        for ch in stale:
            log.info("client %s silent for %.0fs: dropped", ch.remote_addr, timeout)
            self.channel_closed(ch)
            ch.close()
        return list(stale)


class RebalanceLocks:
    """Queue locks of orderly consumers (LOCK_BATCH_MQ / UNLOCK_BATCH_MQ)."""

    def __init__(self, max_live: float = LOCK_MAX_LIVE) -> None:
        self.max_live = max_live
        self._table: dict[str, dict[MessageQueue, tuple[str, float]]] = {}

    def try_lock(
        self, group: str, mqs: list[MessageQueue], client_id: str, now: float | None = None
    ) -> list[MessageQueue]:
        """Lock what is free, expired or already this client's; return what this client holds."""
        now = time.monotonic() if now is None else now
        locks = self._table.setdefault(group, {})
        granted = []
        for mq in mqs:
            holder = locks.get(mq)
            if holder is None or holder[0] == client_id or now - holder[1] > self.max_live:
                locks[mq] = (client_id, now)
                granted.append(mq)
        return granted

    def unlock(self, group: str, mqs: list[MessageQueue], client_id: str) -> None:
        locks = self._table.get(group, {})
        for mq in mqs:
            if locks.get(mq, ("",))[0] == client_id:
                del locks[mq]
