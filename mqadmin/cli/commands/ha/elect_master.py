"""electMaster: have the controller elect a given replica of a broker name as its master."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.ha._shared import FoundControllerOpt, MasterDoc
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.model.ha import ReplicasInfo


class ElectionDoc(TypedDict):
    clusterName: str
    brokerName: str
    brokerId: Annotated[int, "the replica to elect"]
    before: Annotated[MasterDoc | None, "the master before (null: the controller knows no such broker)"]
    dryRun: bool
    elected: bool
    remark: Annotated[str | None, "why nothing was elected"]
    after: Annotated[MasterDoc | None, "the master after (null with --dry-run)"]
    syncStateSet: Annotated[list[int], "the broker ids in sync"]
    brokerAddrs: Annotated[dict[str, str], "broker id -> address"]


@command(
    "electMaster",
    "mqadmin electMaster -a 127.0.0.1:9878 -c DefaultCluster -bn broker-a -b 2",
    "mqadmin electMaster -a 127.0.0.1:9878 -c DefaultCluster -bn broker-a -b 2 --dry-run",
    document=ElectionDoc,
)
def elect_master(
    broker_id: Annotated[
        int, Option("-b", "--brokerId", min=0, metavar="ID", help="Controller id of the replica to elect.")
    ],
    broker_name: Annotated[str, Option("-bn", "--brokerName", metavar="BROKER", help="Broker name.")],
    cluster: Annotated[str, Option("-c", "--clusterName", metavar="CLUSTER", help="The broker's cluster.")],
    dry_run: Annotated[bool, Option("--dry-run", help="Show the current master; elect nothing.")] = False,
    controller: FoundControllerOpt = None,
    namesrv: NamesrvOpt = None,
) -> None:
    """Have the controller elect replica -b of broker name -bn as its master (CONTROLLER_ELECT_MASTER, an
    administrator's election: the controller elects that replica if it is alive and may be master).

    The request goes to the controller leader, found by asking -a for its metadata. The master before (from
    CONTROLLER_GET_SYNC_STATE_DATA) and after are shown, with the new master epoch, sync-state-set epoch and
    the broker group's replicas. --dry-run shows the current master and replicas and sends no election.
    """
    from mqadmin.cli.commands.ha._shared import controllers, leader_of, run_controller
    from mqadmin.cli.render import Column, json_output, print_json, print_table

    addrs = controllers(controller, namesrv, cluster)

    async def go(admin: AdminClient) -> dict[str, Any]:
        _, leader = await leader_of(admin, addrs)
        before = (await admin.sync_state_sets(leader, [broker_name])).get(broker_name)
        doc: dict[str, Any] = {"clusterName": cluster, "brokerName": broker_name, "brokerId": broker_id}
        doc["before"] = _master(before)
        doc["dryRun"] = dry_run
        if dry_run:
            doc.update(elected=False, remark="dry run: nothing sent", after=None)
            doc["syncStateSet"] = [r.broker_id for r in (before.in_sync if before else [])]
            doc["brokerAddrs"] = {str(r.broker_id): r.broker_address for r in _replicas(before)}
            return doc
        outcome = await admin.elect_master(leader, cluster, broker_name, broker_id)
        header, group = outcome.header, outcome.body.group
        doc["elected"] = outcome.elected
        doc["remark"] = None if outcome.elected else outcome.remark
        doc["after"] = {
            "masterBrokerId": header.master_broker_id,
            "masterAddress": header.master_address,
            "masterEpoch": header.master_epoch,
            "syncStateSetEpoch": header.sync_state_set_epoch,
        }
        doc["syncStateSet"] = outcome.body.sync_state_set
        doc["brokerAddrs"] = {str(k): v for k, v in (group.broker_addrs if group else {}).items()}
        return doc

    doc = run_controller(addrs, go)
    if json_output():
        print_json(doc)
        return
    before, after = doc["before"], doc["after"]
    rows: list[tuple[str, object]] = [("ClusterName", cluster), ("BrokerName", broker_name)]
    rows.append(("MasterBefore", _describe(before)))
    if after is None:
        rows.append(("WouldElect", f"broker id {broker_id} (dry run: nothing sent)"))
    elif not doc["elected"]:
        rows.append(("Result", f"unchanged: {doc['remark'] or 'the controller kept the master'}"))
    else:
        rows.append(("Result", "elected"))
    if after is not None:
        rows += [
            ("BrokerMasterAddr", after["masterAddress"] or "-"),
            ("MasterBrokerId", _text(after["masterBrokerId"])),
        ]
        rows += [("MasterEpoch", _text(after["masterEpoch"])), ("SyncStateSetEpoch", _text(after["syncStateSetEpoch"]))]
    rows.append(("SyncStateSet", ", ".join(str(i) for i in doc["syncStateSet"]) or "-"))
    rows += [(f"Broker {bid}", baddr) for bid, baddr in doc["brokerAddrs"].items()]
    print_table([Column("KEY"), Column("VALUE")], rows)


def _master(info: ReplicasInfo | None) -> dict[str, Any] | None:
    if info is None:
        return None
    return {
        "masterBrokerId": info.master_broker_id,
        "masterAddress": info.master_address,
        "masterEpoch": info.master_epoch,
        "syncStateSetEpoch": info.sync_state_set_epoch,
    }


def _replicas(info: ReplicasInfo | None) -> list[Any]:
    return [] if info is None else sorted(info.in_sync + info.not_in_sync, key=lambda r: r.broker_id)


def _describe(master: dict[str, Any] | None) -> str:
    if master is None:
        return "unknown to the controller"
    if master["masterBrokerId"] is None:
        return "none"
    return f"broker id {master['masterBrokerId']} at {master['masterAddress'] or '-'} (epoch {master['masterEpoch']})"


def _text(value: object) -> str:
    return "-" if value is None else str(value)
