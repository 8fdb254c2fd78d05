"""getBrokerConfig: the config of one broker, or of every broker (masters and slaves) of a cluster."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqadmin.cli.command import command
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt, exactly_one
from mqadmin.cli.views.config import BrokerConfigsDoc

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


@command(
    "getBrokerConfig",
    "mqadmin getBrokerConfig -b 127.0.0.1:10911",
    "mqadmin getBrokerConfig -c DefaultCluster | grep flushDiskType",
    blocking=True,
    document=BrokerConfigsDoc,
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
    from mqadmin.cli.runner import run_admin
    from mqadmin.cli.views.config import show_configs

    exactly_one(broker_addr, cluster)

    async def go(admin: AdminClient) -> list[TargetResult]:
        return await admin.broker_configs(await brokers(admin, broker_addr, cluster, slaves=True))

    results = run_admin(namesrv, go)
    show_configs(
        results, "getBrokerConfig", single=bool(broker_addr), who=["BROKER", "ADDRESS"],
        who_of=lambda r: (r.name, r.addr), cluster=cluster,
    )  # fmt: skip
