"""queryMsgByKey: list the messages of a topic that carry a key."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.message._shared import (
    ClusterOpt,
    MessagesDoc,
    StoredFromOpt,
    StoredToOpt,
    check_range,
    parse_time,
    run_messaging,
)
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt, TopicOpt, check_topic

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.admin.queries import FoundMessage


@command(
    "queryMsgByKey",
    "mqadmin queryMsgByKey -t Orders -k order-42",
    "mqadmin queryMsgByKey -t Orders -k order-42 -b 2024-05-01T00:00:00 -m 10",
    document=MessagesDoc,
)
def query_msg_by_key(
    topic: TopicOpt,
    key: Annotated[str, Option("-k", "--msgKey", metavar="KEY", help="The message key (one of KEYS).")],
    namesrv: NamesrvOpt = None,
    begin: StoredFromOpt = None,
    end: StoredToOpt = None,
    max_num: Annotated[int, Option("-m", "--maxNum", min=1, metavar="N", help="At most N messages per broker.")] = 64,
    cluster: ClusterOpt = None,
) -> None:
    """List the messages of a topic whose keys (KEYS, set by the producer) include KEY.

    Every broker of the topic is asked at once; the broker's key index is checked again here, so a
    hash collision never shows. Nothing found prints nothing (exit 0) and a note on stderr.
    """
    from mqadmin.admin.lookup import find_by_key
    from mqadmin.admin.queries import END_OF_TIME
    from mqadmin.cli.commands.message._shared import human_time, message_json
    from mqadmin.cli.render import Column, json_output, note, print_json, print_table

    check_topic(topic)
    lo, hi = parse_time(begin, "-b"), parse_time(end, "-e")
    check_range(lo, hi, "-b", "-e")

    async def go(admin: AdminClient) -> list[FoundMessage]:
        return await find_by_key(
            admin, topic, key, max_num=max_num, begin=lo or 0, end=END_OF_TIME if hi is None else hi, cluster=cluster
        )

    found = run_messaging(namesrv, go)
    if json_output():
        doc: MessagesDoc = {"messages": [message_json(f.message, f.broker_name) for f in found]}
        print_json(doc)
    else:
        columns = [Column("MSG ID"), Column("OFFSET MSG ID"), Column("BROKER"), Column("QUEUE", True),
                   Column("OFFSET", True), Column("STORE TIME"), Column("KEYS"), Column("TAGS")]  # fmt: skip
        rows = [
            (f.message.uniq_key or f.message.msg_id, f.message.msg_id, f.broker_name, f.message.queue_id,
             f.message.queue_offset, human_time(f.message.store_timestamp), " ".join(f.message.keys),
             f.message.tags or "")
            for f in found
        ]  # fmt: skip
        print_table(columns, rows)
    if not found:
        note(f"mqadmin: note: no message of {topic} has the key {key!r}")
