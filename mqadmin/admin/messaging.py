"""Sending messages as the Java producer does (sendMessage, checkMsgSendRT, the dead-letter resend).

Routes come from the name server through ``AdminClient``. The publish queue list is built like
Java's ``topicRouteData2TopicPublishInfo``: from ``orderTopicConf`` (``brokerA:4;brokerB:4``) when
the route has one, else from the writable queues of the brokers, sorted by broker name. A topic
the name server does not know is sent through the route of the default topic TBW102 (at most 4
queues, Java's ``defaultTopicQueueNums``), which lets a broker with autoCreateTopicEnable create it
(docs/protocol.md, "Clients" and "Broker").
"""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from dataclasses import dataclass

from mqadmin.admin.client import AdminClient
from mqadmin.admin.errors import AdminError, ResponseError
from mqadmin.model.order import parse_order_conf
from mqadmin.model.route import TopicRouteData
from mqadmin.model.rpc import Reply
from mqadmin.model.rpc.messages import SEND_MESSAGE_V2, SendHeader, SendHeaderV2, SendResultHeader
from mqadmin.model.tags import hash_index
from mqadmin.model.topic import DEFAULT_TOPIC, PERM_WRITE
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.message import (
    PROPERTY_KEYS,
    PROPERTY_TAGS,
    PROPERTY_UNIQ_KEY,
    PROPERTY_WAIT,
    encode_properties,
    new_uniq_key,
)

DEFAULT_PRODUCER_GROUP = "mqadmin_producer"
DEFAULT_TOPIC_QUEUE_NUMS = 4
BUSY_RETRIES = 2
"""A send a broker answers SYSTEM_BUSY (its flow control: the request waited too long in the send queue, or the
page cache was busy, and nothing was stored) is sent again up to this many times, as Java's producer retries it
(``retryTimesWhenSendFailed``), after ``BUSY_PAUSE`` seconds times the attempt."""
BUSY_PAUSE = 0.1

SEND_STATUS = {
    ResponseCode.SUCCESS: "SEND_OK",
    ResponseCode.FLUSH_DISK_TIMEOUT: "FLUSH_DISK_TIMEOUT",
    ResponseCode.FLUSH_SLAVE_TIMEOUT: "FLUSH_SLAVE_TIMEOUT",
    ResponseCode.SLAVE_NOT_AVAILABLE: "SLAVE_NOT_AVAILABLE",
}

_round_robin = itertools.count(random.randrange(1 << 16))


class NoRoute(AdminError):
    """Neither the topic nor the default topic has a route (auto-creation is off everywhere)."""


class NoSuchQueue(AdminError):
    pass


@dataclass(frozen=True, slots=True)
class Queue:
    broker_name: str
    queue_id: int


@dataclass(slots=True)
class SendResult:
    topic: str
    broker_name: str
    broker_addr: str
    queue_id: int
    queue_offset: int
    msg_id: str
    """The offset message id the broker assigned (store host + commit-log offset)."""
    uniq_key: str
    """The producer's unique id (UNIQ_KEY), which Java's SendResult calls msgId."""
    status: str
    auto_created_route: bool = False
    """True when the topic had no route and was sent through TBW102's."""

    def to_json(self) -> dict[str, object]:
        return {
            "topic": self.topic,
            "broker": self.broker_name,
            "brokerAddr": self.broker_addr,
            "queueId": self.queue_id,
            "queueOffset": self.queue_offset,
            "msgId": self.uniq_key,
            "offsetMsgId": self.msg_id,
            "status": self.status,
        }


def publish_queues(route: TopicRouteData, max_queues: int | None = None) -> list[Queue]:
    """The queues a producer chooses from, in Java's order."""
    if route.order_topic_conf:
        return [Queue(name, i) for name, n in parse_order_conf(route.order_topic_conf).items() for i in range(n)]
    masters = {b.broker_name for b in route.broker_datas if b.master_addr}
    out = []
    for qd in sorted(route.queue_datas, key=lambda q: q.broker_name):
        if qd.perm & PERM_WRITE and qd.broker_name in masters:
            n = qd.write_queue_nums if max_queues is None else min(max_queues, qd.read_queue_nums)
            out += [Queue(qd.broker_name, i) for i in range(n)]
    return out


def choose_queue(
    queues: list[Queue], *, broker: str | None = None, queue_id: int | None = None, order_key: str | None = None
) -> Queue:
    """``-b``/``-i`` pin the queue (a pinned broker and queue id are used as given, as Java's
    sendMessage does); an order key picks ``abs(key.hashCode() % n)`` (SelectMessageQueueByHash);
    otherwise round robin."""
    if broker is not None and queue_id is not None:
        return Queue(broker, queue_id)
    candidates = [q for q in queues if (broker is None or q.broker_name == broker)]
    candidates = [q for q in candidates if queue_id is None or q.queue_id == queue_id]
    if not candidates:
        known = ", ".join(sorted({q.broker_name for q in queues})) or "none"
        what = f"broker {broker!r}" if broker is not None else f"queue {queue_id}"
        raise NoSuchQueue(f"the route has no writable queue on {what} (brokers: {known})")
    if order_key is not None:
        return candidates[hash_index(order_key, len(candidates))]
    return candidates[next(_round_robin) % len(candidates)]


async def send_route(client: AdminClient, topic: str) -> tuple[TopicRouteData, bool]:
    """The topic's route, else TBW102's (second value True): Java's ``tryToFindTopicPublishInfo``."""
    try:
        return await client.topic_route(topic), False
    except ResponseError as e:
        if e.code != ResponseCode.TOPIC_NOT_EXIST:
            raise
    try:
        return await client.topic_route(DEFAULT_TOPIC), True
    except ResponseError as e:
        if e.code != ResponseCode.TOPIC_NOT_EXIST:
            raise
    raise NoRoute(
        f"topic {topic!r} does not exist and no broker offers {DEFAULT_TOPIC} for creating it on the first send"
    )


@dataclass(slots=True)
class Publisher:
    """Where a topic's messages can go: its route (or TBW102's) and the publish queue list."""

    topic: str
    route: TopicRouteData
    via_default: bool
    queues: list[Queue]

    def addr_of(self, queue: Queue) -> str:
        addr = next((b.master_addr for b in self.route.broker_datas if b.broker_name == queue.broker_name), None)
        if addr is None:
            raise NoSuchQueue(f"broker {queue.broker_name!r} has no master in the route of {self.topic!r}")
        return addr


async def publisher(client: AdminClient, topic: str) -> Publisher:
    route, via_default = await send_route(client, topic)
    return Publisher(
        topic, route, via_default, publish_queues(route, DEFAULT_TOPIC_QUEUE_NUMS if via_default else None)
    )


async def send_message(
    client: AdminClient,
    topic: str,
    body: bytes,
    *,
    keys: str | None = None,
    tags: str | None = None,
    broker: str | None = None,
    queue_id: int | None = None,
    order_key: str | None = None,
    producer_group: str = DEFAULT_PRODUCER_GROUP,
) -> SendResult:
    """Send one message (SEND_MESSAGE_V2, code 310) and return where it was stored."""
    pub = await publisher(client, topic)
    queue = choose_queue(pub.queues, broker=broker, queue_id=queue_id, order_key=order_key)
    props = {PROPERTY_KEYS: keys or "", PROPERTY_TAGS: tags or ""}
    return await send_to(client, pub, queue, body, {k: v for k, v in props.items() if v}, producer_group)


async def send_to(
    client: AdminClient,
    pub: Publisher,
    queue: Queue,
    body: bytes,
    properties: dict[str, str],
    producer_group: str = DEFAULT_PRODUCER_GROUP,
    *,
    flag: int = 0,
) -> SendResult:
    """Send one message with these properties to one queue. A UNIQ_KEY among them is kept (a message sent
    again keeps its id, as Java's producer keeps it); without one a new id is made."""
    addr = pub.addr_of(queue)
    props = dict(properties)
    uniq = props.setdefault(PROPERTY_UNIQ_KEY, new_uniq_key())
    props[PROPERTY_WAIT] = "true"
    header = SendHeaderV2(
        producer_group=producer_group, topic=pub.topic, default_topic=DEFAULT_TOPIC,
        default_topic_queue_nums=DEFAULT_TOPIC_QUEUE_NUMS, queue_id=queue.queue_id, sys_flag=0,
        born_timestamp=int(time.time() * 1000), flag=flag, properties=encode_properties(props), reconsume_times=0,
        unit_mode=False, batch=False,
    )  # fmt: skip
    reply = await _send_through_busy(client, addr, header, body)
    result: SendResultHeader = reply.header
    return SendResult(
        topic=pub.topic,
        broker_name=queue.broker_name,
        broker_addr=addr,
        queue_id=result.queue_id if result.queue_id >= 0 else queue.queue_id,
        queue_offset=result.queue_offset,
        msg_id=result.msg_id or "",
        uniq_key=uniq,
        status=SEND_STATUS[reply.code],
        auto_created_route=pub.via_default,
    )


async def _send_through_busy(
    client: AdminClient, addr: str, header: SendHeader, body: bytes
) -> Reply[SendResultHeader, None]:
    """SEND_MESSAGE_V2, sent again after a SYSTEM_BUSY answer (``BUSY_RETRIES``)."""
    for attempt in range(1, BUSY_RETRIES + 1):
        try:
            return await client.request(addr, SEND_MESSAGE_V2, header, body)
        except ResponseError as e:
            if e.code != ResponseCode.SYSTEM_BUSY:
                raise
        await asyncio.sleep(BUSY_PAUSE * attempt)
    return await client.request(addr, SEND_MESSAGE_V2, header, body)
