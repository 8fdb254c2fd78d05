"""rocksDBConfigToJson: have brokers write the metadata they keep in RocksDB to their JSON config files."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.errors import usage_error
from mqadmin.cli.params import BrokerAddrOpt, NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult

LOCAL_MODE = (
    "Java's local mode (-p/-e/-j) opens the broker's RocksDB files on the broker host; mqadmin has no RocksDB "
    "reader: run Java's mqadmin rocksDBConfigToJson -p there, or use -b/-c to have the broker export its files"
)


class RocksDbExportDoc(TypedDict):
    configTypes: Annotated[list[str], "topics, subscriptionGroups, consumerOffsets: what each broker exported"]
    results: list[TargetResultDoc]
    outcome: Outcome


@command(
    "rocksDBConfigToJson",
    "mqadmin rocksDBConfigToJson -b 127.0.0.1:10911",
    "mqadmin rocksDBConfigToJson -c DefaultCluster -t 'topics;subscriptionGroups'",
    document=RocksDbExportDoc,
)
def rocks_db_config_to_json(
    namesrv: NamesrvOpt = None,
    cluster: Annotated[
        str | None, Option("-c", "--cluster", metavar="CLUSTER", help="Every master of this cluster.")
    ] = None,
    broker_addr: BrokerAddrOpt = None,
    config_type: Annotated[
        str | None,
        Option(
            "-t",
            "--configType",
            metavar="TYPE[;TYPE]",
            help="topics, subscriptionGroups and/or consumerOffsets, ';'-separated [all three].",
            show_default=False,
        ),
    ] = None,
    config_path: Annotated[str | None, Option("-p", "--configPath", hidden=True)] = None,
    export_file: Annotated[str | None, Option("-e", "--exportFile", hidden=True)] = None,
    json_enable: Annotated[str | None, Option("-j", "--jsonEnable", hidden=True)] = None,
) -> None:
    """Have one broker (-b) or every master of a cluster (-c) write the metadata it keeps in RocksDB (topics,
    subscription groups, consumer offsets) to its JSON config files (EXPORT_ROCKSDB_CONFIG_TO_JSON, Java's
    "rpc mode", Apache 5.3.2+ brokers), concurrently.

    A broker that keeps a type in JSON files already leaves it as it is and answers success. One row per broker;
    older brokers answer "not supported". Java's local mode (-p), which reads RocksDB files on the broker host,
    is not offered.
    """
    from mqadmin.cli.params import exactly_one
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import broker_targets, exit_for_results, print_results, results_json, run_admin
    from mqadmin.model.rpc.store import CONFIG_TYPES, config_types_of

    if config_path is not None or export_file is not None or json_enable is not None:
        raise usage_error("local mode (-p, -e, -j) is not supported", LOCAL_MODE)
    exactly_one(broker_addr, cluster)
    try:
        types = list(CONFIG_TYPES) if config_type is None else config_types_of(config_type)
    except ValueError as e:
        raise usage_error(f"-t {config_type!r}: {e}", "give topics, subscriptionGroups or consumerOffsets") from None
    if not types:
        raise usage_error("-t is blank", "give topics, subscriptionGroups or consumerOffsets, or leave -t out")

    async def go(admin: AdminClient) -> list[TargetResult]:
        targets = await broker_targets(admin, broker_addr, cluster, masters_only=False)
        return await admin.export_rocksdb_config_on(targets, types)

    results = run_admin(namesrv, go)
    if json_output():
        print_json(results_json(results, configTypes=types))
    else:
        print_results(results)
    exit_for_results(results, "rocksDBConfigToJson")
