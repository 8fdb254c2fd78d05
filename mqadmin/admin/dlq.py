"""Sending dead-lettered messages back to their topic (mqadmin's resendDlqMessage; Java has no such command).

A message lands in ``%DLQ%<group>`` once its group failed to consume it ``maxReconsumeTimes`` times; the
broker keeps the topic it came from in its RETRY_TOPIC property (set on the first send-back, Java's
``consumerSendMsgBack``; a client's own fallback send sets it too). Each dead letter is read without
committing offsets (up to each DLQ queue's end when the run starts, so what arrives meanwhile is left for
the next run) and sent as a new message to that topic: same body, flag, keys, tags, user properties and
unique key (so idempotent consumers recognise it), without the broker's delivery state (retry topic, delay
level, reconsume counters, offsets), reconsume count 0. A unique key is sent at most once per run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mqadmin.admin.client import AdminClient
from mqadmin.admin.errors import AdminError, reason_of
from mqadmin.admin.messaging import Publisher, SendResult, choose_queue, publisher, send_to
from mqadmin.admin.queries import FoundMessage
from mqadmin.admin.reading import QueueRange, queue_ranges, read_range, readable_queues
from mqadmin.model.names import DLQ_PREFIX

PROPERTY_RETRY_TOPIC = "RETRY_TOPIC"
DELIVERY_STATE = frozenset(
    {
        "RETRY_TOPIC", "REAL_TOPIC", "REAL_QID", "DELAY", "WAIT", "ORIGIN_MESSAGE_ID", "MIN_OFFSET", "MAX_OFFSET",
        "CONSUME_START_TIME", "CLUSTER", "MAX_RECONSUME_TIMES", "RECONSUME_TIME", "TRAN_MSG", "PGROUP",
        "POP_CK", "POP_CK_OFFSET", "1ST_POP_TIME", "DUP_INFO", "TRACE_ON", "MSG_REGION", "TIMER_OUT_MS",
        "TIMER_ENQUEUE_MS", "TIMER_DEQUEUE_MS", "TIMER_ROLL_TIMES", "TIMER_DELIVER_MS", "TIMER_DELAY_SEC",
        "TIMER_DELAY_MS", "TRAN_PREPARED_QUEUE_OFFSET", "INNER_MULTI_DISPATCH", "INNER_MULTI_QUEUE_OFFSET",
    }
)  # fmt: skip
"""Properties the brokers and clients set while delivering (Java's MessageConst names); a resent message
starts without them."""


class Status:
    SENT = "sent"
    WOULD_SEND = "would send"
    DUPLICATE = "duplicate"
    SKIPPED = "skipped"
    FAILED = "failed"


@dataclass(slots=True)
class Resend:
    """One dead letter and what the run did with it."""

    found: FoundMessage
    original_topic: str | None
    status: str
    reason: str | None = None
    sent: SendResult | None = None


@dataclass(slots=True)
class DlqRun:
    dlq_topic: str
    ranges: list[QueueRange]
    resends: list[Resend]

    @property
    def failed(self) -> int:
        return sum(1 for r in self.resends if r.status == Status.FAILED)


Progress = Callable[[Resend], None]


def resend_properties(props: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in props.items() if k not in DELIVERY_STATE}


async def resend_dlq(
    client: AdminClient,
    group: str,
    *,
    broker: str | None = None,
    offset: int | None = None,
    begin: int | None = None,
    end: int | None = None,
    limit: int | None = None,
    topic: str | None = None,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> DlqRun:
    """Read ``%DLQ%<group>`` (every broker, or ``broker``) from ``offset`` or store time ``begin`` to ``end``
    (or each queue's end now) and send each dead letter back to its topic (only those of ``topic`` when
    given), at most ``limit`` of them. ``dry_run`` sends nothing and reports what would be sent."""
    dlq = DLQ_PREFIX + group
    queues = readable_queues(await client.topic_route(dlq), broker=broker)
    ranges = await queue_ranges(client, dlq, queues, offset=offset, begin=begin, end=end)
    publishers: dict[str, Publisher | AdminError] = {}
    seen: set[str] = set()
    resends: list[Resend] = []
    attempted = 0
    for r in ranges:
        async for found in read_range(client, dlq, r):
            m = found.message
            original = m.properties.get(PROPERTY_RETRY_TOPIC)
            if topic is not None and original != topic:
                continue
            if limit is not None and attempted >= limit:
                return DlqRun(dlq, ranges, resends)
            identity = m.uniq_key or m.msg_id
            if identity in seen:
                outcome = Resend(found, original, Status.DUPLICATE, f"{identity} was handled earlier in this run")
            elif original is None:
                outcome = Resend(found, None, Status.SKIPPED, "no RETRY_TOPIC property: the original topic is unknown")
            else:
                seen.add(identity)
                attempted += 1
                outcome = await _resend(client, found, original, publishers, dry_run)
            resends.append(outcome)
            if progress is not None:
                progress(outcome)
    return DlqRun(dlq, ranges, resends)


async def _resend(
    client: AdminClient, found: FoundMessage, topic: str, publishers: dict[str, Publisher | AdminError], dry_run: bool
) -> Resend:
    pub = publishers.get(topic)
    if pub is None:
        try:
            pub = publishers[topic] = await publisher(client, topic)
        except AdminError as e:
            pub = publishers[topic] = e
    if isinstance(pub, AdminError):
        return Resend(found, topic, Status.FAILED, reason_of(pub))
    if pub.via_default or not pub.queues:
        return Resend(found, topic, Status.FAILED, f"topic {topic} has no route (it was deleted?)")
    if dry_run:
        return Resend(found, topic, Status.WOULD_SEND)
    m = found.message
    try:
        sent = await send_to(
            client, pub, choose_queue(pub.queues), m.body, resend_properties(m.properties), flag=m.flag
        )
    except Exception as e:  # one failed send is reported on its row; the run goes on
        return Resend(found, topic, Status.FAILED, reason_of(e))
    reason = None if sent.status == "SEND_OK" else f"stored, but the broker answered {sent.status}"
    return Resend(found, topic, Status.SENT, reason, sent)
