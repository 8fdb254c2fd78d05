"""clusterRT: send messages to every broker and show the send round-trip time per broker, round after round."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt, parse_bool

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult
    from mqadmin.admin.probe import SendRt


class SendRtDoc(TypedDict):
    cluster: str
    broker: str
    rt: Annotated[float | None, "average send time, ms (null: no send succeeded)"]
    successCount: int
    failCount: int
    reason: str | None


class ClusterRtDoc(TypedDict):
    """One round, one line (NDJSON)."""

    timestamp: Annotated[int, "ms since the epoch"]
    brokers: list[SendRtDoc]


@command(
    "clusterRT",
    "mqadmin clusterRT --count 1                        # one round over every cluster",
    "mqadmin clusterRT -c DefaultCluster -a 20 -s 1024 -i 30",
    "mqadmin clusterRT -p true -m room-1               # log lines: time|room|cluster|broker|rt",
    document=ClusterRtDoc,
)
def cluster_rt(
    namesrv: NamesrvOpt = None,
    amount: Annotated[int, Option("-a", "--amount", min=1, max=100_000, help="Messages per broker and round.")] = 100,
    size: Annotated[int, Option("-s", "--size", min=1, max=4 * 1024 * 1024, help="Message size in bytes.")] = 128,
    cluster: Annotated[
        str | None,
        Option("-c", "--cluster", metavar="CLUSTER", help="Only this cluster [every cluster].", show_default=False),
    ] = None,
    print_log: Annotated[
        str | None,
        Option("-p", "--printLog", metavar="true|false", help="Print log lines instead of tables [false]."),
    ] = None,
    machine_room: Annotated[
        str, Option("-m", "--machineRoom", metavar="NAME", help="Machine room named in the log lines.")
    ] = "noname",
    interval: Annotated[float, Option("-i", "--interval", min=0, metavar="SECONDS", help="Pause between rounds.")] = 10,
    count: Annotated[
        int | None, Option("--count", min=1, metavar="N", help="Stop after N rounds [until Ctrl-C].")
    ] = None,
) -> None:
    """Send messages to every broker of every cluster (or of -c) and show the send RT per broker.

    Each round sends -a messages of -s bytes to each broker in turn, one at a time, to the topic named after
    the broker (every broker has it), and prints one row per broker: the mean RT in milliseconds of the
    successful sends after the first (which opens the connection), and the success and failure counts. Rounds
    repeat every -i seconds until Ctrl-C or --count rounds; with --format json each round is one JSON
    document on one line. The exit code reflects the last round: 3 when some brokers had failed sends, 1 when
    all had.
    """
    from mqadmin.cli.runner import exit_for_results, run_admin

    log_lines = bool(parse_bool(print_log, "-p"))
    rounds: list[list[SendRt]] = []

    async def go(admin: AdminClient) -> None:
        import asyncio

        from mqadmin.admin import UnknownCluster
        from mqadmin.admin.probe import cluster_rt as probe

        info = await admin.cluster_info()
        if cluster is not None and cluster not in info.clusters:
            raise UnknownCluster(cluster, list(info.clusters))
        clusters = [cluster] if cluster is not None else sorted(info.clusters)
        while True:
            rows = await probe(admin, info, clusters, amount, size)
            _show(rows, first=not rounds, log_lines=log_lines, machine_room=machine_room)
            rounds.append(rows)
            if count is not None and len(rounds) >= count:
                return
            await asyncio.sleep(interval)
            info = await admin.cluster_info()

    try:
        run_admin(namesrv, go)
    except KeyboardInterrupt:
        if not rounds:
            raise
    exit_for_results(_as_results(rounds[-1]), "clusterRT")


def _show(rows: list[SendRt], *, first: bool, log_lines: bool, machine_room: str) -> None:
    import time

    from mqadmin.cli.render import Column, json_output, print_json_line, print_lines, print_table

    if json_output():
        print_json_line({"timestamp": int(time.time() * 1000), "brokers": [_row_json(r) for r in rows]})
        return
    if log_lines:
        now = time.strftime("%Y-%m-%d %H:%M:%S")
        rts = [("-" if r.rt_ms is None else f"{r.rt_ms:.0f}") for r in rows]
        print_lines(f"{now}|{machine_room}|{r.cluster}|{r.broker}|{rt}" for r, rt in zip(rows, rts, strict=True))
        return
    if not first:
        print()
    with_reason = any(r.reason for r in rows)
    columns = [Column("CLUSTER"), Column("BROKER"), Column("RT MS", numeric=True), Column("SUCCESS", numeric=True),
               Column("FAILED", numeric=True)] + ([Column("REASON")] if with_reason else [])  # fmt: skip
    table = [
        [r.cluster, r.broker, "-" if r.rt_ms is None else f"{r.rt_ms:.2f}", r.success, r.failed]
        + ([r.reason or ""] if with_reason else [])
        for r in rows
    ]
    print_table(columns, table)


def _row_json(r: SendRt) -> SendRtDoc:
    return {
        "cluster": r.cluster,
        "broker": r.broker,
        "rt": r.rt_ms,
        "successCount": r.success,
        "failCount": r.failed,
        "reason": r.reason,
    }


def _as_results(rows: list[SendRt]) -> list[TargetResult]:
    from mqadmin.admin import Status, TargetResult

    return [TargetResult(r.broker, "", Status.FAILED if r.failed else Status.OK, r.reason, error=r.error) for r in rows]
