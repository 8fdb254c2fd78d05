"""clusterRT: the round-trip time of sending messages to each broker, as Java mqadmin measures it.

Every broker has a topic named after itself (created at start while ``brokerTopicEnable``, the default), so
sending to that topic reaches exactly that broker. The route is read once per broker and round, as a
producer caches it, so the times are those of the sends alone.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from mqadmin.admin.client import AdminClient
from mqadmin.admin.errors import reason_of
from mqadmin.admin.messaging import Publisher, choose_queue, publish_queues, send_to
from mqadmin.model.route import ClusterInfo


@dataclass(frozen=True, slots=True)
class SendRt:
    cluster: str
    broker: str
    rt_ms: float | None
    """Mean time of the successful sends after the first (which also opens the connection); None when none."""
    success: int
    failed: int
    reason: str | None = None
    """The last failure, when a send failed."""
    error: Exception | None = None
    """That failure itself."""


async def send_rt(client: AdminClient, cluster: str, broker: str, amount: int, size: int) -> SendRt:
    """Send ``amount`` messages of ``size`` bytes (``a`` repeated, as Java does) to the broker's own topic,
    one after the other."""
    body = b"a" * size
    try:
        route = await client.topic_route(broker)
    except Exception as e:
        return SendRt(cluster, broker, None, 0, amount, f"no route for the topic {broker!r}: {reason_of(e)}", e)
    pub = Publisher(broker, route, False, publish_queues(route))
    times: list[float] = []
    failed, reason, error = 0, None, None
    for i in range(amount):
        start = time.perf_counter()
        try:
            await send_to(client, pub, choose_queue(pub.queues, broker=broker), body, {})
        except Exception as e:
            failed, reason, error = failed + 1, reason_of(e), e
            continue
        if i > 0:
            times.append(time.perf_counter() - start)
    rt = round(sum(times) / len(times) * 1000, 3) if times else None
    return SendRt(cluster, broker, rt, amount - failed, failed, reason, error)


async def cluster_rt(
    client: AdminClient, info: ClusterInfo, clusters: list[str], amount: int, size: int
) -> list[SendRt]:
    """One round: every broker of ``clusters`` in turn (by cluster, then broker name)."""
    return [
        await send_rt(client, cluster, broker, amount, size)
        for cluster in clusters
        for broker in sorted(info.clusters.get(cluster, []))
    ]
