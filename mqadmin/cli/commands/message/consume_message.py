"""consumeMessage: read messages from a topic without committing offsets, or follow it as messages arrive."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.message._shared import (
    BrokerNameOpt,
    MessageDoc,
    MessagesDoc,
    QueueIdOpt,
    SinceOpt,
    UntilOpt,
    check_range,
    parse_time,
    run_messaging,
)
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt, TopicOpt, check_topic

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.admin.queries import FoundMessage
    from mqadmin.admin.reading import QueueRange
    from mqadmin.cli.render import Column

DEFAULT_COUNT = 128
"""As Java's consumeMessage; following has no limit unless -c is given."""


@command(
    "consumeMessage",
    "mqadmin consumeMessage -t Orders -c 10",
    "mqadmin consumeMessage -t Orders -b broker-a -i 0 -o 100",
    "mqadmin consumeMessage -t Orders --tags 'TagA || TagB' -s 2024-05-01T10:00:00 -e 2024-05-01T11:00:00",
    "mqadmin consumeMessage -t Orders -f --properties",
    "mqadmin --format json consumeMessage -t Orders | jq -r '.[].body'",
    document=MessagesDoc | MessageDoc,  # -f: one message per line
)
def consume_message(
    topic: TopicOpt,
    namesrv: NamesrvOpt = None,
    group: Annotated[
        str, Option("-g", "--consumerGroup", metavar="GROUP", help="Consumer group to read as.")
    ] = "TOOLS_CONSUMER",
    offset: Annotated[
        int | None,
        Option(
            "-o", "--offset", min=0, metavar="N", help="Queue offset to start at in each queue.", show_default=False
        ),
    ] = None,
    count: Annotated[
        int | None,
        Option(
            "-c",
            "--count",
            "--MessageNumber",
            min=1,
            metavar="N",
            help=f"At most N messages [{DEFAULT_COUNT}; no limit with -f].",
            show_default=False,
        ),
    ] = None,  # fmt: skip
    broker: BrokerNameOpt = None,
    queue_id: QueueIdOpt = None,
    begin: SinceOpt = None,
    end: UntilOpt = None,
    tags: Annotated[
        str | None,
        Option("--tags", metavar="EXPR", help="Only messages with these tags: 'TagA || TagB'.", show_default=False),
    ] = None,
    follow: Annotated[
        bool, Option("-f", "--follow", help="Keep printing new messages as they arrive, until Ctrl-C.")
    ] = False,
    properties: Annotated[bool, Option("--properties", help="Add a PROPERTIES column (JSON always has them).")] = False,
) -> None:
    """Read messages from a topic without committing offsets (the group's progress is unchanged).

    Reads every readable queue (or only -b/-i) from -o (or the first message stored at or after -s)
    up to the end of each queue (or the first message stored at or after -e), queue by queue, until
    -c messages. --tags filters by tag. With -f it starts at the end of each queue (unless -o or -s
    is given) and prints messages as they arrive until Ctrl-C (or -c messages): one line per message,
    or one JSON document per line. Control characters are shown escaped; JSON gives binary bodies in
    base64. Without -f, Ctrl-C stops reading: the messages read so far are printed, then where it stopped and
    the command that reads on (exit 130).
    """
    from mqadmin.admin.reading import follow as follow_messages
    from mqadmin.admin.reading import queue_ranges, read_range, readable_queues
    from mqadmin.cli.interrupt import stop_on_ctrl_c
    from mqadmin.cli.render import json_output, note, print_json
    from mqadmin.transport.errors import Interrupted

    check_topic(topic)
    lo, hi = parse_time(begin, "-s"), parse_time(end, "-e")
    check_range(lo, hi, "-s", "-e")
    expression = (tags or "").strip() or "*"
    limit = count if count is not None or follow else DEFAULT_COUNT
    shown: list[FoundMessage] = []
    left: list[tuple[QueueRange, int]] = []  # the ranges not read to their end, the first from the offset given

    async def go(admin: AdminClient) -> None:
        queues = readable_queues(await admin.topic_route(topic), broker=broker, queue_id=queue_id)
        ranges = await queue_ranges(admin, topic, queues, offset=offset, begin=lo, end=hi, follow=follow)
        if not follow:
            left[:] = [(r, r.start) for r in ranges]
            with contextlib.suppress(Interrupted):  # Ctrl-C: what was read is printed, then where to read on
                while left:
                    r, _ = left[0]
                    async for found in read_range(admin, topic, r, group=group, expression=expression):
                        shown.append(found)
                        left[0] = (r, found.message.queue_offset + 1)
                        if limit is not None and len(shown) >= limit:
                            left.clear()
                            return
                    left.pop(0)
            return
        note(f"mqadmin: following {topic}; Ctrl-C to stop")  # from here on, every new message is printed
        stream = follow_messages(admin, topic, ranges, group=group, expression=expression)
        try:
            async for found in stream:
                shown.append(found)
                print_line(found, properties)
                if limit is not None and len(shown) >= limit:
                    return
        finally:
            await stream.aclose()

    if follow:
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C ends following; what arrived is printed
            run_messaging(namesrv, go)
        return
    with stop_on_ctrl_c("consumeMessage") as interruption:
        run_messaging(namesrv, go)
    if json_output():
        doc: MessagesDoc = {"messages": [message_json_of(f) for f in shown]}
        print_json(doc)
    else:
        from mqadmin.cli.render import print_table

        print_table(columns(properties), [row(f, properties) for f in shown])
    if interruption.requested:
        _interrupted(topic, len(shown), left, None if limit is None else limit - len(shown))
    if not shown:
        where = f"from offset {offset}" if offset is not None else ("from -s" if lo is not None else "")
        note(f"mqadmin: note: no messages in {topic} {where}".rstrip())


def _interrupted(topic: str, read: int, left: list[tuple[QueueRange, int]], count: int | None) -> None:
    from mqadmin.cli.interrupt import interrupted

    if not left:
        raise interrupted(f"consumeMessage interrupted (Ctrl-C): {read} message(s) read; nothing was left to read", "")
    r, at = left[0]
    q = r.queue
    more = f"; {len(left) - 1} more queue(s) after it, which the first command reads again whole" if left[1:] else ""
    again = f"mqadmin consumeMessage -t {topic} -b {q.broker_name} -i {q.queue_id} -o {at}"
    again += f" -c {count}" if count is not None else ""
    raise interrupted(
        f"consumeMessage interrupted (Ctrl-C): {read} message(s) read; stopped at {q.broker_name} queue "
        f"{q.queue_id} offset {at}, {len(left)} queue(s) not read to their end",
        f"read on with: {again}{more}",
    )


def message_json_of(found: FoundMessage) -> MessageDoc:
    from mqadmin.cli.commands.message._shared import message_json

    return message_json(found.message, found.broker_name)


def columns(properties: bool) -> list[Column]:
    from mqadmin.cli.render import Column

    cols = [Column("BROKER"), Column("QUEUE", True), Column("OFFSET", True), Column("MSG ID"), Column("KEYS"),
            Column("TAGS"), Column("BODY")]  # fmt: skip
    return cols + [Column("PROPERTIES")] if properties else cols


def row(found: FoundMessage, properties: bool) -> list[object]:
    from mqadmin.cli.commands.message._shared import body_preview, java_properties

    m = found.message
    cells: list[object] = [found.broker_name, m.queue_id, m.queue_offset, m.uniq_key or m.msg_id, " ".join(m.keys),
                           m.tags or "", body_preview(m.body)]  # fmt: skip
    return cells + [java_properties(m.properties)] if properties else cells


def print_line(found: FoundMessage, properties: bool) -> None:
    """One message as it arrives: a JSON document per line, or the table's cells two spaces apart."""
    import sys

    from mqadmin.cli.render import escape, json_output, print_json_line

    if json_output():
        print_json_line(message_json_of(found))
        return
    sys.stdout.write("  ".join(escape(str(c)) for c in row(found, properties)) + "\n")
    sys.stdout.flush()
