"""getColdDataFlowCtrInfo, updateColdDataFlowCtrGroupConfig and removeColdDataFlowCtrGroupConfig: cold-read
flow control of consumer groups (5.x brokers throttle a group that reads too much from disk)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt, exactly_one

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult

ColdGroupOpt = Annotated[str, Option("-g", "--consumerGroup", metavar="GROUP", help="Consumer group.")]


class ColdReadResultDoc(TargetResultDoc):
    info: Annotated[
        dict[str, Any] | None,
        "as the broker reports it: configTable, runtimeTable, cgColdReadThreshold, globalColdReadThreshold, "
        "globalAcc (null: failed)",
    ]


class ColdReadInfoDoc(TypedDict):
    results: list[ColdReadResultDoc]
    outcome: Outcome


class ColdReadThresholdDoc(TypedDict):
    group: str
    threshold: Annotated[int, "bytes per second"]
    results: list[TargetResultDoc]
    outcome: Outcome


class ColdReadRemovedDoc(TypedDict):
    group: str
    results: list[TargetResultDoc]
    outcome: Outcome


@command(
    "getColdDataFlowCtrInfo",
    "mqadmin getColdDataFlowCtrInfo -b 127.0.0.1:10911",
    "mqadmin getColdDataFlowCtrInfo -c DefaultCluster",
    document=ColdReadInfoDoc,
)
def get_cold_data_flow_ctr_info(
    namesrv: NamesrvOpt = None, broker_addr: BrokerAddrOpt = None, cluster: ClusterOpt = None
) -> None:
    """Show the cold-read flow control of one broker (-b) or of every broker, masters and slaves, of a cluster
    (-c) (GET_COLD_DATA_FLOW_CTR_INFO, 5.x): the thresholds set per group (configTable), the groups reading
    cold data now (runtimeTable) and the global thresholds, as the broker reports them.
    """
    from mqadmin.cli.render import Column, json_output, print_json, print_table
    from mqadmin.cli.runner import exit_for_results, print_results, results_json, run_admin
    from mqadmin.wire import fastjson

    exactly_one(broker_addr, cluster)

    async def go(admin: AdminClient) -> list[TargetResult]:
        from mqadmin.cli.commands.broker._shared import brokers

        return await admin.cold_data_flow_ctr_info(await brokers(admin, broker_addr, cluster, slaves=True))

    results = run_admin(namesrv, go)
    if json_output():
        doc = results_json(results)
        for entry, r in zip(doc["results"], results, strict=True):
            entry["info"] = r.data if r.ok else None
        print_json(doc)
    else:
        rows = [
            (r.name, r.addr, key, fastjson.dumps(value) if isinstance(value, (dict, list)) else str(value))
            for r in results
            if r.ok
            for key, value in sorted((r.data or {}).items())
        ]
        print_table([Column("BROKER"), Column("ADDRESS"), Column("KEY"), Column("VALUE")], rows)
        failed = [r for r in results if not r.ok]
        if failed:
            print()
            print_results(failed)
    exit_for_results(results, "getColdDataFlowCtrInfo")


@command(
    "updateColdDataFlowCtrGroupConfig",
    "mqadmin updateColdDataFlowCtrGroupConfig -c DefaultCluster -g Reports -v 1073741824",
    document=ColdReadThresholdDoc,
)
def update_cold_data_flow_ctr_group_config(
    group: ColdGroupOpt,
    threshold: Annotated[
        int, Option("-v", "--threshold", metavar="BYTES", min=0, help="Cold bytes the group may read.")
    ],
    namesrv: NamesrvOpt = None,
    broker_addr: BrokerAddrOpt = None,
    cluster: ClusterOpt = None,
) -> None:
    """Set a consumer group's cold-read threshold (UPDATE_COLD_DATA_FLOW_CTR_CONFIG, 5.x) on one broker (-b) or
    every master of a cluster (-c): created, updated (old→new) or unchanged per broker. The broker keeps it in
    memory only (a restart forgets it), as in Apache RocketMQ.
    """
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import exit_for_results, print_results, results_json, run_admin

    exactly_one(broker_addr, cluster)

    async def go(admin: AdminClient) -> list[TargetResult]:
        from mqadmin.cli.commands.broker._shared import brokers

        targets = await brokers(admin, broker_addr, cluster, slaves=False)
        return await admin.update_cold_data_flow_ctr(targets, group, threshold)

    results = run_admin(namesrv, go)
    if json_output():
        print_json(results_json(results, group=group, threshold=threshold))
    else:
        print_results(results)
    exit_for_results(results, f"updateColdDataFlowCtrGroupConfig {group}")


@command(
    "removeColdDataFlowCtrGroupConfig",
    "mqadmin removeColdDataFlowCtrGroupConfig -c DefaultCluster -g Reports",
    document=ColdReadRemovedDoc,
)
def remove_cold_data_flow_ctr_group_config(
    group: ColdGroupOpt, namesrv: NamesrvOpt = None, broker_addr: BrokerAddrOpt = None, cluster: ClusterOpt = None
) -> None:
    """Remove a consumer group's cold-read threshold (REMOVE_COLD_DATA_FLOW_CTR_CONFIG, 5.x) from one broker
    (-b) or every master of a cluster (-c): deleted where it had one, not found elsewhere (nothing sent).
    """
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import exit_for_results, print_results, results_json, run_admin

    exactly_one(broker_addr, cluster)

    async def go(admin: AdminClient) -> list[TargetResult]:
        from mqadmin.cli.commands.broker._shared import brokers

        return await admin.remove_cold_data_flow_ctr(await brokers(admin, broker_addr, cluster, slaves=False), group)

    results = run_admin(namesrv, go)
    if json_output():
        print_json(results_json(results, group=group))
    else:
        print_results(results)
    exit_for_results(results, f"removeColdDataFlowCtrGroupConfig {group}")
