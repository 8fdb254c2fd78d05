"""updateSubGroup: create a subscription group, or change only the settings given, on one broker or every master."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.group._shared import GroupResultDoc
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetGiven
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, GroupOpt, NamesrvOpt, exactly_one, parse_bool

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult
    from mqadmin.admin.groups import GroupChange

NEW = "for a new group; an existing one keeps its value"


def _flag(short: str, name: str, what: str, default: bool) -> Any:
    """A ``true|false`` option taking a value, as Java's tool has them (``-s false``)."""
    return Option(short, name, metavar="true|false", help=f"{what} [{str(default).lower()} {NEW}].")


def _number(short: str, name: str, what: str, default: int) -> Any:
    return Option(short, name, min=0, metavar="N", help=f"{what} [{default} {NEW}].")


class UpdateSubGroupDoc(TypedDict):
    group: str
    target: TargetGiven
    results: list[GroupResultDoc]
    outcome: Outcome


@command(
    "updateSubGroup",
    "mqadmin updateSubGroup -c DefaultCluster -g OrdersConsumer",
    "mqadmin updateSubGroup -c DefaultCluster -g OrdersConsumer -r 3      # only retryMaxTimes changes",
    "mqadmin updateSubGroup -b 127.0.0.1:10911 -g OrdersConsumer -s false  # stop consumption",
    "mqadmin updateSubGroup -c DefaultCluster -g G "
    """-p '{"type":"CUSTOMIZED","customizedRetryPolicy":{"next":[1000,5000,10000]}}'""",
    "mqadmin updateSubGroup -c DefaultCluster -g G --if-not-exists   # never changes an existing group",
    blocking=True,
    document=UpdateSubGroupDoc,
)
def update_sub_group(
    group: GroupOpt,
    namesrv: NamesrvOpt = None,
    broker_addr: BrokerAddrOpt = None,
    cluster: ClusterOpt = None,
    consume_enable: Annotated[str | None, _flag("-s", "--consumeEnable", "Consumption allowed", True)] = None,
    from_min: Annotated[
        str | None, _flag("-m", "--consumeFromMinEnable", "A new consumer starts at the minimum offset", True)
    ] = None,
    broadcast: Annotated[
        str | None, _flag("-d", "--consumeBroadcastEnable", "Broadcast consumption allowed", True)
    ] = None,
    orderly: Annotated[str | None, _flag("-o", "--consumeMessageOrderly", "Orderly consumption (5.x)", False)] = None,
    retry_queues: Annotated[int | None, _number("-q", "--retryQueueNums", "Retry queues", 1)] = None,
    retry_max: Annotated[int | None, _number("-r", "--retryMaxTimes", "Redeliveries before the DLQ", 16)] = None,
    broker_id: Annotated[int | None, _number("-i", "--brokerId", "Broker id to consume from", 0)] = None,
    slow_broker: Annotated[
        int | None, _number("-w", "--whichBrokerWhenConsumeSlowly", "Broker id when consuming slowly", 1)
    ] = None,
    notify: Annotated[
        str | None, _flag("-a", "--notifyConsumerIdsChanged", "Notify consumers of rebalances", True)
    ] = None,
    policy: Annotated[
        str | None,
        Option(
            "-p",
            "--groupRetryPolicy",
            metavar="JSON",
            help='Retry policy (5.x), e.g. {"type":"EXPONENTIAL","exponentialRetryPolicy":'
            '{"initial":5000,"max":7200000,"multiplier":2}} [{"type":"CUSTOMIZED"} for a new group].',
        ),
    ] = None,
    attributes: Annotated[
        str | None,
        Option(
            "--attributes",
            metavar="+KEY=VALUE,-KEY",
            help="Attributes (5.5) to set (+) or remove (-), e.g. +priority.factor=10.",
        ),
    ] = None,
    if_not_exists: Annotated[
        bool, Option("--if-not-exists", help="Create only: a broker that has the group leaves it as it is.")
    ] = False,
) -> None:
    """Create a subscription group, or change the settings given, on one broker (-b) or every master of a cluster (-c).

    An existing group keeps every setting the command does not give (Java's tool resets broadcast and
    consume-from-min to false and everything else to its default), so running the same command again reports
    "unchanged". Prints one row per broker: created, updated (old→new per setting), unchanged (nothing sent)
    or failed with the reason. A failing broker never stops the others.
    """
    from mqadmin.admin.groups import GroupChange
    from mqadmin.cli.commands.group._shared import check_group, parse_attributes, parse_policy

    exactly_one(broker_addr, cluster)
    check_group(group, creating=True)
    change = GroupChange(
        group,
        consume_enable=parse_bool(consume_enable, "-s"),
        consume_from_min_enable=parse_bool(from_min, "-m"),
        consume_broadcast_enable=parse_bool(broadcast, "-d"),
        consume_message_orderly=parse_bool(orderly, "-o"),
        retry_queue_nums=retry_queues,
        retry_max_times=retry_max,
        broker_id=broker_id,
        which_broker_when_consume_slowly=slow_broker,
        notify_consumer_ids_changed_enable=parse_bool(notify, "-a"),
        group_retry_policy=parse_policy(policy, "-p") if policy is not None else None,
        attributes=parse_attributes(attributes, "--attributes") if attributes else {},
    )
    _run(namesrv, change, broker_addr, cluster, if_not_exists)


def _run(
    namesrv: str | None, change: GroupChange, broker_addr: str | None, cluster: str | None, create_only: bool
) -> None:
    from mqadmin.admin import Status
    from mqadmin.cli.commands.group._shared import group_config_json, warn_not_kept
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import broker_targets, exit_for_results, print_results, results_json, run_admin

    async def go(admin: AdminClient) -> list[TargetResult]:
        targets = await broker_targets(admin, broker_addr, cluster, masters_only=True, what="group creation")
        return await admin.update_group_on(targets, change, create_only=create_only)

    results = run_admin(namesrv, go)
    if json_output():
        doc = results_json(
            results, group=change.group, target={"cluster": cluster} if cluster else {"brokerAddr": broker_addr}
        )
        for entry, r in zip(doc["results"], results, strict=True):
            entry["config"] = group_config_json(r.data) if r.data is not None else None
        print_json(doc)
    else:
        print_results(results, "BROKER")
    warn_not_kept([r for r in results if not (create_only and r.status == Status.UNCHANGED)], change)
    exit_for_results(results, f"updateSubGroup {change.group}")
