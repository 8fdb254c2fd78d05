"""updateTopic: create a topic, or change only the settings given, on one broker or every master."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.topic._shared import TopicConfigDoc
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetGiven, TargetResultDoc
from mqadmin.cli.errors import usage_error
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt, TopicOpt, check_topic, exactly_one, parse_bool

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult
    from mqadmin.admin.topics import TopicChange

NEW = "8 for a new topic; an existing one keeps its value"


class TopicResultDoc(TargetResultDoc):
    config: Annotated[TopicConfigDoc | None, "the topic's config on the broker after the command (null: failed)"]


class OrderConfDoc(TypedDict):
    value: Annotated[str, "the orderTopicConf written: brokerName:writeQueueNums;..."]
    results: Annotated[list[TargetResultDoc], "each name server"]
    outcome: Outcome


class UpdateTopicDoc(TypedDict):
    topic: str
    target: TargetGiven
    results: Annotated[list[TopicResultDoc], "each broker"]
    orderConf: Annotated[OrderConfDoc | None, "-o true: the name servers' orderTopicConf (null otherwise)"]
    outcome: Annotated[Outcome, "over the brokers and the name servers"]


@command(
    "updateTopic",
    "mqadmin updateTopic -c DefaultCluster -t Orders",
    "mqadmin updateTopic -b 127.0.0.1:10911 -t Orders -r 16 -w 16",
    "mqadmin updateTopic -c DefaultCluster -t Orders -p 4           # only the permission changes",
    "mqadmin updateTopic -c DefaultCluster -t Fifo -o true -a +message.type=FIFO",
    "mqadmin updateTopic -c DefaultCluster -t Orders --if-not-exists  # never changes an existing topic",
    blocking=True,
    document=UpdateTopicDoc,
)
def update_topic(
    topic: TopicOpt,
    namesrv: NamesrvOpt = None,
    broker_addr: BrokerAddrOpt = None,
    cluster: ClusterOpt = None,
    read_queues: Annotated[
        int | None, Option("-r", "--readQueueNums", min=1, max=65535, metavar="N", help=f"Read queues [{NEW}].")
    ] = None,
    write_queues: Annotated[
        int | None, Option("-w", "--writeQueueNums", min=1, max=65535, metavar="N", help=f"Write queues [{NEW}].")
    ] = None,
    perm: Annotated[
        int | None,
        Option("-p", "--perm", metavar="2|4|6", help="2 write-only, 4 read-only, 6 read-write [6 for a new topic]."),
    ] = None,
    order: Annotated[
        str | None,
        Option("-o", "--order", metavar="true|false", help="Ordered topic; also writes orderTopicConf [false]."),
    ] = None,
    unit: Annotated[str | None, Option("-u", "--unit", metavar="true|false", help="Unit topic flag [false].")] = None,
    has_unit_sub: Annotated[
        str | None, Option("-s", "--hasUnitSub", metavar="true|false", help="Has-unit-subscription flag [false].")
    ] = None,
    attributes: Annotated[
        str | None,
        Option(
            "-a",
            "--attributes",
            metavar="+KEY=VALUE,-KEY",
            help="Attributes to set (+) or remove (-), e.g. +message.type=FIFO.",
        ),
    ] = None,
    if_not_exists: Annotated[
        bool, Option("--if-not-exists", help="Create only: a broker that has the topic is left as it is.")
    ] = False,
) -> None:
    """Create a topic, or change the settings given, on one broker (-b) or on every master of a cluster (-c).

    An existing topic keeps every setting the command does not give (queues, permission, order,
    attributes), so running the same command again reports "unchanged". Prints one row per broker:
    created, updated (with old→new per field), unchanged (nothing sent) or failed with the reason. A
    failing broker never stops the others.
    """
    exactly_one(broker_addr, cluster)
    check_topic(topic, allow_system=False)
    change = _change(topic, read_queues, write_queues, perm, order, unit, has_unit_sub, attributes)
    _run(namesrv, change, broker_addr, cluster, if_not_exists)


def _change(
    topic: str,
    read_queues: int | None,
    write_queues: int | None,
    perm: int | None,
    order: str | None,
    unit: str | None,
    has_unit_sub: str | None,
    attributes: str | None,
) -> TopicChange:
    from mqadmin.admin.topics import TopicChange
    from mqadmin.cli.commands.topic._shared import PERM_HINT, PERMS
    from mqadmin.model.topic import parse_attribute_ops

    if perm is not None and perm not in PERMS:
        raise usage_error(f"-p {perm} is not a valid permission", PERM_HINT)
    try:
        ops = parse_attribute_ops(attributes) if attributes else {}
    except ValueError as e:
        raise usage_error(str(e), "for example: -a +message.type=FIFO (or -a -key to remove one)") from None
    flags = [parse_bool(unit, "-u"), parse_bool(has_unit_sub, "-s")]
    sys_flag = None if flags == [None, None] else (1 if flags[0] else 0) | (2 if flags[1] else 0)
    return TopicChange(
        topic,
        read_queue_nums=read_queues,
        write_queue_nums=write_queues,
        perm=perm,
        topic_sys_flag=sys_flag,
        order=parse_bool(order, "-o"),
        attributes=ops,
    )


def _run(
    namesrv: str | None, change: TopicChange, broker_addr: str | None, cluster: str | None, create_only: bool
) -> None:
    from mqadmin.admin import outcome
    from mqadmin.cli.commands.topic._shared import check_reserved, topic_config_json
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import broker_targets, exit_for_results, print_results, results_json, run_admin

    async def go(admin: AdminClient) -> tuple[list[TargetResult], dict[str, Any] | None]:
        info = await admin.cluster_info()
        check_reserved(change.topic, info)
        targets = await broker_targets(admin, broker_addr, cluster, masters_only=True, what="topic creation", info=info)
        results = await admin.update_topic_on(targets, change, create_only=create_only)
        return results, await _order_conf(admin, change, results, merge=cluster is None)

    # -b: one broker, one request after the other; -o writes to every name server at once
    results, order_conf = run_admin(namesrv, go)
    ns_results: list[TargetResult] = order_conf["results"] if order_conf else []
    if json_output():
        doc = results_json(
            results, topic=change.topic, target={"cluster": cluster} if cluster else {"brokerAddr": broker_addr}
        )
        for entry, r in zip(doc["results"], results, strict=True):
            entry["config"] = topic_config_json(r.data) if r.data is not None else None
        doc["orderConf"] = results_json(ns_results, value=order_conf["value"]) if order_conf else None
        doc["outcome"] = outcome(results + ns_results)
        print_json(doc)
    else:
        print_results(results, "BROKER")
        if order_conf:
            print()
            print_results(ns_results, "NAME SERVER", f"orderTopicConf {order_conf['value']}")
    exit_for_results(results + ns_results, f"updateTopic {change.topic}")


async def _order_conf(
    admin: AdminClient, change: TopicChange, results: list[TargetResult], merge: bool
) -> dict[str, Any] | None:
    """With -o true: write orderTopicConf (broker:writeQueueNums of each broker that has the topic)."""
    from mqadmin.cli.render import warn

    if not change.order:
        return None
    done = {r.name: r.data.write_queue_nums for r in results if r.ok and r.name and r.data is not None}
    if not done:
        if any(r.ok for r in results):
            warn("orderTopicConf not written: the broker's name is unknown to the name server")
        return None
    value, ns_results = await admin.set_order_conf(change.topic, done, merge=merge)
    return {"value": value, "results": ns_results}
