"""printMsg: print the messages of every queue of a topic (a time range, a tags expression)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.message._shared import (
    FromOpt,
    MessageDoc,
    MessagesDoc,
    ToOpt,
    check_charset,
    check_range,
    parse_time,
    run_messaging,
)
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt, TopicOpt, check_topic, parse_bool

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.admin.queries import FoundMessage
    from mqadmin.cli.render import Column

CharsetOpt = Annotated[
    str | None,
    Option(
        "-c", "--charsetName", metavar="CHARSET", help="Decode bodies with this charset [UTF-8].", show_default=False
    ),
]
ExpressionOpt = Annotated[str, Option("-s", "--subExpression", metavar="EXPR", help="Tags expression: 'TagA || TagB'.")]


@command(
    "printMsg",
    "mqadmin printMsg -t Orders",
    "mqadmin printMsg -t Orders -s 'TagA || TagB' -b 2024-05-01#10:00:00:000 -e 2024-05-01#11:00:00:000",
    "mqadmin printMsg -t Orders -d false",
    document=MessagesDoc,
)
def print_msg(
    topic: TopicOpt,
    namesrv: NamesrvOpt = None,
    charset: CharsetOpt = None,
    expression: ExpressionOpt = "*",
    begin: FromOpt = None,
    end: ToOpt = None,
    print_body: Annotated[
        str | None, Option("-d", "--printBody", metavar="true|false", help="Print bodies [true].")
    ] = None,
    lmq_parent: Annotated[
        str | None,
        Option(
            "-l",
            "--lmqParentTopic",
            metavar="TOPIC",
            help="Find the queues in this topic's route (LMQ).",
            show_default=False,
        ),
    ] = None,  # fmt: skip
) -> None:
    """Print the messages of every queue of a topic, from its first message (or -b) to its last (or -e).

    Reads without committing offsets. Bodies are shown whole (control characters escaped, binary data
    as its size and first bytes in hex); JSON gives binary bodies in base64, or text in -c's charset.
    """
    from mqadmin.admin.reading import queue_ranges, read_ranges, readable_queues
    from mqadmin.cli.render import json_output, note, print_json, print_table

    check_topic(topic)
    if lmq_parent is not None:
        check_topic(lmq_parent)
    codec = check_charset(charset, "-c")
    lo, hi = parse_time(begin, "-b"), parse_time(end, "-e")
    check_range(lo, hi, "-b", "-e")
    with_body = parse_bool(print_body, "-d") is not False

    async def go(admin: AdminClient) -> list[FoundMessage]:
        queues = readable_queues(await admin.topic_route(lmq_parent or topic))
        ranges = await queue_ranges(admin, topic, queues, begin=lo, end=hi)
        return await read_ranges(admin, topic, ranges, expression=expression)

    found = run_messaging(namesrv, go)
    if json_output():
        doc: MessagesDoc = {"messages": messages_json(found, with_body, codec)}
        print_json(doc)
    else:
        print_table(message_columns(with_body), message_rows(found, with_body, codec))
    if not found:
        note(f"mqadmin: note: no messages in {topic} match")


def messages_json(found: list[FoundMessage], with_body: bool, charset: str | None) -> list[MessageDoc]:
    from mqadmin.cli.commands.message._shared import message_json

    return [message_json(f.message, f.broker_name, body=with_body, charset=charset) for f in found]


def message_columns(with_body: bool) -> list[Column]:
    from mqadmin.cli.render import Column

    cols = [Column("BROKER"), Column("QUEUE", True), Column("OFFSET", True), Column("MSG ID"), Column("STORE TIME"),
            Column("TAGS"), Column("KEYS")]  # fmt: skip
    return cols + [Column("BODY")] if with_body else cols


def message_rows(found: list[FoundMessage], with_body: bool, charset: str | None) -> list[list[object]]:
    from mqadmin.cli.commands.message._shared import body_preview, human_time

    rows = []
    for f in found:
        m = f.message
        row: list[object] = [f.broker_name, m.queue_id, m.queue_offset, m.uniq_key or m.msg_id,
                             human_time(m.store_timestamp), m.tags or "", " ".join(m.keys)]  # fmt: skip
        rows.append(row + [body_preview(m.body, charset, whole=True)] if with_body else row)
    return rows
