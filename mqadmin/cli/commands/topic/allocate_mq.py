"""allocateMQ: which queues of a topic each consumer would get from the default allocation strategy."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt, TopicOpt, check_topic

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.model.allocate import MessageQueue


class AllocatedQueueDoc(TypedDict):
    brokerName: str
    queueId: int
    topic: str


class AllocationDoc(TypedDict):
    topic: str
    result: Annotated[dict[str, list[AllocatedQueueDoc]], "client id -> the queues it gets"]


@command(
    "allocateMQ",
    "mqadmin allocateMQ -t Orders -i 10.0.0.1,10.0.0.2,10.0.0.3",
    "mqadmin --format json allocateMQ -t Orders -i c1,c2",
    document=AllocationDoc,
)
def allocate_mq(
    topic: TopicOpt,
    ip_list: Annotated[
        str,
        Option("-i", "--ipList", metavar="ID,ID,...", help="The group's client ids (or IPs), comma separated."),
    ],
    namesrv: NamesrvOpt = None,
) -> None:
    """Show how AllocateMessageQueueAveragely (the consumers' default) shares a topic's queues among the
    clients given with -i: each client gets a contiguous run of the sorted readable queues, the first
    ones one queue more when they do not divide evenly.

    Queues and clients are sorted first, as a consumer's rebalance does (Java's allocateMQ does not sort,
    so its answer follows hash order and can differ from what the consumers really do). A static topic's
    logic queues are allocated under their mock broker name, as clients see them.
    """
    from mqadmin.cli.errors import usage_error
    from mqadmin.cli.render import Column, json_output, print_json, print_table
    from mqadmin.cli.runner import run_admin
    from mqadmin.model.allocate import allocate_all, subscribe_queues

    check_topic(topic)
    clients = [c.strip() for c in ip_list.split(",")]
    if not all(clients):
        raise usage_error(f"-i {ip_list!r} has an empty client id", "for example: -i 10.0.0.1,10.0.0.2")
    dupes = sorted({c for c in clients if clients.count(c) > 1})
    if dupes:
        raise usage_error(f"-i names {dupes[0]!r} twice", "each consumer client appears once")

    async def go(admin: AdminClient) -> list[MessageQueue]:
        return subscribe_queues(topic, await admin.topic_route(topic))

    shares = allocate_all(run_admin(namesrv, go), clients)
    if json_output():
        print_json({"topic": topic, "result": {c: [q.to_json() for q in qs] for c, qs in shares.items()}})
        return
    rows = []
    for client, queues in shares.items():
        brokers = sorted({q.broker_name for q in queues}) or [""]
        for broker in brokers:
            ids = " ".join(str(q.queue_id) for q in queues if q.broker_name == broker)
            rows.append([client, broker, sum(1 for q in queues if q.broker_name == broker), ids])
    print_table([Column("CLIENT"), Column("BROKER"), Column("COUNT", numeric=True), Column("QUEUE IDS")], rows)
