"""checkRocksdbCqWriteProgress: have every master of a cluster compare its RocksDB consume queues with the
file ones."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


class CqCheckResultDoc(TargetResultDoc):
    checkStatus: Annotated[str | None, "CHECK_SUCCESS, CHECK_NOT_OK, CHECK_IN_PROGRESS or CHECK_ERROR (null: failed)"]
    checkResult: Annotated[str | None, "the broker's text about it"]


class CqCheckDoc(TypedDict):
    cluster: str
    topic: Annotated[str | None, "-t (null: every topic)"]
    checkFrom: Annotated[int, "ms since the epoch: messages stored since then are compared"]
    results: list[CqCheckResultDoc]
    outcome: Outcome


@command(
    "checkRocksdbCqWriteProgress",
    "mqadmin checkRocksdbCqWriteProgress -c DefaultCluster",
    "mqadmin checkRocksdbCqWriteProgress -c DefaultCluster -t Orders -cf -2d",
    document=CqCheckDoc,
)
def check_rocksdb_cq_write_progress(
    cluster: Annotated[str, Option("-c", "--cluster", metavar="CLUSTER", help="Cluster name.")],
    namesrv: NamesrvOpt = None,
    topic: Annotated[
        str | None, Option("-t", "--topic", metavar="TOPIC", help="Only this topic [every topic].")
    ] = None,
    check_from: Annotated[
        str | None,
        Option(
            "-cf",
            "--checkFrom",
            metavar="TIME",
            help="Compare messages stored since then: ms since the epoch, ISO date or -2d [30 days ago].",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Have every master of a cluster compare its RocksDB consume queues with the file ones
    (CHECK_ROCKSDB_CQ_WRITE_PROGRESS, Apache 5.3.1+ brokers), concurrently.

    The broker starts the check and answers at once; the outcome goes to its log (Java mqadmin says "check
    doing, please wait and get the result from log"). One row per master with the state it answered
    (CHECK_IN_PROGRESS, or CHECK_OK when there is nothing to compare, e.g. a broker without RocksDB consume
    queues) and its message; CHECK_ERROR is a failed row. Older brokers answer "not supported".
    """
    import time

    from mqadmin.cli.errors import usage_error
    from mqadmin.cli.params import check_topic
    from mqadmin.cli.render import Column, json_output, print_json, print_table
    from mqadmin.cli.runner import broker_targets, exit_for_results, results_json, run_admin

    if topic is not None:
        check_topic(topic)
    since = int(time.time() * 1000) - 30 * 86_400_000
    if check_from is not None:
        from mqadmin.cli.timespec import FORMATS_HINT, BadTime, parse_time

        try:
            since = parse_time(check_from)
        except BadTime as e:
            raise usage_error(f"-cf {check_from!r}: {e}", FORMATS_HINT) from None

    async def go(admin: AdminClient) -> list[TargetResult]:
        targets = await broker_targets(admin, None, cluster, masters_only=True)
        return await admin.check_rocksdb_cq_on(targets, topic or "", since)

    results = run_admin(namesrv, go)
    if json_output():
        doc = results_json(results, cluster=cluster, topic=topic, checkFrom=since)
        for entry, r in zip(doc["results"], results, strict=True):
            entry["checkStatus"] = r.data.status_name if r.data else None
            entry["checkResult"] = r.data.check_result if r.data else None
        print_json(doc)
    else:
        print_table(
            [
                Column("BROKER"),
                Column("ADDRESS"),
                Column("RESULT", styled=True),
                Column("CHECK STATUS"),
                Column("MESSAGE"),
            ],  # fmt: skip
            [
                (
                    r.name or "?",
                    r.addr,
                    str(r.status),
                    r.data.status_name if r.data else "-",
                    (r.data.check_result if r.data else None) or r.reason or "",
                )  # fmt: skip
                for r in results
            ],
        )
    exit_for_results(results, "checkRocksdbCqWriteProgress")
