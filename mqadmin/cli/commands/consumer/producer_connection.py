"""producerConnection: the clients of a producer group connected to a topic's brokers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.consumer._shared import ConnectionDoc
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt, TopicOpt, check_topic

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.model.clients import Connection

ProducerGroupOpt = Annotated[str, Option("-g", "--producerGroup", metavar="GROUP", help="Producer group name.")]


class ProducerConnectionDoc(TypedDict):
    group: str
    topic: str
    connections: Annotated[list[ConnectionDoc], "each producer online"]


@command("producerConnection", "mqadmin producerConnection -g OrdersProducer -t Orders", document=ProducerConnectionDoc)
def producer_connection(group: ProducerGroupOpt, topic: TopicOpt, namesrv: NamesrvOpt = None) -> None:
    """The clients of a producer group (client id, address, language, version), as the brokers of the
    topic's route see them (every broker is asked; clients are merged by id). Exit code 1 when none of
    them has a producer of the group connected.
    """
    from mqadmin.cli.commands.consumer._shared import check_group, print_connections, run_consumers
    from mqadmin.cli.render import json_output, print_json

    check_group(group)
    check_topic(topic)

    async def go(admin: AdminClient) -> list[Connection]:
        return await admin.producer_connection(group, topic)

    conns = run_consumers(namesrv, go)
    if json_output():
        print_json({"group": group, "topic": topic, "connections": [c.to_json() for c in conns]})
    else:
        print_connections(conns)
