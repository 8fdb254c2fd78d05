"""getConsumerStatus: the offsets each consumer of a group holds in memory for a topic."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt, TopicOpt, check_topic

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.model.rpc.consumers import OffsetTable


class ClientOffsetDoc(TypedDict):
    topic: str
    brokerName: str
    queueId: int
    offset: Annotated[int, "the client's offset in the queue"]


class ClientOffsetsDoc(TypedDict):
    group: str
    topic: str
    clients: Annotated[dict[str, list[ClientOffsetDoc]], "client id -> its queues"]


@command(
    "getConsumerStatus",
    "mqadmin getConsumerStatus -g OrdersConsumer -t Orders",
    "mqadmin getConsumerStatus -g OrdersConsumer -t Orders -i 10.0.0.5@12345",
    document=ClientOffsetsDoc,
)
def get_consumer_status(
    group: Annotated[str, Option("-g", "--group", metavar="GROUP", help="Consumer group name.")],
    topic: TopicOpt,
    namesrv: NamesrvOpt = None,
    client_id: Annotated[
        str | None,
        Option("-i", "--originClientId", metavar="CLIENT_ID", help="Only this client [every client]."),
    ] = None,
) -> None:
    """The offset each consumer of the group holds in memory for every queue of the topic it consumes
    (asked through the first broker of the topic's route, which asks each client). These can be ahead of
    the committed offsets consumerProgress shows: consumers commit every few seconds.
    """
    from mqadmin.cli.commands.consumer._shared import check_group, run_consumers
    from mqadmin.cli.render import Column, json_output, print_json, print_table
    from mqadmin.model.queue import queue_json

    check_group(group)
    check_topic(topic)

    async def go(admin: AdminClient) -> dict[str, OffsetTable]:
        return await admin.consumer_status(topic, group, client_id)

    clients = run_consumers(namesrv, go)
    if json_output():
        doc = {cid: [queue_json(mq, offset=o) for mq, o in table.items()] for cid, table in clients.items()}
        print_json({"group": group, "topic": topic, "clients": doc})
        return
    rows = [(cid, mq.broker_name, mq.queue_id, o) for cid, table in clients.items() for mq, o in table.items()]
    print_table(
        [Column("CLIENT ID"), Column("BROKER"), Column("QID", numeric=True), Column("OFFSET", numeric=True)], rows
    )
