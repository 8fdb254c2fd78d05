"""clusterList: brokers by cluster with Java 5.5 clusterList's health columns (or, with -m, its day totals)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from mqadmin.cli.command import command
from mqadmin.cli.commands.cluster._rows import ClusterListDoc
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
    document=ClusterListDoc,
)
def cluster_list(
    namesrv: NamesrvOpt = None,
    more: Annotated[
        bool, Option("-m", "--moreStats", help="Show messages in/out yesterday and today instead (Java's -m).")
    ] = False,
    cluster: ClusterOpt = None,
    interval: Annotated[
        float | None, Option("-i", "--interval", min=0.1, metavar="SECONDS", help="Repeat every N seconds.")
    ] = None,
    count: Annotated[
        int | None, Option("--count", min=1, metavar="N", help="With -i: stop after N rounds [until Ctrl-C].")
    ] = None,
) -> None:
    """List brokers by cluster: id, role, address, version and Java's health columns (runtime info fetched
    concurrently): in/out TPS with the thread pools' queue and wait, timer progress, page-cache wait (ms), hours
    of stored messages, disk ratio and activation.

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
    """Java's columns: its base view, or with -m its day totals (beside our id, role and address)."""
    from mqadmin.cli.render import Column, print_table

    cols = [
        Column("CLUSTER"),
        Column("BROKER"),
        Column("BID", numeric=True),
        Column("ROLE", styled=True),
        Column("ADDRESS"),
    ]
    rows: list[list[object]] = [[b["cluster"], b["broker"], b["brokerId"], b["role"], b["addr"]] for b in brokers]
    if more:
        cols += [Column(header, numeric=True) for header in _TOTALS.values()]
        for row, b in zip(rows, brokers, strict=True):
            row += [_text(b[k]) for k in _TOTALS]
    else:
        cols += [Column("VERSION")] + [Column(h, numeric=True) for h in _HEALTH] + [Column("ACTIVATED")]
        for row, b in zip(rows, brokers, strict=True):
            row += [_text(b["version"]), *_health_cells(b), _text(b["activated"])]
    if any(b["error"] for b in brokers):
        cols.append(Column("ERROR"))
        for row, b in zip(rows, brokers, strict=True):
            row.append(b["error"] or "")
    print_table(cols, rows)


_TOTALS = {"inTotalYesterday": "IN YESTERDAY", "outTotalYesterday": "OUT YESTERDAY",
           "inTotalToday": "IN TODAY", "outTotalToday": "OUT TODAY"}  # fmt: skip
_HEALTH = ("IN TPS(LOAD)", "OUT TPS(LOAD)", "TIMER(PROGRESS)", "PCWAIT(MS)", "HOUR", "SPACE")


def _health_cells(b: dict[str, Any]) -> list[str]:
    """As Java prints them: ``TPS(queued,waitms)``, out with the pull and ack pools, the timer as
    ``readBehind-offsetBehind(congest/10000 w, enqueue TPS, dequeue TPS)``; '-' where the broker said nothing."""
    if b["error"]:
        return ["-"] * len(_HEALTH)

    def load(prefix: str) -> str:
        return f"{_text(b[prefix + 'QueueSize'])},{_text(b[prefix + 'QueueWaitMs'])}ms"

    t = b["timer"]
    timer = "-"
    if t is not None:
        figures = f"{t['congestNum'] / 10000:.1f}w, {t['enqueueTps']:.1f}, {t['dequeueTps']:.1f}"
        timer = f"{t['readBehind']}-{t['offsetBehind']}({figures})"
    return [
        f"{_number(b['inTps'])}({load('send')})",
        f"{_number(b['outTps'])}({load('pull')}|{load('ack')})",
        timer,
        _text(b["pageCacheWaitMs"]),
        _number(b["hours"]),
        "-" if b["diskRatio"] is None else f"{b['diskRatio']:.4f}",
    ]


def _text(value: object) -> str:
    if value is None:
        return "-"
    return str(value).lower() if isinstance(value, bool) else str(value)


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
