"""top: a live view of one cluster in the terminal: its brokers' health and its consumer groups by lag."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.cluster._rows import BrokerRowDoc
from mqadmin.cli.declare import Option
from mqadmin.cli.params import ClusterOpt, NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.cli.commands.cluster._top_view import Snapshot, TopState, Tracker

TopicFilterOpt = Annotated[
    str | None, Option("-t", "--topic", metavar="TEXT", help="Only groups on a topic with TEXT.")
]
GroupFilterOpt = Annotated[str | None, Option("-g", "--group", metavar="TEXT", help="Only groups whose name has TEXT.")]


class TopGroupDoc(TypedDict):
    group: str
    topics: list[str]
    clients: Annotated[int, "consumers online"]
    consumeTps: float
    lag: int
    lagDelta: Annotated[int | None, "the lag's change since the previous refresh (null: the first)"]
    retryDepth: int | None
    dlqDepth: int | None
    error: Annotated[str | None, "why the group could not be read (null: it was)"]


class TopDoc(TypedDict):
    """One refresh, one line (NDJSON)."""

    cluster: str
    timestamp: Annotated[int, "ms since the epoch, when it was read"]
    error: Annotated[str | None, "why the refresh failed (the figures are the previous ones)"]
    brokers: list[BrokerRowDoc]
    groups: Annotated[list[TopGroupDoc], "filtered (-t, -g) and sorted (--sort) as on the screen"]


@command(
    "top",
    "mqadmin top                       # the only cluster; q quits, s sorts, t/g filter by topic/group",
    "mqadmin top -c DefaultCluster -i 5",
    "mqadmin top --format json --count 3 | jq -c '.groups[:3]'",
    document=TopDoc,
)
def top(
    namesrv: NamesrvOpt = None,
    cluster: ClusterOpt = None,
    interval: Annotated[
        float, Option("-i", "--interval", min=0.2, metavar="SECONDS", help="Seconds between refreshes.")
    ] = 2.0,
    count: Annotated[
        int | None, Option("--count", min=1, metavar="N", help="Stop after N refreshes [until q or Ctrl-C].")
    ] = None,
    sort: Annotated[
        str, Option("--sort", metavar="lag|delta|tps|name", help="Group order (s changes it while running).")
    ] = "lag",
    topic: TopicFilterOpt = None,
    group: GroupFilterOpt = None,
) -> None:
    """A live view of one cluster (-c, or the only one): every broker with its role, in/out TPS, disk ratio,
    page-cache wait and activation, and every consumer group sorted by lag with the lag's change since the
    last refresh, consume TPS and clients online; the worst rows highlighted. Refreshed every -i seconds.

    Keys: q quits, s cycles the order (lag, lag change, TPS, name), t and g type a topic or group filter
    (Enter applies, Esc cancels), c clears the filters. A broker that refuses or does not answer is shown in
    its row; a refresh that fails keeps the last figures with the reason. With --format json one document per
    refresh (NDJSON); when stdout is not a terminal, the tables once.
    """
    from mqadmin.cli.commands.cluster._top_view import SORTS, TopState
    from mqadmin.cli.errors import usage_error
    from mqadmin.cli.render import json_output
    from mqadmin.cli.runner import run_admin

    if sort not in SORTS:
        raise usage_error(f"--sort {sort!r} is not one of {', '.join(SORTS)}", "for example: --sort lag")
    state = TopState(sort=sort, topic=topic or "", group=group or "")
    live = not json_output() and sys.stdout.isatty()

    async def go(admin: AdminClient) -> Snapshot | None:
        from mqadmin.cli.commands.cluster._top_view import Tracker

        tracker = Tracker(await _the_cluster(admin, cluster))
        if json_output():
            await _stream(admin, tracker, state, interval, count)
            return None
        if live:
            await _live(admin, tracker, state, interval, count)
            return None
        return await tracker.take(admin)

    try:
        snap = run_admin(namesrv, go)
    except KeyboardInterrupt:
        return  # Ctrl-C ends the view as q does
    if snap is not None:
        _print_once(snap, state)


async def _the_cluster(admin: AdminClient, cluster: str | None) -> str:
    from mqadmin.admin import UnknownCluster
    from mqadmin.cli.errors import usage_error

    known = sorted((await admin.cluster_info()).clusters)
    if cluster is not None:
        if cluster not in known:
            raise UnknownCluster(cluster, known)
        return cluster
    if len(known) != 1:
        raise usage_error(
            "no cluster registered with the name server" if not known else f"{len(known)} clusters: pick one",
            f"mqadmin top -c CLUSTER (known: {', '.join(known) or 'none'})",
        )
    return known[0]


async def _refresh(admin: AdminClient, tracker: Tracker, last: Snapshot | None) -> Snapshot:
    """A new snapshot; when the cluster cannot be read, the last one with the reason (never an exception)."""
    from dataclasses import replace

    from mqadmin.admin.errors import AdminError, reason_of
    from mqadmin.cli.commands.cluster._top_view import Snapshot
    from mqadmin.transport.errors import TransportError

    try:
        return await tracker.take(admin)
    except (AdminError, TransportError, OSError) as e:
        if last is None:
            return Snapshot(tracker.cluster, 0, [], [], {}, reason_of(e))
        return replace(last, error=reason_of(e))


async def _stream(admin: AdminClient, tracker: Tracker, state: TopState, interval: float, count: int | None) -> None:
    import asyncio

    from mqadmin.cli.commands.cluster._top_view import snapshot_json
    from mqadmin.cli.render import print_json_line

    snap, n = None, 0
    while True:
        snap = await _refresh(admin, tracker, snap)
        print_json_line(snapshot_json(snap, state))
        n += 1
        if count is not None and n >= count:
            return
        await asyncio.sleep(interval)


async def _live(admin: AdminClient, tracker: Tracker, state: TopState, interval: float, count: int | None) -> None:
    """rich's Live display on the terminal's alternate screen, drawn again after each refresh and each key."""
    import asyncio

    from rich.console import Console
    from rich.live import Live

    from mqadmin.cli.commands.cluster._keys import key_presses
    from mqadmin.cli.commands.cluster._top_view import render

    loop = asyncio.get_running_loop()
    pressed = asyncio.Event()

    def on_key(k: str) -> None:
        if state.key(k):
            pressed.set()

    snap: Snapshot | None = None
    refreshes = 0
    with (
        key_presses(loop, on_key),
        Live(render(None, state, interval), console=Console(), screen=True, auto_refresh=False) as view,
    ):
        while not state.quit and (count is None or refreshes < count):
            fetch = asyncio.ensure_future(_refresh(admin, tracker, snap))
            due = loop.time() + interval
            while not fetch.done() or loop.time() < due:
                waiting = [fetch] if not fetch.done() else []
                key = asyncio.ensure_future(pressed.wait())
                timeout = None if waiting else max(due - loop.time(), 0)
                await asyncio.wait([*waiting, key], timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
                key.cancel()
                if fetch.done() and fetch.result() is not snap:
                    snap = fetch.result()
                    refreshes += 1
                    view.update(render(snap, state, interval), refresh=True)
                if pressed.is_set():
                    pressed.clear()
                    if state.quit:
                        fetch.cancel()
                        return
                    view.update(render(snap, state, interval), refresh=True)
                if count is not None and refreshes >= count:
                    return


def _print_once(snap: Snapshot, state: TopState) -> None:
    """Not a terminal: the brokers and the groups as plain tables, once."""
    from mqadmin.cli.commands.cluster._top_view import broker_cells
    from mqadmin.cli.render import Column, print_table
    from mqadmin.cli.runner import exit_for_results

    headers = ("BROKER", "BID", "ROLE", "ADDRESS", "IN TPS", "OUT TPS", "DISK", "PCWAIT(MS)", "ACTIVE", "ERROR")
    numeric = {"BID", "IN TPS", "OUT TPS", "DISK"}
    print_table(
        [Column(h, numeric=h in numeric) for h in headers], [broker_cells(b.to_json(False))[0] for b in snap.brokers]
    )
    print()
    groups = state.groups(snap)
    rows = []
    for g in groups:
        delta = snap.deltas.get(g.group)
        rows.append([g.group, g.lag, "-" if delta is None else f"{delta:+d}", f"{g.consume_tps:.1f}",
                     g.clients if g.clients else "OFFLINE", ",".join(g.topics), g.error or ""])  # fmt: skip
    cols = [Column("GROUP"), Column("LAG", numeric=True), Column("Δ LAG", numeric=True), Column("TPS", numeric=True),
            Column("CLIENTS", numeric=True), Column("TOPICS"), Column("ERROR")]  # fmt: skip
    print_table(cols, rows)
    from mqadmin.cli.commands.cluster._rows import as_results

    exit_for_results(as_results(snap.brokers), f"top {snap.cluster}")
