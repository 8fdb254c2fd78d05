"""Message commands: sendMessage and consumeMessage.

Option letters follow Java mqadmin (sendMessage: -t -p -k -c -b -i; consumeMessage: -t -g -o -c
-b -i). ``--order-key`` has no Java letter: Java's tool cannot send ordered messages; ours picks
the queue as the Java producer's SelectMessageQueueByHash does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from mqadmin.cli.errors import CliError, ExitCode, usage_error
from mqadmin.cli.params import NamesrvOpt, TopicOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.admin.messaging import ReceivedMessage, SendResult

BrokerNameOpt = Annotated[
    str | None, typer.Option("-b", "--brokerName", metavar="NAME", help="Only this broker (by name, e.g. broker-a).")
]
QueueIdOpt = Annotated[int | None, typer.Option("-i", "--queueId", min=0, metavar="N", help="Only this queue id.")]
BODY_PREVIEW = 200
T = TypeVar("T")


def register(app: typer.Typer) -> None:
    app.command("sendMessage")(send_message)
    app.command("consumeMessage")(consume_message)


def _check_topic(topic: str) -> None:
    from mqadmin.model.topic import topic_name_problem

    problem = topic_name_problem(topic)
    if problem:
        raise usage_error(problem, "use letters, digits, '-', '_', '|' or '%', at most 127 characters")


def send_message(
    topic: TopicOpt,
    body: Annotated[str, typer.Option("-p", "--body", metavar="TEXT", help="Message body (sent as UTF-8).")],
    namesrv: NamesrvOpt = None,
    keys: Annotated[
        str | None, typer.Option("-k", "--key", metavar="KEYS", help="Message keys, space-separated.")
    ] = None,
    tags: Annotated[str | None, typer.Option("-c", "--tags", metavar="TAG", help="Message tag.")] = None,
    broker: BrokerNameOpt = None,
    queue_id: QueueIdOpt = None,
    order_key: Annotated[
        str | None,
        typer.Option(
            "--order-key",
            metavar="KEY",
            help="Send to queue hash(KEY) % queues, over the route's orderTopicConf when it has one "
            "(the same queue the Java producer's SelectMessageQueueByHash picks).",
        ),
    ] = None,
) -> None:
    """Send one message and print where it was stored.

    A topic the name server does not know is sent through the default topic TBW102's route, so a
    broker with autoCreateTopicEnable creates it (on that one broker only).
    """
    _check_topic(topic)
    if order_key is not None and queue_id is not None:
        raise usage_error("give either --order-key or -i, not both", "--order-key chooses the queue itself")
    from mqadmin.admin.messaging import send_message as send

    async def go(admin: AdminClient) -> SendResult:
        return await send(
            admin, topic, body.encode(), keys=keys, tags=tags, broker=broker, queue_id=queue_id, order_key=order_key
        )

    result = _run(namesrv, go)
    from mqadmin.cli.render import Column, json_output, note, print_json, print_table

    if json_output():
        print_json(result.to_json())
    else:
        columns = [Column("BROKER"), Column("QUEUE", True), Column("OFFSET", True), Column("MSG ID"),
                   Column("OFFSET MSG ID"), Column("STATUS")]  # fmt: skip
        row = (result.broker_name, result.queue_id, result.queue_offset, result.uniq_key, result.msg_id, result.status)
        print_table(columns, [row])
    if result.auto_created_route:
        note(f"mqadmin: note: {topic} had no route; it was sent through TBW102, so {result.broker_name} created it")
    if result.status != "SEND_OK":
        raise CliError(f"the broker stored the message but answered {result.status}", None, ExitCode.FAILURE)


def consume_message(
    topic: TopicOpt,
    namesrv: NamesrvOpt = None,
    group: Annotated[
        str | None,
        typer.Option("-g", "--consumerGroup", metavar="GROUP", help="Consumer group (default: TOOLS_CONSUMER)."),
    ] = None,
    offset: Annotated[int, typer.Option("-o", "--offset", min=0, help="Queue offset to start at in each queue.")] = 0,
    count: Annotated[int, typer.Option("-c", "--count", min=1, help="At most this many messages.")] = 128,
    broker: BrokerNameOpt = None,
    queue_id: QueueIdOpt = None,
) -> None:
    """Read messages from a topic without committing offsets (the group's progress is unchanged).

    Reads every readable queue (or only -b/-i) from -o on, queue by queue, until -c messages.
    """
    _check_topic(topic)
    from mqadmin.admin.messaging import DEFAULT_CONSUMER_GROUP, consume_messages

    async def go(admin: AdminClient) -> list[ReceivedMessage]:
        return await consume_messages(
            admin,
            topic,
            group=group or DEFAULT_CONSUMER_GROUP,
            offset=offset,
            count=count,
            broker=broker,
            queue_id=queue_id,
        )

    messages = _run(namesrv, go)
    from mqadmin.cli.render import Column, json_output, note, print_json, print_table

    if json_output():
        print_json([m.to_json() for m in messages])
    else:
        columns = [Column("BROKER"), Column("QUEUE", True), Column("OFFSET", True), Column("MSG ID"),
                   Column("KEYS"), Column("TAGS"), Column("BODY")]  # fmt: skip
        rows = [
            (
                m.broker_name,
                m.message.queue_id,
                m.message.queue_offset,
                m.message.uniq_key or m.message.msg_id,
                " ".join(m.message.keys),
                m.message.tags or "",
                _preview(m.message.body),
            )
            for m in messages
        ]
        print_table(columns, rows)
    if not messages:
        note(f"mqadmin: note: no messages in {topic} from offset {offset}")


def _preview(body: bytes) -> str:
    text = body.decode("utf-8", "replace")
    text = text.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t")
    return text if len(text) <= BODY_PREVIEW else text[:BODY_PREVIEW] + "…"


def _run(namesrv: str | None, fn: Callable[[AdminClient], Awaitable[T]]) -> T:
    """run_admin, with the message client's own failures as one-line errors."""
    from mqadmin.admin.messaging import NoRoute, NoSuchQueue
    from mqadmin.cli.runner import run_admin

    try:
        return run_admin(namesrv, fn)
    except NoRoute as e:
        raise CliError(
            str(e), "create it first: mqadmin updateTopic -c <cluster> -t <topic>", ExitCode.FAILURE
        ) from None
    except NoSuchQueue as e:
        raise usage_error(str(e), "see the route with: mqadmin topicRoute -t <topic>") from None
