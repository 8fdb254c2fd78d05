"""updateOrderConf: put, get or delete a topic's orderTopicConf in the name servers' KV store."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.errors import CliError, ExitCode, usage_error
from mqadmin.cli.params import NamesrvOpt, TopicOpt, check_topic

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


class Method(StrEnum):
    put = "put"
    get = "get"
    delete = "delete"


class OrderConfWrittenDoc(TypedDict):
    """-m put or delete."""

    topic: str
    method: Annotated[str, "put or delete"]
    orderConf: Annotated[str | None, "the value written (null: deleted)"]
    results: Annotated[list[TargetResultDoc], "each name server"]
    outcome: Outcome


class OrderConfReadDoc(TypedDict):
    """-m get."""

    topic: str
    orderConf: Annotated[str | None, "brokerName:queues;... (null: none stored)"]


@command(
    "updateOrderConf",
    "mqadmin updateOrderConf -t Orders -m put -v 'broker-a:8;broker-b:8'",
    "mqadmin updateOrderConf -t Orders -m get",
    "mqadmin updateOrderConf -t Orders -m delete",
    document=OrderConfWrittenDoc | OrderConfReadDoc,
)
def update_order_conf(
    topic: TopicOpt,
    method: Annotated[Method, Option("-m", "--method", help="put, get or delete.")],
    namesrv: NamesrvOpt = None,
    value: Annotated[
        str | None,
        Option("-v", "--orderConf", metavar="BROKER:QUEUES;…", help="For put: e.g. 'broker-a:4;broker-b:4'."),
    ] = None,
) -> None:
    """Put, get or delete a topic's orderTopicConf in the name servers' KV store (put and delete: all of them).

    put checks -v and warns about broker names the cluster does not have.
    """
    from mqadmin.cli.render import json_output, print_json, print_lines
    from mqadmin.cli.runner import exit_for_results, print_results, results_json, run_admin
    from mqadmin.model.order import ORDER_TOPIC_CONFIG

    check_topic(topic)
    if method == Method.get:

        async def get(admin: AdminClient) -> str | None:
            return await admin.get_order_conf(topic)

        current = run_admin(namesrv, get)
        if json_output():
            print_json({"topic": topic, "orderConf": current})
        elif current is not None:
            print_lines([current])
        if current is None:
            raise CliError(f"no orderTopicConf is stored for topic {topic!r}", None, ExitCode.FAILURE)
        return
    normalised = _checked(value) if method == Method.put else None

    async def change(admin: AdminClient) -> list[TargetResult]:
        if normalised is None:
            return await admin.delete_kv_config(ORDER_TOPIC_CONFIG, topic)
        await _warn_unknown_brokers(admin, normalised)
        return await admin.put_kv_config(ORDER_TOPIC_CONFIG, topic, normalised)

    results = run_admin(namesrv, change)
    if json_output():
        print_json(results_json(results, topic=topic, method=str(method), orderConf=normalised))
    else:
        print_results(results, "NAME SERVER")
    exit_for_results(results, f"updateOrderConf {method} {topic}")


def _checked(value: str | None) -> str:
    from mqadmin.model.order import format_order_conf, order_conf_problem, parse_order_conf

    if not value:
        raise usage_error(
            "put needs -v with the brokers and their queue counts", "for example: -v 'broker-a:4;broker-b:4'"
        )
    problem = order_conf_problem(value)
    if problem:
        raise usage_error(f"-v {value!r}: {problem}", "for example: -v 'broker-a:4;broker-b:4'")
    return format_order_conf(parse_order_conf(value))


async def _warn_unknown_brokers(admin: AdminClient, value: str) -> None:
    from mqadmin.cli.render import warn
    from mqadmin.model.order import parse_order_conf

    known = (await admin.cluster_info()).brokers
    unknown = sorted(set(parse_order_conf(value)) - set(known))
    if unknown:
        warn(f"orderTopicConf names brokers the name server does not know: {', '.join(unknown)}")
