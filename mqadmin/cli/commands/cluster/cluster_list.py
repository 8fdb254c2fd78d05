"""clusterList: brokers by cluster with id, role, address, version and in/out TPS."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.params import ClusterOpt, NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.cli.commands.cluster._rows import BrokerRow


@command(
    "clusterList",
    "mqadmin clusterList",
    "mqadmin clusterList -m -c DefaultCluster",
    "mqadmin clusterList -i 5",
    blocking=True,
    async_with=("interval",),  # -i sleeps between rounds: asyncio's loop
)
def cluster_list(
    namesrv: NamesrvOpt = None,
    more: Annotated[bool, Option("-m", "--moreStats", help="Add messages in/out yesterday and today.")] = False,
    cluster: ClusterOpt = None,
    interval: Annotated[
        float | None, Option("-i", "--interval", min=0.1, metavar="SECONDS", help="Repeat every N seconds.")
    ] = None,
    count: Annotated[
        int | None, Option("--count", min=1, metavar="N", help="With -i: stop after N rounds [until Ctrl-C].")
    ] = None,
) -> None:
    """List brokers by cluster: id, role, address, version, in/out TPS (runtime info fetched concurrently).

    With -i the list is printed again every N seconds until Ctrl-C (or --count rounds); with
    --format json each round is one JSON document per line.
    """
    from mqadmin.cli.commands.cluster._rows import as_results, broker_rows
    from mqadmin.cli.render import json_output, print_json, print_json_line
    from mqadmin.cli.runner import exit_for_results, run_admin

    rounds: list[list[BrokerRow]] = []

    def show(rows: list[BrokerRow]) -> None:
        doc = {"brokers": [r.to_json(more) for r in rows]}
        if json_output():
            (print_json_line if interval else print_json)(doc)
        else:
            if rounds:
                print()
            _print_table(doc["brokers"], more)
        rounds.append(rows)

    async def go(admin: AdminClient) -> None:
        while True:
            show(await broker_rows(admin, await admin.cluster_info(), cluster))
            if interval is None or (count is not None and len(rounds) >= count):
                return
            import asyncio  # only with -i, which runs in asyncio's loop

            await asyncio.sleep(interval)

    try:
        run_admin(namesrv, go)
    except KeyboardInterrupt:
        if not rounds or interval is None:
            raise
    exit_for_results(as_results(rounds[-1]), "clusterList runtime info")


def _print_table(brokers: list[dict[str, Any]], more: bool) -> None:
    from mqadmin.cli.render import Column, print_table

    cols = [
        Column("CLUSTER"), Column("BROKER"), Column("BID", numeric=True), Column("ROLE", styled=True),
        Column("ADDRESS"), Column("VERSION"), Column("IN TPS", numeric=True), Column("OUT TPS", numeric=True),
    ]  # fmt: skip
    extra = {"inTotalYesterday": "IN YESTERDAY", "outTotalYesterday": "OUT YESTERDAY",
             "inTotalToday": "IN TODAY", "outTotalToday": "OUT TODAY"} if more else {}  # fmt: skip
    cols += [Column(header, numeric=True) for header in extra.values()]
    with_error = any(b["error"] for b in brokers)
    cols += [Column("ERROR")] if with_error else []
    rows = []
    for b in brokers:
        row = [b["cluster"], b["broker"], b["brokerId"], b["role"], b["addr"], b["version"] or "-"]
        row += [_tps(b["inTps"]), _tps(b["outTps"])] + ["-" if b[k] is None else b[k] for k in extra]
        rows.append(row + ([b["error"] or ""] if with_error else []))
    print_table(cols, rows)


def _tps(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
