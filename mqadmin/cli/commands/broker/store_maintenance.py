"""cleanExpiredCQ, cleanUnusedTopic and deleteExpiredCommitLog: one store-maintenance request without
arguments on one broker (-b), a cluster's brokers (-c), or every broker of every cluster, masters and slaves
(each keeps its own store), as Java mqadmin sends them. The commands differ only in the request they send."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.params import BrokerAddrOpt, NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


class MaintenanceDoc(TypedDict):
    dryRun: bool
    results: list[TargetResultDoc]
    outcome: Outcome


WHERE = """

    On one broker (-b), a cluster's brokers (-c), or without them every broker of every cluster, masters and
    slaves, as Java mqadmin does. One row per broker: ok, or failed with the broker's answer; --dry-run lists
    the brokers and sends nothing.
    """
WHAT = {
    "cleanExpiredCQ": "Drop the consume-queue files whose messages already left the commit log "
    "(CLEAN_EXPIRED_CONSUMEQUEUE).",
    "cleanUnusedTopic": "Drop the stored queues of topics the broker no longer has (CLEAN_UNUSED_TOPIC).",
    "deleteExpiredCommitLog": "Delete the commit-log files past their retention (fileReservedTime) now instead "
    "of at the broker's deleteWhen hour (DELETE_EXPIRED_COMMITLOG).",
}


def _register(name: str) -> None:
    def maintenance(
        namesrv: NamesrvOpt = None,
        broker_addr: BrokerAddrOpt = None,
        cluster: Annotated[
            str | None,
            Option("-c", "--cluster", metavar="CLUSTER", help="Cluster name [every cluster].", show_default=False),
        ] = None,
        dry_run: Annotated[bool, Option("--dry-run", help="Show the brokers it would run on; send nothing.")] = False,
    ) -> None:
        run_maintenance(name, namesrv, broker_addr, cluster, dry_run)

    maintenance.__doc__ = WHAT[name] + WHERE
    command(
        name,
        f"mqadmin {name} -b 127.0.0.1:10911",
        f"mqadmin {name} -c DefaultCluster --dry-run   # the brokers it would run on",
        document=MaintenanceDoc,
    )(maintenance)


def run_maintenance(
    name: str, namesrv: str | None, broker_addr: str | None, cluster: str | None, dry_run: bool
) -> None:
    """Send the request of command ``name`` (``mqadmin.admin.brokers.MAINTENANCE``) to each broker and print one
    row per broker."""
    from mqadmin.admin.brokers import MAINTENANCE
    from mqadmin.cli.commands.broker._shared import at_most_one, brokers
    from mqadmin.cli.render import json_output, note, print_json
    from mqadmin.cli.runner import exit_for_results, print_results, results_json, run_admin

    at_most_one(broker_addr, cluster)

    async def go(admin: AdminClient) -> list[TargetResult]:
        targets = await brokers(admin, broker_addr, cluster, slaves=True)
        return await admin.broker_maintenance(targets, MAINTENANCE[name], dry_run=dry_run)

    results = run_admin(namesrv, go)
    if json_output():
        print_json(results_json(results, dryRun=dry_run))
    else:
        print_results(results)
        if dry_run:
            note(f"dry run: {name} was not sent; {len(results)} broker(s) would run it")
    exit_for_results(results, name)


for _name in WHAT:
    _register(_name)
