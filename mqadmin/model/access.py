"""What a request touches, for ACL 2.0 authorization: the resources it names and the actions it performs on
them, as Apache 5.5.0's ``DefaultAuthorizationContextBuilder`` derives them.

Apache handles a few request codes in its own ``switch`` (sends, pulls, offsets, heartbeats, queue locks); for
those the declaration's rule (``Rpc(..., access=...)``: ``Send``, ``Consume``, ``Heartbeat``, ``Locking``, ``On``)
says the same in our terms. Every other code is authorized by the ``@RocketMQAction`` / ``@RocketMQResource``
annotations of its request header, which ``apache_access.json`` holds, generated from Apache's jars by
``python -m tests.realrmq.acl_table``; a declaration's rule on such a code adds to Apache's (each says why).
``UNCHECKED`` lists the served codes Apache checks nothing for (no annotated header).

A rule gives ``Need`` items: a resource key (``Topic:Orders``, ``Group:G``, or ``Cluster`` for the broker's
cluster, which the server names) and the actions of which one must be allowed. A request whose rules give
nothing needs no permission beyond authentication, as in Apache.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any, NamedTuple

RETRY_PREFIX = "%RETRY%"
CLUSTER = "Cluster"
"""The resource of cluster-wide requests; the server replaces it by ``Cluster:<its cluster name>``."""


# Rules are NamedTuples, or plain classes when they hold nothing: frozen dataclasses would cost every command
# that loads a request declaration ~3 ms of start-up (bench/bench_cli.py).
class Need(NamedTuple):
    resource: str
    actions: tuple[str, ...]


def _named(kind: str, name: str, actions: tuple[str, ...]) -> Need:
    """A topic or group; a retry topic stands for its group, as in Apache."""
    if kind == "Topic" and name.startswith(RETRY_PREFIX):
        return Need(f"Group:{name.removeprefix(RETRY_PREFIX)}", actions)
    return Need(f"{kind}:{name}", actions)


class On(NamedTuple):
    """The header fields ``topic`` / ``group`` (attribute names) name the resources; ``actions`` on each; with
    neither present, nothing is needed. Names are taken as they are: Apache's switch maps no retry topic to its
    group for these requests (QUERY_MESSAGE of ``%RETRY%G`` needs ``Topic:%RETRY%G``)."""

    actions: tuple[str, ...]
    topic: str | None = None
    group: str | None = None

    def needs(self, header: Any, body: Any) -> list[Need]:
        out = []
        for kind, attr in (("Topic", self.topic), ("Group", self.group)):
            value = getattr(header, attr, None) if attr else None
            if value:
                out.append(Need(f"{kind}:{value}", self.actions))
        return out


class Send:
    """A send: Pub on the topic; a send to a retry topic ``%RETRY%G`` is Sub on group G (5.5.0 names the group
    from the topic, not from the producer-group field)."""

    __slots__ = ()

    def needs(self, header: Any, body: Any) -> list[Need]:
        return [_named("Topic", header.topic, ("Sub",) if _retry(header.topic) else ("Pub",))]


class Consume(NamedTuple):
    """Pulls and offsets: ``actions`` on the topic (unless it is a retry topic) and on the consumer group."""

    actions: tuple[str, ...]

    def needs(self, header: Any, body: Any) -> list[Need]:
        out = [] if header.topic.startswith(RETRY_PREFIX) else [Need(f"Topic:{header.topic}", self.actions)]
        return [*out, Need(f"Group:{header.consumer_group}", self.actions)]


class TopicsInBody(NamedTuple):
    """``actions`` on every topic of a topic-config list body (UPDATE_AND_CREATE_TOPIC_LIST; Apache names no
    resource for it, so any user could create topics through it: the embedded broker checks each)."""

    actions: tuple[str, ...]

    def needs(self, header: Any, body: Any) -> list[Need]:
        return [_named("Topic", tc.topic_name, self.actions) for tc in body or ()]


class Heartbeat:
    """Sub on each consumer group of a heartbeat body and on the topics it subscribes (not retry topics);
    producer groups need nothing."""

    __slots__ = ()

    def needs(self, header: Any, body: Any) -> list[Need]:
        out = []
        for consumer in body.consumers if body is not None else ():
            out.append(Need(f"Group:{consumer.group}", ("Sub",)))
            out += [Need(f"Topic:{s.topic}", ("Sub",)) for s in consumer.subscriptions if not _retry(s.topic)]
        return out


class Locking:
    """(UN)LOCK_BATCH_MQ: Sub on the body's group and on each queue's topic (not retry topics)."""

    __slots__ = ()

    def needs(self, header: Any, body: Any) -> list[Need]:
        if body is None:
            return []
        topics = dict.fromkeys(mq.topic for mq in body.queues if not _retry(mq.topic))
        return [Need(f"Group:{body.group}", ("Sub",)), *(Need(f"Topic:{t}", ("Sub",)) for t in topics)]


def _retry(topic: str) -> bool:
    return topic.startswith(RETRY_PREFIX)


Access = On | Send | Consume | TopicsInBody | Heartbeat | Locking


class Annotated(NamedTuple):
    """An ``apache_access.json`` entry: ``actions`` on the resource each field present names (a ``splitter``
    separates several; a retry topic names its group), else on the cluster when ``cluster``. Apache reads the
    decoded header's fields; a string field's value is the ext field of that name, which is read here."""

    actions: tuple[str, ...]
    fields: tuple[tuple[str, str, str], ...]
    """(ext field, resource type, splitter)."""
    cluster: bool

    def needs(self, ext: dict[str, str]) -> list[Need]:
        out = []
        for name, kind, splitter in self.fields:
            value = ext.get(name)
            if value is None:
                continue
            # commons-lang StringUtils.split: any of the splitter's characters separates; empty tokens are dropped
            values = [v for v in re.split(f"[{re.escape(splitter)}]", value) if v] if splitter else [value]
            out += [_named(kind, v, self.actions) for v in values]
        if not out and self.cluster:
            out.append(Need(CLUSTER, self.actions))
        return out


TABLE = Path(__file__).with_name("apache_access.json")


class ApacheTable(NamedTuple):
    switch: frozenset[int]
    """The codes Apache's builder handles in its own switch (the declarations' rules say the same)."""
    annotated: dict[int, Annotated]


@functools.cache
def apache_table() -> ApacheTable:
    """``apache_access.json``, read on first use (not at import: start-up time)."""
    raw = json.loads(TABLE.read_text())
    annotated = {
        int(code): Annotated(
            tuple(e["actions"]),
            tuple((f["field"], f["type"], f["splitter"]) for f in e["fields"]),
            e["resource"] == "Cluster",
        )
        for code, e in raw["annotated"].items()
    }
    return ApacheTable(frozenset(raw["switch"]), annotated)


def needs(code: int, access: Access | None, ext: dict[str, str], header: Any, body: Any) -> list[Need]:
    """Every resource request ``code`` touches: Apache's annotation rule (unless its switch handles the code),
    then the declaration's own ``access`` rule."""
    table = apache_table()
    annotated = table.annotated.get(code) if code not in table.switch else None
    out = annotated.needs(ext) if annotated is not None else []
    if access is not None:
        out += access.needs(header, body)
    return out


def topic(*actions: str) -> On:
    return On(actions, topic="topic")


def group(attr: str, *actions: str) -> On:
    return On(actions, group=attr)


UNCHECKED: dict[int, str] = {
    # Served request codes for which Apache 5.5.0 checks nothing beyond authentication: no request-header class
    # carries @RocketMQAction for them (the request has no header, or an unannotated one), so its
    # RequestHeaderRegistry finds nothing and DefaultAuthorizationContextBuilder returns no context. The embedded
    # servers do the same; tests/unit/test_access_table.py fails for a served code in none of the three lists.
    25: "UPDATE_BROKER_CONFIG (properties body, no header)",
    43: "GET_ALL_CONSUMER_OFFSET (no header)",
    26: "GET_BROKER_CONFIG (no header)",
    28: "GET_BROKER_RUNTIME_INFO (no header)",
    106: "GET_BROKER_CLUSTER_INFO (no header)",
    200: "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (group config body, no header)",
    206: "GET_ALL_TOPIC_LIST_FROM_NAMESERVER (no header)",
    225: "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST (body only)",
    304: "GET_SYSTEM_TOPIC_LIST_FROM_NS (no header)",
    305: "GET_SYSTEM_TOPIC_LIST_FROM_BROKER (no header)",
    306: "CLEAN_EXPIRED_CONSUMEQUEUE (no header)",
    316: "CLEAN_UNUSED_TOPIC (no header)",
    318: "UPDATE_NAMESRV_CONFIG (properties body)",
    319: "GET_NAMESRV_CONFIG (no header)",
    329: "DELETE_EXPIRED_COMMITLOG (no header)",
    400: "QUERY_ASSIGNMENT (body only)",
    401: "SET_MESSAGE_REQUEST_MODE (body only)",
    402: "GET_ALL_MESSAGE_REQUEST_MODE (no header)",
    513: "UPDATE_AND_CREATE_STATIC_TOPIC (no annotated header)",
    907: "GET_BROKER_HA_STATUS (no header)",
    1005: "CONTROLLER_GET_METADATA_INFO (no header; a broker without a controller refuses it)",
    1006: "CONTROLLER_GET_SYNC_STATE_DATA (body only; refused without a controller)",
    1007: "GET_BROKER_EPOCH_CACHE (no header)",
    1009: "UPDATE_CONTROLLER_CONFIG (properties body; refused without a controller)",
    1010: "GET_CONTROLLER_CONFIG (no header; refused without a controller)",
    2001: "UPDATE_COLD_DATA_FLOW_CTR_CONFIG (properties body)",
    2002: "REMOVE_COLD_DATA_FLOW_CTR_CONFIG (body only)",
    2003: "GET_COLD_DATA_FLOW_CTR_INFO (no header)",
    2004: "SET_COMMITLOG_READ_MODE (no annotated header)",
    5001: "SWITCH_TIMER_ENGINE (no annotated header)",
    200056: "POP_ROLLBACK (no annotated header)",
    200074: "GET_BROKER_LITE_INFO (no annotated header)",
    200075: "GET_PARENT_TOPIC_INFO (no annotated header)",
    200076: "GET_LITE_TOPIC_INFO (no annotated header)",
    200077: "GET_LITE_CLIENT_INFO (no annotated header)",
    200078: "GET_LITE_GROUP_INFO (no annotated header)",
    200079: "TRIGGER_LITE_DISPATCH (no annotated header)",
}
