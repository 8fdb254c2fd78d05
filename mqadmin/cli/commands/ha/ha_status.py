"""haStatus: the replication status of one broker or every master of a cluster."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from mqadmin.cli.command import command
from mqadmin.cli.commands.ha._shared import CountOpt, HaStatusDoc, IntervalOpt
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, Target, TargetResult
    from mqadmin.model.ha import HaRuntimeInfo


@command(
    "haStatus",
    "mqadmin haStatus -c DefaultCluster",
    "mqadmin haStatus -b 127.0.0.1:10911 -i 5",
    document=HaStatusDoc,
)
def ha_status(
    namesrv: NamesrvOpt = None,
    cluster: ClusterOpt = None,
    broker_addr: BrokerAddrOpt = None,
    interval: IntervalOpt = None,
    count: CountOpt = None,
) -> None:
    """Show the replication (HA) status of one broker (-b) or of every master of a cluster (-c)
    (GET_BROKER_HA_STATUS), asked concurrently.

    A master shows its commit-log max offset, its slaves and how many are in sync, then one row per slave
    connection (ack offset, lag in bytes, transfer speed, in sync or falling behind); a slave shows its master,
    its max offset, transfer speed, last read/write and the master's flush offset. With -i the status is shown
    again every N seconds until Ctrl-C (or --count rounds); with --format json each round is one JSON line.
    """
    from mqadmin.cli.commands.ha._shared import watch_brokers
    from mqadmin.cli.params import exactly_one
    from mqadmin.cli.runner import broker_targets

    exactly_one(broker_addr, cluster)

    async def targets(admin: AdminClient) -> list[Target]:
        return await broker_targets(admin, broker_addr, cluster, masters_only=False)

    async def fetch(admin: AdminClient, chosen: list[Target]) -> list[TargetResult]:
        return await admin.ha_status_on(chosen)

    shown = ("haStatus", lambda info: info.to_json(), print_status)
    watch_brokers(namesrv, interval, count, "haStatus", targets, fetch, shown)


def print_status(results: Sequence[TargetResult]) -> None:
    from mqadmin.cli.commands.consumer._shared import local_time
    from mqadmin.cli.render import Column, print_table
    from mqadmin.cli.runner import print_results

    answered: list[tuple[TargetResult, HaRuntimeInfo]] = [(r, r.data) for r in results if r.ok and r.data]
    print_table(
        [
            Column("BROKER"),
            Column("ADDRESS"),
            Column("ROLE", styled=True),
            Column("MAX OFFSET", numeric=True),
            Column("SLAVES", numeric=True),
            Column("IN SYNC", numeric=True),
            Column("MASTER"),
        ],  # fmt: skip
        [
            (
                r.name or "?",
                r.addr,
                "master",
                i.master_commit_log_max_offset,
                len(i.connections),
                i.in_sync_slave_nums,
                "-",
            )  # fmt: skip
            if i.master
            else (r.name or "?", r.addr, "slave", i.client.max_offset, "-", "-", i.client.master_addr or "-")
            for r, i in answered
        ],
    )
    links = [(r, c) for r, i in answered if i.master for c in i.connections]
    if links:
        print()
        print_table(
            [
                Column("MASTER"),
                Column("SLAVE ADDRESS"),
                Column("ACK OFFSET", numeric=True),
                Column("DIFF", numeric=True),
                Column("KB/S", numeric=True),
                Column("STATUS", styled=True),
                Column("FROM", numeric=True),
            ],  # fmt: skip
            [
                (
                    r.addr,
                    c.addr,
                    c.slave_ack_offset,
                    c.diff,
                    f"{c.transferred_byte_in_second / 1024:.2f}",
                    "in sync" if c.in_sync else "fall behind",
                    c.transfer_from_where,
                )  # fmt: skip
                for r, c in links
            ],
        )
    slaves = [(r, i.client) for r, i in answered if not i.master]
    if slaves:
        print()
        print_table(
            [
                Column("SLAVE"),
                Column("MASTER"),
                Column("KB/S", numeric=True),
                Column("LAST READ"),
                Column("LAST WRITE"),
                Column("MASTER FLUSH OFFSET", numeric=True),
            ],  # fmt: skip
            [
                (
                    r.addr,
                    c.master_addr or "-",
                    f"{c.transferred_byte_in_second / 1024:.2f}",
                    local_time(c.last_read_timestamp),
                    local_time(c.last_write_timestamp),
                    c.master_flush_offset,
                )  # fmt: skip
                for r, c in slaves
            ],
        )
    failed = [r for r in results if not r.ok]
    if failed:
        if len(failed) < len(results):
            print()
        print_results(failed)
