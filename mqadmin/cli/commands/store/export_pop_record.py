"""exportPopRecord: have brokers move their POP consumption records from RocksDB to the file store."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt, parse_bool

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


class PopRecordExportDoc(TypedDict):
    dryRun: bool
    results: list[TargetResultDoc]
    outcome: Outcome


@command(
    "exportPopRecord",
    "mqadmin exportPopRecord -c DefaultCluster --dry-run",
    "mqadmin exportPopRecord -b 127.0.0.1:10911",
    document=PopRecordExportDoc,
)
def export_pop_record(
    namesrv: NamesrvOpt = None,
    cluster: ClusterOpt = None,
    broker_addr: BrokerAddrOpt = None,
    dry_run_value: Annotated[
        str | None,
        Option(
            "-d", "--dryRun", metavar="true|false", help="true: send nothing (as --dry-run).", show_default=False
        ),  # fmt: skip
    ] = None,
    dry_run: Annotated[bool, Option("--dry-run", help="List the brokers; send nothing.")] = False,
) -> None:
    """Have one broker (-b) or every broker of a cluster (-c: masters and slaves, as Java mqadmin) move its POP
    consumption records from its RocksDB store to the file store (POP_ROLLBACK, Apache 5.3+ brokers),
    concurrently; each is allowed 30 seconds.

    A broker without the RocksDB POP store (popConsumerKVServiceEnable=false) has nothing to move and answers
    success. --dry-run (or -d true) lists the brokers and sends nothing. Java mqadmin reads -d the other way
    round (-d false is its dry run); mqadmin takes -d true as a dry run.
    """
    from mqadmin.admin.fanout import every_address
    from mqadmin.cli.params import exactly_one
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import broker_targets, exit_for_results, print_results, results_json, run_admin

    exactly_one(broker_addr, cluster)
    dry = dry_run or bool(parse_bool(dry_run_value, "-d"))

    async def go(admin: AdminClient) -> list[TargetResult]:
        if cluster:
            targets = every_address(await admin.cluster_brokers(cluster))
        else:
            targets = await broker_targets(admin, broker_addr, None, masters_only=False)
        return await admin.export_pop_records_on(targets, dry)

    results = run_admin(namesrv, go)
    if json_output():
        print_json(results_json(results, dryRun=dry))
    else:
        print_results(results)
    exit_for_results(results, "exportPopRecord")
