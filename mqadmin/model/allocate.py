"""Which message queues a consumer subscribes to, and how RocketMQ's default strategy
(AllocateMessageQueueAveragely) shares them among the clients of a group."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mqadmin.model.route import TopicRouteData
from mqadmin.model.static_topic import mock_broker_name
from mqadmin.model.topic import PERM_READ


@dataclass(frozen=True, slots=True, order=True)
class MessageQueue:
    """Ordered as Java's MessageQueue.compareTo: topic, broker name, queue id."""

    topic: str
    broker_name: str
    queue_id: int

    def to_json(self) -> dict[str, Any]:
        return {"brokerName": self.broker_name, "queueId": self.queue_id, "topic": self.topic}


def subscribe_queues(topic: str, route: TopicRouteData) -> list[MessageQueue]:
    """The queues a consumer of ``topic`` reads (Java topicRouteData2TopicSubscribeInfo), sorted: each
    readable broker's read queues, or for a static topic its logic queues under the mock broker name."""
    if route.queue_mappings:
        totals: dict[str, int] = {}
        for info in route.queue_mappings.values():
            totals[info.scope] = max(totals.get(info.scope, 0), info.total_queues)
        return sorted(MessageQueue(topic, mock_broker_name(s), i) for s, n in totals.items() for i in range(n))
    return sorted(
        MessageQueue(topic, q.broker_name, i)
        for q in route.queue_datas
        if q.perm & PERM_READ
        for i in range(q.read_queue_nums)
    )


def allocate_averagely(queues: Sequence[MessageQueue], clients: Sequence[str], client: str) -> list[MessageQueue]:
    """The contiguous share of ``queues`` that AllocateMessageQueueAveragely gives ``client``: the first
    ``len(queues) % len(clients)`` clients get one queue more."""
    if client not in clients or not queues:
        return []
    index, n = clients.index(client), len(clients)
    mod = len(queues) % n
    bigger = mod > 0 and index < mod
    size = 1 if len(queues) <= n else len(queues) // n + (1 if bigger else 0)
    start = index * size if bigger else index * size + mod
    return list(queues[start : start + min(size, len(queues) - start)])


def allocate_all(queues: Sequence[MessageQueue], clients: Sequence[str]) -> dict[str, list[MessageQueue]]:
    """Each client's queues, after sorting queues and clients as a consumer's rebalance does."""
    ordered_queues, ordered_clients = sorted(queues), sorted(clients)
    return {c: allocate_averagely(ordered_queues, ordered_clients, c) for c in ordered_clients}
