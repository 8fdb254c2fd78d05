"""getSyncStateSet: what the controller knows of a broker name's replicas (master, epochs, in-sync set)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.ha._shared import (
    BrokerNameOpt,
    CountOpt,
    FoundControllerOpt,
    IntervalOpt,
    SyncStateDoc,
    one_of,
    rounds,
)
from mqadmin.cli.params import ClusterOpt, NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.model.ha import ReplicasInfo


class SyncStateSetDoc(TypedDict):
    """One round (with -i, one line per round)."""

    controller: Annotated[str, "the controller asked"]
    brokers: Annotated[list[SyncStateDoc], "each broker name asked"]


@command(
    "getSyncStateSet",
    "mqadmin getSyncStateSet -a 127.0.0.1:9878 -b broker-a",
    "mqadmin getSyncStateSet -a 127.0.0.1:9878 -c DefaultCluster -n 127.0.0.1:9876",
    document=SyncStateSetDoc,
)
def get_sync_state_set(
    controller: FoundControllerOpt = None,
    namesrv: NamesrvOpt = None,
    cluster: ClusterOpt = None,
    broker_name: BrokerNameOpt = None,
    interval: IntervalOpt = None,
    count: CountOpt = None,
) -> None:
    """Show what the controller knows of the replicas of a broker name (-b) or of every broker name of a
    cluster (-c, whose broker names come from the name server): the master's broker id, address and epoch,
    the sync-state-set epoch, and each replica in or out of the sync state set and whether it is alive.

    The request (CONTROLLER_GET_SYNC_STATE_DATA) goes to the controller leader, found by asking the first
    controller of -a for its metadata, as Java mqadmin does. -b needs no name server. With -i the sets are
    shown again every N seconds until Ctrl-C (or --count rounds).
    """
    from mqadmin.cli.commands.ha._shared import controller_errors, controllers, leader_of, run_controller
    from mqadmin.cli.render import json_output, print_json, print_json_line
    from mqadmin.cli.runner import run_admin

    one_of(broker_name, cluster, "a broker name")
    addrs = controllers(controller, namesrv, cluster)
    shown: list[int] = []

    async def go(admin: AdminClient) -> None:
        names = [broker_name] if broker_name else [b.broker_name for b in await admin.cluster_brokers(cluster or "")]
        addr, leader = await leader_of(admin, addrs)

        async def one_round(n: int) -> bool:
            table = await admin.sync_state_sets(leader, names)
            if json_output():
                (print_json_line if interval else print_json)(sync_state_json(addr, table))
            else:
                if n:
                    print()
                print_sync_states(table)
            shown.append(n)
            return True

        await rounds(interval, count, one_round)

    try:
        if cluster:
            run_admin(namesrv, controller_errors(go))
        else:
            run_controller(addrs, go)
    except KeyboardInterrupt:
        if not shown or interval is None:
            raise


def sync_state_json(controller: str, table: dict[str, ReplicasInfo]) -> dict[str, Any]:
    return {
        "controller": controller,
        "brokers": [{"brokerName": name, **info.to_json()} for name, info in table.items()],
    }


def print_sync_states(table: dict[str, ReplicasInfo]) -> None:
    from mqadmin.cli.render import Column, note, print_table

    if not table:
        note("the controller knows none of these broker names")
        return
    print_table(
        [
            Column("BROKER"),
            Column("MASTER ID", numeric=True),
            Column("MASTER ADDRESS"),
            Column("MASTER EPOCH", numeric=True),
            Column("SYNC STATE SET EPOCH", numeric=True),
            Column("IN SYNC", numeric=True),
        ],  # fmt: skip
        [
            (
                name,
                "-" if i.master_broker_id is None else i.master_broker_id,
                i.master_address or "-",
                i.master_epoch,
                i.sync_state_set_epoch,
                len(i.in_sync),
            )  # fmt: skip
            for name, i in table.items()
        ],
    )
    print()
    print_table(
        [Column("BROKER"), Column("BROKER ID", numeric=True), Column("ADDRESS"), Column("IN SYNC"), Column("ALIVE")],
        [
            (name, r.broker_id, r.broker_address, flag, "-" if r.alive is None else str(r.alive).lower())
            for name, i in table.items()
            for flag, replicas in (("yes", i.in_sync), ("no", i.not_in_sync))
            for r in replicas
        ],
    )
