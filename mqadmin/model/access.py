"""What a request touches, for ACL 2.0 authorization: the resources it names and the actions it performs on
them, as Apache 5.3+'s ``DefaultAuthorizationContextBuilder`` derives them (its switch for sends, pulls and
offsets; the ``@RocketMQAction`` / ``@RocketMQResource`` annotations of the request headers for the rest).

Each request's rule is part of its declaration (``Rpc(..., access=...)``). A rule gives ``Need`` items:
a resource key (``Topic:Orders``, ``Group:G``, or ``Cluster`` for the broker's cluster, which the server
names) and the actions of which one must be allowed. A request without a rule, or whose rule gives nothing,
needs no permission beyond authentication, as in Apache (a request without an annotated header).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

RETRY_PREFIX = "%RETRY%"
CLUSTER = "Cluster"
"""The resource of cluster-wide requests; the server replaces it by ``Cluster:<its cluster name>``."""


class Need(NamedTuple):
    resource: str
    actions: tuple[str, ...]


def _named(kind: str, name: str, actions: tuple[str, ...]) -> Need:
    """A topic or group; a retry topic stands for its group, as in Apache."""
    if kind == "Topic" and name.startswith(RETRY_PREFIX):
        return Need(f"Group:{name.removeprefix(RETRY_PREFIX)}", actions)
    return Need(f"{kind}:{name}", actions)


@dataclass(frozen=True, slots=True)
class On:
    """The header fields ``topic`` / ``group`` (attribute names) name the resources; ``actions`` on each.
    With neither present nor ``cluster``, nothing is needed."""

    actions: tuple[str, ...]
    topic: str | None = None
    group: str | None = None
    cluster: bool = False

    def needs(self, header: Any, body: Any) -> list[Need]:
        out = []
        for kind, attr in (("Topic", self.topic), ("Group", self.group)):
            value = getattr(header, attr, None) if attr else None
            if value:
                out.append(_named(kind, value, self.actions))
        if self.cluster and not out:
            out.append(Need(CLUSTER, self.actions))
        return out


@dataclass(frozen=True, slots=True)
class Send:
    """A send: Pub on the topic; a send to a retry topic is Sub on the group (the producer group, else the
    retry topic's group)."""

    def needs(self, header: Any, body: Any) -> list[Need]:
        topic = header.topic
        if topic.startswith(RETRY_PREFIX):
            return [_named("Group", header.producer_group or topic.removeprefix(RETRY_PREFIX), ("Sub",))]
        return [Need(f"Topic:{topic}", ("Pub",))]


@dataclass(frozen=True, slots=True)
class Consume:
    """Pulls and offsets: ``actions`` on the topic (unless it is a retry topic) and on the consumer group."""

    actions: tuple[str, ...]

    def needs(self, header: Any, body: Any) -> list[Need]:
        out = [] if header.topic.startswith(RETRY_PREFIX) else [Need(f"Topic:{header.topic}", self.actions)]
        return [*out, Need(f"Group:{header.consumer_group}", self.actions)]


@dataclass(frozen=True, slots=True)
class TopicsInBody:
    """``actions`` on every topic of a topic-config list body (UPDATE_AND_CREATE_TOPIC_LIST; Apache names no
    resource for it, so any user could create topics through it: the embedded broker checks each)."""

    actions: tuple[str, ...]

    def needs(self, header: Any, body: Any) -> list[Need]:
        return [_named("Topic", tc.topic_name, self.actions) for tc in body or ()]


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """Sub on each consumer group of a heartbeat body and on the topics it subscribes (not retry topics);
    producer groups need nothing."""

    def needs(self, header: Any, body: Any) -> list[Need]:
        out = []
        for consumer in body.consumers if body is not None else ():
            out.append(Need(f"Group:{consumer.group}", ("Sub",)))
            out += [Need(f"Topic:{s.topic}", ("Sub",)) for s in consumer.subscriptions if not _retry(s.topic)]
        return out


@dataclass(frozen=True, slots=True)
class Locking:
    """(UN)LOCK_BATCH_MQ: Sub on the body's group and on each queue's topic (not retry topics)."""

    def needs(self, header: Any, body: Any) -> list[Need]:
        if body is None:
            return []
        topics = dict.fromkeys(mq.topic for mq in body.queues if not _retry(mq.topic))
        return [Need(f"Group:{body.group}", ("Sub",)), *(Need(f"Topic:{t}", ("Sub",)) for t in topics)]


def _retry(topic: str) -> bool:
    return topic.startswith(RETRY_PREFIX)


Access = On | Send | Consume | TopicsInBody | Heartbeat | Locking


def topic(*actions: str) -> On:
    return On(actions, topic="topic")


def group(attr: str, *actions: str) -> On:
    return On(actions, group=attr)


def cluster(*actions: str) -> On:
    return On(actions, cluster=True)
