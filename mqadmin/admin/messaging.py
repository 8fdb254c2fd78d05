"""Sending and reading messages, as the Java producer and pull consumer do it (sendMessage, consumeMessage).

Routes come from the name server through ``AdminClient``. The publish queue list is built like
Java's ``topicRouteData2TopicPublishInfo``: from ``orderTopicConf`` (``brokerA:4;brokerB:4``) when
the route has one, else from the writable queues of the brokers, sorted by broker name. A topic
the name server does not know is sent through the route of the default topic TBW102 (at most 4
queues, Java's ``defaultTopicQueueNums``), which lets a broker with autoCreateTopicEnable create it
(docs/protocol.md, "Clients" and "Broker").
"""

from __future__ import annotations

import itertools
import random
import time
from dataclasses import dataclass

from mqadmin.admin.client import AdminClient
from mqadmin.admin.errors import AdminError, ResponseError
from mqadmin.model.order import parse_order_conf
from mqadmin.model.route import TopicRouteData
from mqadmin.model.rpc.messages import PULL_MESSAGE, SEND_MESSAGE_V2, PullHeader, SendHeaderV2, SendResultHeader
from mqadmin.model.tags import hash_index
from mqadmin.model.topic import DEFAULT_TOPIC, PERM_READ, PERM_WRITE
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.message import (
    PROPERTY_KEYS,
    PROPERTY_TAGS,
    PROPERTY_UNIQ_KEY,
    PROPERTY_WAIT,
    MessageExt,
    decode_messages,
    encode_properties,
    new_uniq_key,
)

DEFAULT_PRODUCER_GROUP = "mqadmin_producer"
DEFAULT_CONSUMER_GROUP = "TOOLS_CONSUMER"
"""The group Java's tools consume with; every broker has it, so reading creates no new group."""
DEFAULT_TOPIC_QUEUE_NUMS = 4
PULL_BATCH = 32
PULL_FLAG_SUBSCRIPTION = 0x4

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


def subscribe_queues(route: TopicRouteData) -> list[Queue]:
    return [
        Queue(qd.broker_name, i)
        for qd in sorted(route.queue_datas, key=lambda q: q.broker_name)
        if qd.perm & PERM_READ
        for i in range(qd.read_queue_nums)
    ]


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
    route, via_default = await send_route(client, topic)
    queues = publish_queues(route, DEFAULT_TOPIC_QUEUE_NUMS if via_default else None)
    queue = choose_queue(queues, broker=broker, queue_id=queue_id, order_key=order_key)
    addr = next((b.master_addr for b in route.broker_datas if b.broker_name == queue.broker_name), None)
    if addr is None:
        raise NoSuchQueue(f"broker {queue.broker_name!r} has no master in the route of {topic!r}")
    uniq = new_uniq_key()
    props = {PROPERTY_UNIQ_KEY: uniq, PROPERTY_WAIT: "true"}
    if keys:
        props[PROPERTY_KEYS] = keys
    if tags:
        props[PROPERTY_TAGS] = tags
    header = SendHeaderV2(
        producer_group=producer_group, topic=topic, default_topic=DEFAULT_TOPIC,
        default_topic_queue_nums=DEFAULT_TOPIC_QUEUE_NUMS, queue_id=queue.queue_id, sys_flag=0,
        born_timestamp=int(time.time() * 1000), flag=0, properties=encode_properties(props), reconsume_times=0,
        unit_mode=False, batch=False,
    )  # fmt: skip
    reply = await client.request(addr, SEND_MESSAGE_V2, header, body)
    result: SendResultHeader = reply.header
    return SendResult(
        topic=topic,
        broker_name=queue.broker_name,
        broker_addr=addr,
        queue_id=result.queue_id if result.queue_id >= 0 else queue.queue_id,
        queue_offset=result.queue_offset,
        msg_id=result.msg_id or "",
        uniq_key=uniq,
        status=SEND_STATUS[reply.code],
        auto_created_route=via_default,
    )


@dataclass(slots=True)
class ReceivedMessage:
    broker_name: str
    message: MessageExt

    def to_json(self) -> dict[str, object]:
        m = self.message
        return {
            "topic": m.topic,
            "broker": self.broker_name,
            "queueId": m.queue_id,
            "queueOffset": m.queue_offset,
            "msgId": m.uniq_key or m.msg_id,
            "offsetMsgId": m.msg_id,
            "keys": m.keys,
            "tags": m.tags,
            "bornTimestamp": m.born_timestamp,
            "storeTimestamp": m.store_timestamp,
            "reconsumeTimes": m.reconsume_times,
        }


async def consume_messages(
    client: AdminClient,
    topic: str,
    *,
    group: str = DEFAULT_CONSUMER_GROUP,
    offset: int = 0,
    count: int = 32,
    broker: str | None = None,
    queue_id: int | None = None,
) -> list[ReceivedMessage]:
    """Read up to ``count`` messages from every readable queue (or the pinned one) starting at
    ``offset`` in each queue, queue by queue, without committing any consumer offset."""
    route = await client.topic_route(topic)
    addrs = {b.broker_name: b.master_addr for b in route.broker_datas if b.master_addr}
    queues = [
        q
        for q in subscribe_queues(route)
        if (broker is None or q.broker_name == broker) and (queue_id is None or q.queue_id == queue_id)
    ]
    if not queues:
        raise NoSuchQueue(f"the route of {topic!r} has no readable queue matching the broker/queue given")
    out: list[ReceivedMessage] = []
    for q in queues:
        addr = addrs.get(q.broker_name)
        if addr is None:
            continue
        next_offset = offset
        while len(out) < count:
            batch, next_offset, more = await _pull(
                client, addr, topic, group, q.queue_id, next_offset, count - len(out)
            )
            out += [ReceivedMessage(q.broker_name, m) for m in batch]
            if not more:
                break
        if len(out) >= count:
            break
    return out[:count]


async def _pull(
    client: AdminClient, addr: str, topic: str, group: str, queue_id: int, offset: int, wanted: int
) -> tuple[list[MessageExt], int, bool]:
    """One PULL_MESSAGE without suspending: (messages, next offset, whether to keep pulling)."""
    header = PullHeader(
        consumer_group=group, topic=topic, queue_id=queue_id, queue_offset=offset,
        max_msg_nums=min(PULL_BATCH, wanted), sys_flag=PULL_FLAG_SUBSCRIPTION, commit_offset=0,
        suspend_timeout_millis=0, subscription="*", sub_version=0, expression_type="TAG",
    )  # fmt: skip
    reply = await client.request(addr, PULL_MESSAGE, header)
    next_offset = reply.header.next_begin_offset if reply.header is not None else offset
    if reply.code == ResponseCode.SUCCESS:
        return decode_messages(reply.body or b""), next_offset, True
    if reply.code == ResponseCode.PULL_RETRY_IMMEDIATELY:
        return [], next_offset, next_offset > offset
    return [], next_offset, False
