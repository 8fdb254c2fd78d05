"""Cluster commands: clusterList and brokerStatus."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import typer

from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt, exactly_one

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult
    from mqadmin.model.route import ClusterInfo


def register(app: typer.Typer) -> None:
    app.command("clusterList")(cluster_list)
    app.command("brokerStatus")(broker_status)


@dataclass(slots=True)
class BrokerRow:
    cluster: str
    broker: str
    broker_id: int
    addr: str
    info: dict[str, str] | None
    error: str | None

    @property
    def role(self) -> str:
        return "master" if self.broker_id == 0 else "slave"

    def to_json(self, more: bool) -> dict[str, Any]:
        info = self.info or {}
        out: dict[str, Any] = {
            "cluster": self.cluster,
            "broker": self.broker,
            "id": self.broker_id,
            "role": self.role,
            "addr": self.addr,
            "version": info.get("brokerVersionDesc"),
            "in_tps": _first_number(info.get("putTps")),
            "out_tps": _first_number(info.get("getTransferredTps") or info.get("getTransferedTps")),
            "error": self.error,
        }
        if more:
            out.update(_totals(info))
        return out


def _first_number(value: str | None) -> float | None:
    """The first figure of ``"12.5 11.0 10.0"`` (the last 10 s); None when absent or not a number."""
    try:
        return float(value.split()[0]) if value and value.split() else None
    except ValueError:
        return None


def _totals(info: dict[str, str]) -> dict[str, int | None]:
    """mqadmin ``clusterList -m``: messages in and out yesterday and today, from the day counters."""

    def diff(later: str, earlier: str) -> int | None:
        try:
            return int(info[later]) - int(info[earlier])
        except (KeyError, ValueError):
            return None

    return {
        "in_total_yesterday": diff("msgPutTotalTodayMorning", "msgPutTotalYesterdayMorning"),
        "out_total_yesterday": diff("msgGetTotalTodayMorning", "msgGetTotalYesterdayMorning"),
        "in_total_today": diff("msgPutTotalTodayNow", "msgPutTotalTodayMorning"),
        "out_total_today": diff("msgGetTotalTodayNow", "msgGetTotalTodayMorning"),
    }


async def _broker_rows(admin: AdminClient, info: ClusterInfo, cluster: str | None) -> list[BrokerRow]:
    """Every broker address (masters and slaves) with its runtime info, fetched concurrently."""
    import asyncio

    from mqadmin.admin import UnknownCluster
    from mqadmin.admin.errors import reason_of

    if cluster is not None and cluster not in info.clusters:
        raise UnknownCluster(cluster, list(info.clusters))
    targets = [
        (c, bd.broker_name, bid, addr)
        for c in sorted(info.clusters)
        if cluster is None or c == cluster
        for bd in sorted(info.brokers_of(c), key=lambda b: b.broker_name)
        for bid, addr in sorted(bd.broker_addrs.items())
    ]
    answers = await asyncio.gather(*(admin.broker_runtime_info(t[3]) for t in targets), return_exceptions=True)
    rows = []
    for (c, name, bid, addr), answer in zip(targets, answers, strict=True):
        if isinstance(answer, BaseException) and not isinstance(answer, Exception):
            raise answer
        failed = isinstance(answer, Exception)
        rows.append(BrokerRow(c, name, bid, addr, None if failed else answer, reason_of(answer) if failed else None))
    return rows


def _as_results(rows: list[BrokerRow]) -> list[TargetResult]:
    from mqadmin.admin import Status, TargetResult

    return [TargetResult(r.broker, r.addr, Status.FAILED if r.error else Status.OK, r.error) for r in rows]


# --- clusterList --------------------------------------------------------------------------------


def cluster_list(
    namesrv: NamesrvOpt = None,
    more: Annotated[bool, typer.Option("-m", "--moreStats", help="Add messages in/out yesterday and today.")] = False,
    cluster: ClusterOpt = None,
    interval: Annotated[
        float | None, typer.Option("-i", "--interval", min=0.1, metavar="SECONDS", help="Repeat every N seconds.")
    ] = None,
    count: Annotated[
        int | None, typer.Option("--count", min=1, help="With -i: stop after this many rounds (default: until Ctrl-C).")
    ] = None,
) -> None:
    """List brokers by cluster: id, role, address, version, in/out TPS (runtime info fetched concurrently).

    With -i the list is printed again every N seconds until Ctrl-C (or --count rounds); with
    --format json each round is one JSON document per line.
    """
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
            _print_cluster_table(doc["brokers"], more)
        rounds.append(rows)

    async def go(admin: AdminClient) -> None:
        import asyncio

        while True:
            show(await _broker_rows(admin, await admin.cluster_info(), cluster))
            if interval is None or (count is not None and len(rounds) >= count):
                return
            await asyncio.sleep(interval)

    try:
        run_admin(namesrv, go)
    except KeyboardInterrupt:
        if not rounds or interval is None:
            raise
    exit_for_results(_as_results(rounds[-1]), "clusterList runtime info")


def _print_cluster_table(brokers: list[dict[str, Any]], more: bool) -> None:
    from mqadmin.cli.render import Column, print_table

    cols = [
        Column("CLUSTER"), Column("BROKER"), Column("BID", numeric=True), Column("ROLE", styled=True),
        Column("ADDRESS"), Column("VERSION"), Column("IN TPS", numeric=True), Column("OUT TPS", numeric=True),
    ]  # fmt: skip
    extra = ["in_total_yesterday", "out_total_yesterday", "in_total_today", "out_total_today"] if more else []
    cols += [Column(k.replace("_", " ").upper(), numeric=True) for k in extra]
    with_error = any(b["error"] for b in brokers)
    if with_error:
        cols.append(Column("ERROR"))
    rows = []
    for b in brokers:
        row = [b["cluster"], b["broker"], b["id"], b["role"], b["addr"], b["version"] or "-"]
        row += [_tps(b["in_tps"]), _tps(b["out_tps"])] + ["-" if b[k] is None else b[k] for k in extra]
        rows.append(row + ([b["error"] or ""] if with_error else []))
    print_table(cols, rows)


def _tps(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


# --- brokerStatus -------------------------------------------------------------------------------


def broker_status(
    namesrv: NamesrvOpt = None,
    broker_addr: BrokerAddrOpt = None,
    cluster: ClusterOpt = None,
) -> None:
    """Runtime statistics of one broker (-b) or of every broker, masters and slaves, of a cluster (-c)."""
    from mqadmin.cli.render import Column, json_output, print_json, print_table
    from mqadmin.cli.runner import exit_for_results, run_admin

    exactly_one(broker_addr, cluster)

    async def go(admin: AdminClient) -> list[BrokerRow]:
        info = await admin.cluster_info()
        if cluster:
            return await _broker_rows(admin, info, cluster)
        assert broker_addr is not None
        role = info.role_of(broker_addr)
        bd, bid = role if role else (None, 0)
        runtime = await admin.broker_runtime_info(broker_addr)
        return [BrokerRow(bd.cluster if bd else "", bd.broker_name if bd else "", bid, broker_addr, runtime, None)]

    rows = run_admin(namesrv, go)
    if json_output():
        print_json(
            {
                "brokers": [
                    {"broker": r.broker, "id": r.broker_id, "addr": r.addr, "info": r.info, "error": r.error}
                    for r in rows
                ]
            }
        )
    elif broker_addr:
        print_table([Column("KEY"), Column("VALUE")], sorted((rows[0].info or {}).items()))
    else:
        table = [(r.addr, k, v) for r in rows for k, v in sorted((r.info or {}).items())]
        table += [(r.addr, "error", r.error) for r in rows if r.error]
        print_table([Column("ADDRESS"), Column("KEY"), Column("VALUE")], table)
    exit_for_results(_as_results(rows), "brokerStatus")
