"""consumeMessage: read messages from a topic without committing offsets."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from mqadmin.cli.command import command
from mqadmin.cli.commands.message._shared import BrokerNameOpt, QueueIdOpt, body_json, body_preview, run_messaging
from mqadmin.cli.params import NamesrvOpt, TopicOpt, check_topic

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.admin.messaging import ReceivedMessage


@command(
    "consumeMessage",
    "mqadmin consumeMessage -t Orders -c 10",
    "mqadmin consumeMessage -t Orders -b broker-a -i 0 -o 100",
    "mqadmin --format json consumeMessage -t Orders | jq -r '.[].body'",
)
def consume_message(
    topic: TopicOpt,
    namesrv: NamesrvOpt = None,
    group: Annotated[
        str, typer.Option("-g", "--consumerGroup", metavar="GROUP", help="Consumer group to read as.")
    ] = "TOOLS_CONSUMER",
    offset: Annotated[
        int, typer.Option("-o", "--offset", min=0, metavar="N", help="Queue offset to start at in each queue.")
    ] = 0,
    count: Annotated[int, typer.Option("-c", "--count", min=1, metavar="N", help="At most this many messages.")] = 128,
    broker: BrokerNameOpt = None,
    queue_id: QueueIdOpt = None,
) -> None:
    """Read messages from a topic without committing offsets (the group's progress is unchanged).

    Reads every readable queue (or only -b/-i) from -o on, queue by queue, until -c messages. Control
    characters in bodies, keys and tags are shown escaped; JSON gives binary bodies in base64.
    """
    from mqadmin.admin.messaging import consume_messages
    from mqadmin.cli.render import Column, json_output, note, print_json, print_table

    check_topic(topic)

    async def go(admin: AdminClient) -> list[ReceivedMessage]:
        return await consume_messages(
            admin, topic, group=group, offset=offset, count=count, broker=broker, queue_id=queue_id
        )

    messages = run_messaging(namesrv, go)
    if json_output():
        print_json([{**m.to_json(), **body_json(m.message.body)} for m in messages])
    else:
        columns = [Column("BROKER"), Column("QUEUE", True), Column("OFFSET", True), Column("MSG ID"),
                   Column("KEYS"), Column("TAGS"), Column("BODY")]  # fmt: skip
        rows = [
            (m.broker_name, m.message.queue_id, m.message.queue_offset, m.message.uniq_key or m.message.msg_id,
             " ".join(m.message.keys), m.message.tags or "", body_preview(m.message.body))
            for m in messages
        ]  # fmt: skip
        print_table(columns, rows)
    if not messages:
        note(f"mqadmin: note: no messages in {topic} from offset {offset}")
