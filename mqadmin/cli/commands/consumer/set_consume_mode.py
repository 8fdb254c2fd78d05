"""setConsumeMode: whether a group reads a topic by pull or by pop (5.x brokers)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.errors import usage_error
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt, exactly_one

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult

MODES = ("PULL", "POP")


class ConsumeModeDoc(TypedDict):
    topic: str
    group: str
    mode: Annotated[str, "PULL or POP"]
    popShareQueueNum: int
    results: list[TargetResultDoc]
    outcome: Outcome


@command(
    "setConsumeMode",
    "mqadmin setConsumeMode -c DefaultCluster -t Orders -g OrdersConsumer -m POP",
    "mqadmin setConsumeMode -b 127.0.0.1:10911 -t Orders -g OrdersConsumer -m POP -q 2",
    document=ConsumeModeDoc,
)
def set_consume_mode(
    topic: Annotated[str, Option("-t", "--topicName", metavar="TOPIC", help="Topic name.")],
    group: Annotated[str, Option("-g", "--groupName", metavar="GROUP", help="Consumer group name.")],
    mode: Annotated[str, Option("-m", "--mode", metavar="PULL|POP", help="How the group reads the topic.")],
    namesrv: NamesrvOpt = None,
    broker_addr: BrokerAddrOpt = None,
    cluster: ClusterOpt = None,
    pop_share: Annotated[
        int,
        Option(
            "-q", "--popShareQueueNum", min=0, metavar="N", help="In POP mode, clients share each queue with N others."
        ),
    ] = 0,
) -> None:
    """Set how a consumer group reads a topic on one broker (-b) or every master of a cluster (-c): PULL
    (each client owns its queues) or POP (the broker hands out messages; with -q N a client also reads the
    queues of the N clients after it). 5.x consumers that leave queue assignment to the broker
    (``clientRebalance=false``) ask for it; 4.9 brokers do not know the request. One row per broker:
    updated (old→new), unchanged, or failed with the reason.
    """
    from mqadmin.cli.commands.consumer._shared import check_group, run_consumers
    from mqadmin.cli.params import check_topic
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import broker_targets, exit_for_results, print_results, results_json
    from mqadmin.model.rpc.consumers import RequestMode

    exactly_one(broker_addr, cluster)
    check_topic(topic)
    check_group(group)
    wanted = mode.strip().upper()
    if wanted not in MODES:
        raise usage_error(f"-m {mode!r} is not a consume mode", "use -m PULL or -m POP")
    change = RequestMode(topic, group, wanted, pop_share)

    async def go(admin: AdminClient) -> list[TargetResult]:
        targets = await broker_targets(admin, broker_addr, cluster, masters_only=True, what="setConsumeMode")
        return await admin.set_request_mode_on(targets, change)

    results = run_consumers(namesrv, go)
    if json_output():
        print_json(results_json(results, topic=topic, group=group, mode=wanted, popShareQueueNum=pop_share))
    else:
        print_results(results)
    exit_for_results(results, f"setConsumeMode {group} {topic}")
