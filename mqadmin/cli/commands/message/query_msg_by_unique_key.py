"""queryMsgByUniqueKey: show a message by its unique key (the msgId a producer gets)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.message._shared import ClusterOpt, FoundMessagesDoc, run_messaging
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt, TopicOpt, check_topic

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.admin.lookup import Consumption
    from mqadmin.admin.queries import FoundMessage


@command(
    "queryMsgByUniqueKey",
    "mqadmin queryMsgByUniqueKey -t Orders -i 7F0000011C2A18B4AAC27A4D0C830000",
    "mqadmin queryMsgByUniqueKey -t Orders -i 7F0000011C2A18B4AAC27A4D0C830000 -a",
    document=FoundMessagesDoc,
)
def query_msg_by_unique_key(
    topic: TopicOpt,
    msg_id: Annotated[str, Option("-i", "--msgId", metavar="KEY", help="The unique key (UNIQ_KEY).")],
    namesrv: NamesrvOpt = None,
    show_all: Annotated[
        bool, Option("-a", "--showAll", help="Every stored copy (at most 32), not only the oldest.")
    ] = False,
    cluster: ClusterOpt = None,
) -> None:
    """Show the message with this unique key, and which groups have consumed it.

    A message sent again (a producer retry, a resend) keeps its unique key, so there can be several
    stored copies: the oldest is shown, or all of them with -a.
    """
    from mqadmin.admin.lookup import consumptions, find_by_unique_key
    from mqadmin.cli.commands.message._shared import detail_lines, found_json, print_details
    from mqadmin.cli.commands.message.query_msg_by_id import consumer_lines
    from mqadmin.cli.render import json_output, print_json

    check_topic(topic)

    async def go(admin: AdminClient) -> list[tuple[FoundMessage, list[Consumption]]]:
        found = await find_by_unique_key(admin, topic, msg_id.strip(), cluster=cluster)
        return [(f, await consumptions(admin, f)) for f in (found if show_all else found[:1])]

    found = run_messaging(namesrv, go)
    if json_output():
        print_json(found_json(found))
        return
    print_details([detail_lines(f.message, f.broker_name) + consumer_lines(cs) for f, cs in found])
