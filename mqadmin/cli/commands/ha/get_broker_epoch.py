"""getBrokerEpoch: the epoch entries of every replica (master and slaves) of a broker name or a cluster."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from mqadmin.cli.command import command
from mqadmin.cli.commands.ha._shared import BrokerEpochDoc, BrokerNameOpt, CountOpt, IntervalOpt, one_of
from mqadmin.cli.params import ClusterOpt, NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, Target, TargetResult
    from mqadmin.model.ha import EpochCache, EpochEntry


@command(
    "getBrokerEpoch",
    "mqadmin getBrokerEpoch -b broker-a",
    "mqadmin getBrokerEpoch -c DefaultCluster --format json",
    document=BrokerEpochDoc,
)
def get_broker_epoch(
    namesrv: NamesrvOpt = None,
    cluster: ClusterOpt = None,
    broker_name: BrokerNameOpt = None,
    interval: IntervalOpt = None,
    count: CountOpt = None,
) -> None:
    """Show the epoch entries of every replica (master and slaves) of a broker name (-b) or of a cluster (-c)
    (GET_BROKER_EPOCH_CACHE), asked concurrently.

    One row per replica and epoch: the epoch, the commit-log offset it starts at and the one it ends at (the
    current epoch ends at the replica's max offset, as Java mqadmin shows it). Only brokers in controller mode
    (enableControllerMode=true) keep epochs; others answer "this request only for controllerMode" (a failed
    row). With -i the entries are shown again every N seconds until Ctrl-C (or --count rounds).
    """
    from mqadmin.cli.commands.ha._shared import watch_brokers

    one_of(broker_name, cluster, "a broker name")

    async def targets(admin: AdminClient) -> list[Target]:
        return await replica_targets(admin, broker_name, cluster)

    async def fetch(admin: AdminClient, chosen: list[Target]) -> list[TargetResult]:
        return await admin.epoch_caches_on(chosen)

    watch_brokers(namesrv, interval, count, "getBrokerEpoch", targets, fetch, ("epochCache", epoch_json, print_epochs))


async def replica_targets(admin: AdminClient, broker_name: str | None, cluster: str | None) -> list[Target]:
    """Every address (master and slaves) of a broker name, or of every broker of a cluster."""
    from mqadmin.admin.fanout import every_address
    from mqadmin.cli.errors import usage_error

    info = await admin.cluster_info()
    if cluster:
        return every_address(await admin.cluster_brokers(cluster, info))
    assert broker_name is not None
    data = info.brokers.get(broker_name)
    if data is None:
        known = ", ".join(sorted(info.brokers)) or "none registered"
        raise usage_error(f"broker {broker_name!r} is not registered with the name server (brokers: {known})")
    return every_address([data])


def epoch_json(cache: EpochCache) -> dict[str, object]:
    doc = cache.to_json()
    doc["epochList"] = [e.to_json() for e in cache.shown_epochs()]
    return doc


def print_epochs(results: Sequence[TargetResult]) -> None:
    from mqadmin.cli.render import Column, print_table
    from mqadmin.cli.runner import print_results

    rows = []
    for r in results:
        if not (r.ok and r.data):
            continue
        cache: EpochCache = r.data
        epochs: list[EpochEntry | None] = [*cache.shown_epochs()] or [None]
        for e in epochs:
            head = (cache.cluster_name, cache.broker_name or r.name, r.addr, cache.broker_id)
            rows.append(head + ((e.epoch, e.start_offset, e.end_offset) if e else ("-", "-", "-")))
    print_table(
        [
            Column("CLUSTER"),
            Column("BROKER"),
            Column("ADDRESS"),
            Column("BID", numeric=True),
            Column("EPOCH", numeric=True),
            Column("START OFFSET", numeric=True),
            Column("END OFFSET", numeric=True),
        ],  # fmt: skip
        rows,
    )
    failed = [r for r in results if not r.ok]
    if failed:
        if len(failed) < len(results):
            print()
        print_results(failed)
