"""sendMessage: send one message and print where it was stored."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.message._shared import BrokerNameOpt, QueueIdOpt, SentDoc, run_messaging
from mqadmin.cli.declare import Option
from mqadmin.cli.errors import CliError, ExitCode, usage_error
from mqadmin.cli.params import NamesrvOpt, TopicOpt, check_topic

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.admin.messaging import SendResult

MAX_BODY = 4 * 1024 * 1024
"""The brokers' default maxMessageSize."""


@command(
    "sendMessage",
    "mqadmin sendMessage -t Orders -p 'hello' -k order-1 -c TagA",
    "echo '{\"id\": 1}' | mqadmin sendMessage -t Orders -p -",
    "mqadmin sendMessage -t Orders -p @payload.bin",
    "mqadmin sendMessage -t Orders -p 'step 2' --order-key order-1",
    document=SentDoc,
)
def send_message(
    topic: TopicOpt,
    body: Annotated[
        str,
        Option(
            "-p", "--body", metavar="TEXT|-|@FILE", help="Message body: text (UTF-8), - for stdin, @FILE for a file."
        ),
    ],
    namesrv: NamesrvOpt = None,
    keys: Annotated[
        str | None,
        Option("-k", "--key", metavar="KEYS", help="Message keys, space-separated.", show_default=False),
    ] = None,
    tags: Annotated[str | None, Option("-c", "--tags", metavar="TAG", help="Message tag.", show_default=False)] = None,
    broker: BrokerNameOpt = None,
    queue_id: QueueIdOpt = None,
    order_key: Annotated[
        str | None,
        Option(
            "--order-key",
            metavar="KEY",
            help="Send to queue hash(KEY) % queues, over the route's orderTopicConf when it has one "
            "(the queue the Java producer's SelectMessageQueueByHash picks).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Send one message and print where it was stored.

    A topic the name server does not know is sent through the default topic TBW102's route, so a
    broker with autoCreateTopicEnable creates it (on that one broker only). A broker that answers
    SYSTEM_BUSY (flow control; nothing stored) is sent the message again, twice at most, as Java's producer does.
    """
    check_topic(topic)
    if order_key is not None and queue_id is not None:
        raise usage_error("give either --order-key or -i, not both", "--order-key chooses the queue itself")
    payload = _read_body(body)
    from mqadmin.admin.messaging import send_message as send
    from mqadmin.cli.render import Column, json_output, note, print_json, print_table

    async def go(admin: AdminClient) -> SendResult:
        return await send(
            admin, topic, payload, keys=keys, tags=tags, broker=broker, queue_id=queue_id, order_key=order_key
        )

    result = run_messaging(namesrv, go)
    if json_output():
        print_json(result.to_json())
    else:
        columns = [Column("BROKER"), Column("QUEUE", True), Column("OFFSET", True), Column("MSG ID"),
                   Column("OFFSET MSG ID"), Column("STATUS", styled=True)]  # fmt: skip
        row = (result.broker_name, result.queue_id, result.queue_offset, result.uniq_key, result.msg_id, result.status)
        print_table(columns, [row])
    if result.auto_created_route:
        note(f"mqadmin: note: {topic} had no route; it was sent through TBW102, so {result.broker_name} created it")
    if result.status != "SEND_OK":
        raise CliError(f"the broker stored the message but answered {result.status}", None, ExitCode.FAILURE)


def _read_body(value: str) -> bytes:
    """-p TEXT, -p - (stdin) or -p @FILE; an empty body is refused, as Java's producer refuses it."""
    if value == "-":
        data = sys.stdin.buffer.read(MAX_BODY + 1)
        source = "standard input"
    elif value.startswith("@"):
        path = Path(value[1:])
        try:
            with path.open("rb") as f:
                data = f.read(MAX_BODY + 1)
        except OSError as e:
            raise usage_error(
                f"cannot read the body file {str(path)!r}: {e.strerror or e}", "-p @FILE reads FILE"
            ) from None
        source = str(path)
    else:
        data = value.encode("utf-8", "surrogateescape")
        source = "-p"
    if not data:
        raise usage_error(f"the message body from {source} is empty", "RocketMQ refuses empty bodies; give some text")
    if len(data) > MAX_BODY:
        raise usage_error(
            f"the message body from {source} is over {MAX_BODY} bytes", "brokers refuse bodies over 4 MiB"
        )
    return data
