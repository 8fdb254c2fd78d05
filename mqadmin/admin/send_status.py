"""sendMsgStatus: send messages to one broker's own topic one after another and time each send, as Java
mqadmin's sendMsgStatus does (a first small message opens the connection and is not reported)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from mqadmin.admin.client import AdminClient
from mqadmin.admin.errors import reason_of
from mqadmin.admin.messaging import Publisher, SendResult, choose_queue, publish_queues, send_to

PRODUCER_GROUP = "PID_SMSC"
"""Java's sendMsgStatus producer group."""
WARM_UP_SIZE = 16


@dataclass(frozen=True, slots=True)
class TimedSend:
    seq: int
    rt_ms: float
    result: SendResult | None
    error: str | None = None


async def send_status(client: AdminClient, broker: str, count: int, size: int) -> list[TimedSend]:
    """A warm-up send, then ``count`` sends of ``size`` bytes to the topic named after ``broker``, each timed;
    a failed send is reported with its reason and the next one is tried. The route is read once, as a
    producer caches it."""
    route = await client.topic_route(broker)
    pub = Publisher(broker, route, False, publish_queues(route))

    async def send(n: int) -> SendResult:
        queue = choose_queue(pub.queues, broker=broker)
        return await send_to(client, pub, queue, b"a" * n, {}, PRODUCER_GROUP)

    await send(WARM_UP_SIZE)
    sends: list[TimedSend] = []
    for seq in range(1, count + 1):
        start = time.perf_counter()
        try:
            result = await send(size)
        except Exception as e:
            sends.append(TimedSend(seq, _ms_since(start), None, reason_of(e)))
            continue
        sends.append(TimedSend(seq, _ms_since(start), result))
    return sends


def _ms_since(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 3)
