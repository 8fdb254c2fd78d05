"""Choosing the brokers of the broker commands: ``-b`` one address, ``-c`` a cluster's masters (with its
slaves where Java's command includes them) and, for the store-maintenance commands as in Java, every
broker of every cluster when neither is given."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqadmin.cli.errors import usage_error

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, Target


def at_most_one(broker_addr: str | None, cluster: str | None) -> None:
    from mqadmin.cli.runner import check_broker_addr

    if broker_addr and cluster:
        raise usage_error("give either -b (one broker) or -c (a cluster), not both")
    check_broker_addr(broker_addr)


async def brokers(admin: AdminClient, broker_addr: str | None, cluster: str | None, *, slaves: bool) -> list[Target]:
    """The targets of ``-b``/``-c`` (every cluster when neither): each broker's master, and its slaves too
    with ``slaves``, sorted by broker name and id."""
    from mqadmin.admin.fanout import every_address, masters
    from mqadmin.cli.runner import broker_targets

    if broker_addr:
        return await broker_targets(admin, broker_addr, None, masters_only=False)
    info = await admin.cluster_info()
    found = await admin.cluster_brokers(cluster, info) if cluster else list(info.brokers.values())
    return every_address(found) if slaves else masters(found)
