"""printMsgByQueue: print or count by tag the messages of one queue."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.message._shared import (
    FromOpt,
    MessageDoc,
    ToOpt,
    check_charset,
    check_range,
    parse_time,
    run_messaging,
)
from mqadmin.cli.commands.message.print_msg import CharsetOpt, ExpressionOpt
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt, TopicOpt, check_topic, parse_bool

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.admin.queries import FoundMessage
    from mqadmin.admin.reading import QueueRange


class QueueMessagesDoc(TypedDict):
    topic: str
    broker: str
    queueId: int
    minOffset: Annotated[int, "the first offset read (-b: the first stored at or after it)"]
    maxOffset: Annotated[int, "the offset reading stopped before (-e: the first stored after it)"]
    count: Annotated[int, "messages read (matching -s)"]
    messages: Annotated[list[MessageDoc], "-p true: the messages ([] otherwise)"]
    tagCounts: Annotated[dict[str, int], "-f true: messages per tag, most first ({} otherwise)"]


@command(
    "printMsgByQueue",
    "mqadmin printMsgByQueue -t Orders -a broker-a -i 0 -p true",
    "mqadmin printMsgByQueue -t Orders -a broker-a -i 0 -f true -b 2024-05-01T10:00:00",
    document=QueueMessagesDoc,
)
def print_msg_by_queue(
    topic: TopicOpt,
    broker: Annotated[str, Option("-a", "--brokerName", metavar="BROKER", help="The broker (by name).")],
    queue_id: Annotated[int, Option("-i", "--queueId", min=0, metavar="N", help="The queue id.")],
    namesrv: NamesrvOpt = None,
    charset: CharsetOpt = None,
    expression: ExpressionOpt = "*",
    begin: FromOpt = None,
    end: ToOpt = None,
    print_messages: Annotated[
        str | None, Option("-p", "--printMsg", metavar="true|false", help="Print the messages [false].")
    ] = None,
    print_body: Annotated[
        str | None, Option("-d", "--printBody", metavar="true|false", help="With -p, print bodies [false].")
    ] = None,
    calculate: Annotated[
        str | None, Option("-f", "--calculate", metavar="true|false", help="Count messages by tag [false].")
    ] = None,
) -> None:
    """Read one queue, from its first message (or -b) to its last (or -e), and print its messages (-p
    true) and/or count them by tag, most frequent first (-f true).

    Without -p or -f only the number of messages read is reported (on stderr), as Java prints nothing.
    """
    from mqadmin.admin.reading import queue_ranges, read_ranges, readable_queues
    from mqadmin.cli.commands.message.print_msg import message_columns, message_rows, messages_json
    from mqadmin.cli.render import Column, json_output, note, print_json, print_table

    check_topic(topic)
    codec = check_charset(charset, "-c")
    lo, hi = parse_time(begin, "-b"), parse_time(end, "-e")
    check_range(lo, hi, "-b", "-e")
    show, with_body, count_tags = (parse_bool(v, o) is True for v, o in
                                   ((print_messages, "-p"), (print_body, "-d"), (calculate, "-f")))  # fmt: skip

    async def go(admin: AdminClient) -> tuple[QueueRange, list[FoundMessage]]:
        (queue,) = readable_queues(await admin.topic_route(topic), broker=broker, queue_id=queue_id)
        (r,) = await queue_ranges(admin, topic, [queue], begin=lo, end=hi)
        return r, await read_ranges(admin, topic, [r], expression=expression)

    r, found = run_messaging(namesrv, go)
    tag_counts = Counter(f.message.tags for f in found if f.message.tags and f.message.tags.strip())
    ranked = sorted(tag_counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if json_output():
        print_json(
            {
                "topic": topic, "broker": broker, "queueId": queue_id, "minOffset": r.start, "maxOffset": r.end,
                "count": len(found), "messages": messages_json(found, with_body, codec) if show else [],
                "tagCounts": dict(ranked) if count_tags else {},
            }
        )  # fmt: skip
        return
    if show:
        print_table(message_columns(with_body), message_rows(found, with_body, codec))
    if count_tags:
        if show and found:
            print()
        print_table([Column("TAG"), Column("COUNT", True)], ranked)
    if not show and not count_tags or not found:
        note(f"mqadmin: note: {len(found)} message(s) in {topic} {broker} queue {queue_id}, offsets {r.start}..{r.end}")
