"""Finding one message, as Java's tools do: by message id (an offset id is read where it points, a unique
key is looked up over the topic's brokers, as ``DefaultMQAdminExtImpl.queryMessage`` tries one then the
other), by key, by queue offset; and which groups have consumed it (``messageTrackDetail``'s question,
answered from committed offsets); and a message's trace records."""

from __future__ import annotations

import time
from dataclasses import dataclass

from mqadmin.admin.client import AdminClient
from mqadmin.admin.errors import ResponseError
from mqadmin.admin.queries import END_OF_TIME, FoundMessage, NotFound, broker_addrs
from mqadmin.admin.reading import DEFAULT_CONSUMER_GROUP
from mqadmin.model.trace import TraceView, decode_trace_records
from mqadmin.wire.message import MessageDecodeError, parse_offset_msg_id

UNIQUE_KEY_LOOKBACK_MS = 3 * 24 * 3600 * 1000
"""Java's queryMsgById looks a unique key up among the messages of the last three days."""


async def broker_names(client: AdminClient) -> dict[str, str]:
    """Every broker address the name server knows -> its broker name."""
    info = await client.cluster_info()
    return {addr: bd.broker_name for bd in info.brokers.values() for addr in bd.broker_addrs.values()}


async def find_by_id(
    client: AdminClient, msg_id: str, topic: str | None, *, cluster: str | None = None
) -> list[FoundMessage]:
    """An offset message id whose store host is a broker of the cluster is read there (VIEW_MESSAGE_BY_ID);
    any other id is taken as a unique key and looked up in ``topic`` (the last three days, as Java does).
    Raises NotFound when there is nothing."""
    names = await broker_names(client)
    try:
        (ip, port), offset = parse_offset_msg_id(msg_id)
    except MessageDecodeError:
        ip, port, offset = "", 0, -1
    addr = f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"
    if addr in names:
        try:
            return [FoundMessage(names[addr], addr, await client.view_message(addr, offset, topic))]
        except (ResponseError, NotFound):
            if topic is None:
                raise NotFound(f"no message at commit-log offset {offset} of {names[addr]} ({addr})") from None
    if topic is None:
        raise NotFound(
            f"{msg_id!r} is not an offset message id of a broker of this cluster; give the topic (-t) to look it up "
            "as a unique key"
        )
    since = int(time.time() * 1000) - UNIQUE_KEY_LOOKBACK_MS
    found = await find_by_unique_key(client, topic, msg_id, begin=since, cluster=cluster)
    return found[:1]


async def find_by_unique_key(
    client: AdminClient, topic: str, key: str, *, begin: int = 0, cluster: str | None = None
) -> list[FoundMessage]:
    """Every stored copy of the message with UNIQ_KEY ``key`` (a message sent again keeps its id), oldest
    first. Raises NotFound when there is none."""
    route = await client.topic_route(topic)
    found = await client.query_messages(route, topic, key, unique=True, begin=begin, end=END_OF_TIME, cluster=cluster)
    if not found:
        raise NotFound(f"no message of topic {topic!r} has the unique key {key!r}")
    return sorted(found, key=lambda f: f.message.store_timestamp)


async def find_by_key(
    client: AdminClient, topic: str, key: str, *, max_num: int, begin: int, end: int, cluster: str | None = None
) -> list[FoundMessage]:
    """Messages of ``topic`` whose KEYS hold ``key`` and stored in ``[begin, end]``, newest first per broker."""
    route = await client.topic_route(topic)
    return await client.query_messages(route, topic, key, max_num=max_num, begin=begin, end=end, cluster=cluster)


async def find_at_offset(client: AdminClient, topic: str, broker: str, queue_id: int, offset: int) -> FoundMessage:
    """The message at a queue offset (one pull of one message, as Java's queryMsgByOffset)."""
    addrs = broker_addrs(await client.topic_route(topic))
    addr = addrs.get(broker)
    if addr is None:
        raise NotFound(f"broker {broker!r} is not in the route of {topic!r} (brokers: {', '.join(addrs) or 'none'})")
    batch = await client.pull(addr, topic, queue_id, offset, group=DEFAULT_CONSUMER_GROUP, max_nums=1)
    hit = next((m for m in batch.messages if m.queue_offset == offset), None)
    if hit is None:
        raise NotFound(
            f"no message at offset {offset} of {topic} queue {queue_id} on {broker} "
            f"(the queue holds offsets {batch.min_offset} to {batch.max_offset - 1})"
        )
    return FoundMessage(broker, addr, hit)


@dataclass(frozen=True, slots=True)
class Consumption:
    """Whether a group has consumed a message: its committed offset in the message's queue is past it."""

    group: str
    consumer_offset: int | None
    consumed: bool


async def consumptions(client: AdminClient, found: FoundMessage) -> list[Consumption]:
    """For each group that consumes the message's topic on its broker, whether it consumed the message. A
    broker that cannot say (an error answer) leaves the list empty or the group's offset unknown: the message
    itself was found, which is what the command is for."""
    m = found.message
    try:
        groups = await client.topic_consumed_by(found.broker_addr, m.topic)
    except ResponseError:
        return []
    out = []
    for g in groups:
        try:
            off = await client.consumer_offset(found.broker_addr, g, m.topic, m.queue_id)
        except ResponseError:
            off = None
        out.append(Consumption(g, off, off is not None and off > m.queue_offset))
    return out


async def find_traces(
    client: AdminClient, msg_id: str, trace_topic: str, *, max_num: int, begin: int, end: int
) -> list[TraceView]:
    """The trace records about ``msg_id`` in the trace topic (found by key: the traced message ids are the
    trace messages' keys): the send first, then the rest in time order."""
    found = await find_by_key(client, trace_topic, msg_id, max_num=max_num, begin=begin, end=end)
    views = {
        view
        for f in found
        for view in decode_trace_records(f.message.body.decode("utf-8", "replace"), msg_id, f.message.born_host[0])
    }
    return sorted(views, key=lambda v: (v.type != "Pub", v.timestamp, v.group or "", v.type))
