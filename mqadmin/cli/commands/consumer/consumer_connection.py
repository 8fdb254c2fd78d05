"""consumerConnection: a consumer group's clients (id, address, language, version) and subscriptions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.consumer._shared import ConnectionDoc
from mqadmin.cli.params import BrokerAddrOpt, GroupOpt, NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.model.clients import ConsumerConnection


class SubscriptionDoc(TypedDict):
    topic: str
    subExpression: Annotated[str, "the tag expression (* for all) or SQL92"]
    expressionType: Annotated[str, "TAG or SQL92"]
    subVersion: int


class ConsumerConnectionDoc(TypedDict):
    group: str
    connections: Annotated[list[ConnectionDoc], "each consumer online"]
    subscriptions: list[SubscriptionDoc]
    consumeType: Annotated[str, "CONSUME_ACTIVELY (pull), CONSUME_PASSIVELY (push) or CONSUME_POP"]
    messageModel: Annotated[str, "CLUSTERING or BROADCASTING"]
    consumeFromWhere: str


@command(
    "consumerConnection",
    "mqadmin consumerConnection -g OrdersConsumer",
    "mqadmin consumerConnection -g OrdersConsumer -b 127.0.0.1:10911   # as one broker sees it",
    document=ConsumerConnectionDoc,
)
def consumer_connection(group: GroupOpt, namesrv: NamesrvOpt = None, broker_addr: BrokerAddrOpt = None) -> None:
    """The clients of a consumer group (client id, address, language, version), its subscriptions, consume
    type, message model and where it starts consuming. Every broker of the group's route is asked and the
    clients are merged (a client may be connected to some brokers only); -b asks one broker. Exit code 1
    when no client of the group is online.
    """
    from mqadmin.cli.commands.consumer._shared import check_group, print_connections, run_consumers
    from mqadmin.cli.render import json_output, print_json, print_lines, print_table
    from mqadmin.cli.runner import check_broker_addr

    check_group(group)
    check_broker_addr(broker_addr)

    async def go(admin: AdminClient) -> ConsumerConnection:
        return await admin.consumer_connection(group, broker_addr)

    cc = run_consumers(namesrv, go)
    if json_output():
        print_json(connection_json(group, cc))
        return
    from mqadmin.cli.render import Column

    print_connections(cc.connections)
    print()
    subs = [(s.topic, s.sub_string) for s in cc.subscriptions.values()]
    print_table([Column("TOPIC"), Column("SUB EXPRESSION")], subs, "Subscriptions")
    print()
    print_lines(
        [
            f"ConsumeType: {cc.consume_type}",
            f"MessageModel: {cc.message_model}",
            f"ConsumeFromWhere: {cc.consume_from_where}",
        ]
    )


def connection_json(group: str, cc: ConsumerConnection) -> dict[str, Any]:
    return {
        "group": group,
        "connections": [c.to_json() for c in cc.connections],
        "subscriptions": [
            {
                "topic": s.topic,
                "subExpression": s.sub_string,
                "expressionType": s.expression_type,
                "subVersion": s.sub_version,
            }
            for s in cc.subscriptions.values()
        ],
        "consumeType": cc.consume_type,
        "messageModel": cc.message_model,
        "consumeFromWhere": cc.consume_from_where,
    }
