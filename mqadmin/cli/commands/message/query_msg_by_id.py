"""queryMsgById: show messages by message id (an offset message id, or a unique key with -t)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.message._shared import (
    BodyFormatOpt,
    ClusterOpt,
    FoundMessagesDoc,
    check_charset,
    run_messaging,
)
from mqadmin.cli.declare import Option
from mqadmin.cli.errors import usage_error
from mqadmin.cli.params import NamesrvOpt, check_topic

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.admin.lookup import Consumption
    from mqadmin.admin.queries import FoundMessage


@command(
    "queryMsgById",
    "mqadmin queryMsgById -i 7F00000100002A9F0000000000000042",
    "mqadmin queryMsgById -t Orders -i 7F0000011C2A18B4AAC27A4D0C830000,7F0000011C2A18B4AAC27A4D0C8A0001",
    "mqadmin queryMsgById -t Orders -i 7F00000100002A9F0000000000000042 -f GBK",
    document=FoundMessagesDoc,
)
def query_msg_by_id(
    msg_id: Annotated[
        str, Option("-i", "--msgId", metavar="ID[,ID…]", help="Message id(s): offset ids or unique keys.")
    ],
    namesrv: NamesrvOpt = None,
    topic: Annotated[
        str | None,
        Option(
            "-t", "--topic", metavar="TOPIC", help="The topic (needed to look up a unique key).", show_default=False
        ),
    ] = None,
    cluster: ClusterOpt = None,
    charset: BodyFormatOpt = None,
) -> None:
    """Show messages by id, with every stored field and which groups have consumed them.

    An offset message id (what the broker assigns: store host + commit-log offset) is read from its
    broker. Any other id is a unique key (the msgId a producer gets) and is looked up in -t's topic
    over the last three days, as Java mqadmin does. Several ids may be given, comma-separated.
    """
    from mqadmin.admin.lookup import consumptions, find_by_id
    from mqadmin.cli.commands.message._shared import detail_lines, found_json, print_details
    from mqadmin.cli.render import json_output, print_json

    ids = [i.strip() for i in msg_id.split(",") if i.strip()]
    if not ids:
        raise usage_error("-i names no message id", "for example: -i 7F00000100002A9F0000000000000042")
    if topic is not None:
        check_topic(topic)
    codec = check_charset(charset, "-f")

    async def go(admin: AdminClient) -> list[tuple[FoundMessage, list[Consumption]]]:
        out = []
        for i in ids:
            for found in await find_by_id(admin, i, topic, cluster=cluster):
                out.append((found, await consumptions(admin, found)))
        return out

    found = run_messaging(namesrv, go)
    if json_output():
        print_json(found_json(found, codec))
        return
    print_details([detail_lines(f.message, f.broker_name, codec) + consumer_lines(cs) for f, cs in found])


def consumer_lines(consumers: list[Consumption]) -> list[tuple[str, str]]:
    """One ``Consumer Group:`` line per group: consumed or not, with its committed offset."""
    if not consumers:
        return [("Consumer Group:", "none consumes this topic")]
    return [
        (
            "Consumer Group:",
            f"{c.group}  {'consumed' if c.consumed else 'not consumed yet'} "
            f"(committed offset {'none' if c.consumer_offset is None else c.consumer_offset})",
        )
        for c in consumers
    ]
