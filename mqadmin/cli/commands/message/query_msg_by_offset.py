"""queryMsgByOffset: show the message at a queue offset."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.message._shared import BodyFormatOpt, FoundMessageDoc, check_charset, run_messaging
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt, TopicOpt, check_topic

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.admin.lookup import Consumption
    from mqadmin.admin.queries import FoundMessage


@command(
    "queryMsgByOffset",
    "mqadmin queryMsgByOffset -t Orders -b broker-a -i 0 -o 42",
    "mqadmin --format json queryMsgByOffset -t Orders -b broker-a -i 0 -o 42 | jq -r .body",
    document=FoundMessageDoc,
)
def query_msg_by_offset(
    topic: TopicOpt,
    broker: Annotated[str, Option("-b", "--brokerName", metavar="BROKER", help="The broker (by name).")],
    queue_id: Annotated[int, Option("-i", "--queueId", min=0, metavar="N", help="The queue id.")],
    offset: Annotated[int, Option("-o", "--offset", min=0, metavar="N", help="The queue offset.")],
    namesrv: NamesrvOpt = None,
    charset: BodyFormatOpt = None,
) -> None:
    """Show the message at one queue offset, with every stored field and which groups have consumed it.

    Reads without committing any offset. An offset outside the queue exits 1 naming the queue's range.
    """
    from mqadmin.admin.lookup import consumptions, find_at_offset
    from mqadmin.cli.commands.message._shared import detail_lines, found_message_json, print_details
    from mqadmin.cli.commands.message.query_msg_by_id import consumer_lines
    from mqadmin.cli.render import json_output, print_json

    check_topic(topic)
    codec = check_charset(charset, "-f")

    async def go(admin: AdminClient) -> tuple[FoundMessage, list[Consumption]]:
        found = await find_at_offset(admin, topic, broker, queue_id, offset)
        return found, await consumptions(admin, found)

    found, consumers = run_messaging(namesrv, go)
    if json_output():
        print_json(found_message_json(found, consumers, codec))
        return
    print_details([detail_lines(found.message, found.broker_name, codec) + consumer_lines(consumers)])
