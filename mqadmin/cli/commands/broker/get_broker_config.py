"""getBrokerConfig: the config of one broker, or of every broker (masters and slaves) of a cluster."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqadmin.cli.command import command
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt, exactly_one

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


@command(
    "getBrokerConfig",
    "mqadmin getBrokerConfig -b 127.0.0.1:10911",
    "mqadmin getBrokerConfig -c DefaultCluster | grep flushDiskType",
)
def get_broker_config(
    namesrv: NamesrvOpt = None, broker_addr: BrokerAddrOpt = None, cluster: ClusterOpt = None
) -> None:
    """Show the config of one broker (-b) or of every broker, masters and slaves, of a cluster (-c)
    (GET_BROKER_CONFIG), asked concurrently.

    One KEY/VALUE row per config key, sorted; with -c each row starts with the broker's name, id and address.
    A broker that does not answer is reported after the others (exit 3, or 1 if none answered).
    """
    from mqadmin.cli.commands.broker._shared import brokers
    from mqadmin.cli.render import Column, json_output, print_json, print_table
    from mqadmin.cli.runner import exit_for_results, print_results, results_json, run_admin

    exactly_one(broker_addr, cluster)

    async def go(admin: AdminClient) -> list[TargetResult]:
        return await admin.broker_configs(await brokers(admin, broker_addr, cluster, slaves=True))

    results = run_admin(namesrv, go)
    if json_output():
        doc = results_json(results, cluster=cluster)
        for entry, r in zip(doc["results"], results, strict=True):
            entry["config"] = dict(sorted(r.data.items())) if r.ok else None
        print_json(doc)
    else:
        answered = [r for r in results if r.ok]
        if broker_addr:
            print_table([Column("KEY"), Column("VALUE")], sorted(answered[0].data.items()) if answered else [])
        else:
            rows = [(r.name, r.addr, k, v) for r in answered for k, v in sorted(r.data.items())]
            print_table([Column("BROKER"), Column("ADDRESS"), Column("KEY"), Column("VALUE")], rows)
        failed = [r for r in results if not r.ok]
        if failed:
            print()
            print_results(failed)
    exit_for_results(results, "getBrokerConfig")
