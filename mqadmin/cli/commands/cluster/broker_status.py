"""brokerStatus: runtime statistics of one broker, or of every broker (masters and slaves) of a cluster."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt, exactly_one

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.cli.commands.cluster._rows import BrokerRow


class BrokerStatusRowDoc(TypedDict):
    broker: str
    brokerId: Annotated[int, "0: the master"]
    addr: str
    info: Annotated[dict[str, str] | None, "the broker's runtime statistics, by name, as it sends them (null: failed)"]
    error: Annotated[str | None, "why they could not be read (null: they were)"]


class BrokerStatusDoc(TypedDict):
    brokers: list[BrokerStatusRowDoc]


@command(
    "brokerStatus",
    "mqadmin brokerStatus -b 127.0.0.1:10911",
    "mqadmin brokerStatus -c DefaultCluster",
    blocking=True,
    document=BrokerStatusDoc,
)
def broker_status(namesrv: NamesrvOpt = None, broker_addr: BrokerAddrOpt = None, cluster: ClusterOpt = None) -> None:
    """Runtime statistics of one broker (-b) or of every broker, masters and slaves, of a cluster (-c)."""
    from mqadmin.cli.commands.cluster._rows import BrokerRow, as_results, broker_rows
    from mqadmin.cli.render import Column, json_output, print_json, print_table
    from mqadmin.cli.runner import exit_for_results, run_admin

    exactly_one(broker_addr, cluster)

    async def go(admin: AdminClient) -> list[BrokerRow]:
        from mqadmin.admin.fanout import target_of

        info = await admin.cluster_info()
        if cluster:
            return await broker_rows(admin, info, cluster)
        assert broker_addr is not None
        t = target_of(broker_addr, info)
        return [BrokerRow(t.cluster, t.name, t.broker_id, t.addr, await admin.broker_runtime_info(broker_addr), None)]

    rows = run_admin(namesrv, go)
    if json_output():
        doc: BrokerStatusDoc = {
            "brokers": [
                {"broker": r.broker, "brokerId": r.broker_id, "addr": r.addr, "info": r.info, "error": r.error}
                for r in rows
            ]
        }
        print_json(doc)
    elif broker_addr:
        print_table([Column("KEY"), Column("VALUE")], sorted((rows[0].info or {}).items()))
    else:
        table = [(r.addr, k, v) for r in rows for k, v in sorted((r.info or {}).items())]
        table += [(r.addr, "error", r.error) for r in rows if r.error]
        print_table([Column("ADDRESS"), Column("KEY"), Column("VALUE")], table)
    exit_for_results(as_results(rows), "brokerStatus")
