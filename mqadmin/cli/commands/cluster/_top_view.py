"""What ``mqadmin top`` shows: one snapshot of a cluster (its brokers' health, its consumer groups' lag) per
interval, the lag's change since the previous one, the order and filters the keys set, and the snapshot as a
JSON document or as rich tables with the worst rows highlighted."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.text import Text

    from mqadmin.admin import AdminClient
    from mqadmin.admin.consumers import GroupSummary
    from mqadmin.cli.commands.cluster._rows import BrokerRow

SORTS = ("lag", "delta", "tps", "name")
"""Group orders, as ``s`` cycles through them: lag (largest first), lag growth, consume TPS, name."""
DISK_WARN, DISK_BAD = 0.75, 0.90
"""Commit-log disk ratios shown yellow and red (Apache's brokers stop accepting writes at 0.90 by default:
``diskMaxUsedSpaceRatio`` 75 starts cleaning, 90 refuses)."""
PCWAIT_BAD_MS = 100
"""A page-cache lock held this long by a write: the disk is the bottleneck (the broker starts to refuse
sends at 1000 ms, ``osPageCacheBusyTimeOutMills``)."""
WORST = 3
"""Groups shown red: the largest lags (when growing or without consumers)."""


@dataclass(slots=True)
class Snapshot:
    cluster: str
    taken_ms: int
    brokers: list[BrokerRow]
    groups: list[GroupSummary]
    deltas: dict[str, int | None]  # group -> lag change since the previous snapshot (None: first seen)
    error: str | None = None  # why this refresh failed (the previous figures are kept)


@dataclass(slots=True)
class TopState:
    """The order, the filters and the text being typed (``t``/``g`` then Enter), as the keys left them."""

    sort: str = "lag"
    topic: str = ""
    group: str = ""
    typing: str | None = None  # "topic" or "group" while a filter is typed
    typed: str = ""
    quit: bool = False

    def key(self, k: str) -> bool:
        """Apply one key; True when the view must be drawn again."""
        if self.typing is not None:
            if k in ("\r", "\n"):
                setattr(self, self.typing, self.typed.strip())
                self.typing = None
            elif k == "\x1b":
                self.typing = None
            elif k in ("\x7f", "\b"):
                self.typed = self.typed[:-1]
            elif k.isprintable():
                self.typed += k
            return True
        if k == "q":
            self.quit = True
        elif k == "s":
            self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        elif k in ("t", "g"):
            self.typing, self.typed = ("topic" if k == "t" else "group"), ""
        elif k == "c":
            self.topic = self.group = ""
        else:
            return False
        return True

    def groups(self, snap: Snapshot) -> list[GroupSummary]:
        """The snapshot's groups that pass the filters (substrings, any case), in the chosen order."""
        shown = [
            g
            for g in snap.groups
            if self.group.lower() in g.group.lower()
            and (not self.topic or any(self.topic.lower() in t.lower() for t in g.topics))
        ]
        keys = {
            "lag": lambda g: (-g.lag, g.group),
            "delta": lambda g: (-(snap.deltas.get(g.group) or 0), -g.lag, g.group),
            "tps": lambda g: (-g.consume_tps, g.group),
            "name": lambda g: (g.group,),
        }
        return sorted(shown, key=keys[self.sort])


class Tracker:
    """Takes snapshots of one cluster and remembers each group's lag for the next one's change."""

    def __init__(self, cluster: str) -> None:
        self.cluster = cluster
        self.lags: dict[str, int] = {}

    async def take(self, admin: AdminClient) -> Snapshot:
        from mqadmin.cli.commands.cluster._rows import broker_rows

        info = await admin.cluster_info()
        brokers = await broker_rows(admin, info, self.cluster)
        groups, _unread = await admin.all_groups_progress(self.cluster)
        deltas = {g.group: (g.lag - self.lags[g.group]) if g.group in self.lags else None for g in groups}
        self.lags = {g.group: g.lag for g in groups if not g.error}
        return Snapshot(self.cluster, int(time.time() * 1000), brokers, groups, deltas)


def snapshot_json(snap: Snapshot, state: TopState) -> dict[str, Any]:
    """One NDJSON line: the brokers as clusterList's JSON has them, the groups (filtered and ordered)."""
    return {
        "cluster": snap.cluster,
        "timestamp": snap.taken_ms,
        "error": snap.error,
        "brokers": [b.to_json(False) for b in snap.brokers],
        "groups": [
            {
                "group": g.group,
                "topics": g.topics,
                "clients": g.clients,
                "consumeTps": round(g.consume_tps, 2),
                "lag": g.lag,
                "lagDelta": snap.deltas.get(g.group),
                "retryDepth": g.retry_depth,
                "dlqDepth": g.dlq_depth,
                "error": g.error,
            }
            for g in state.groups(snap)
        ],
    }


def safe(text: str) -> Text:
    """Data from the cluster as a rich cell: control characters escaped, no markup read."""
    from rich.text import Text

    from mqadmin.cli.safe_text import escape

    return Text(escape(text))


def broker_cells(b: dict[str, Any]) -> tuple[list[str], str]:
    """A broker row's cells and its style: red when it did not answer, is inactive, or its disk or page cache
    is in trouble; yellow when its disk fills up."""

    def num(v: float | None, fmt: str = "{:.1f}") -> str:
        return "-" if v is None else fmt.format(v)

    disk, wait = b["diskRatio"], b["pageCacheWaitMs"]
    cells = [
        b["broker"],
        str(b["brokerId"]),
        b["role"],
        b["addr"],
        num(b["inTps"]),
        num(b["outTps"]),
        num(disk, "{:.0%}") if disk is not None else "-",
        "-" if wait is None else str(wait),
        {True: "yes", False: "NO", None: "-"}[b["activated"]],
        b["error"] or "",
    ]
    if b["error"] or (disk or 0) >= DISK_BAD or (wait or 0) >= PCWAIT_BAD_MS or b["activated"] is False:
        style = "bold red" if b["role"] == "master" or b["error"] else "yellow"
    elif (disk or 0) >= DISK_WARN:
        style = "yellow"
    else:
        style = ""
    return cells, style


def group_style(g: GroupSummary, delta: int | None, rank: int) -> str:
    """Red: one of the largest lags, and growing or nobody consuming; yellow: growing; red too for an error."""
    if g.error:
        return "bold red"
    growing = delta is not None and delta > 0
    if g.lag > 0 and rank < WORST and (growing or g.clients == 0):
        return "bold red"
    return "yellow" if growing else ""


def render(snap: Snapshot | None, state: TopState, interval: float) -> RenderableType:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    from mqadmin.cli.safe_text import escape

    head = Text()
    head.append(f"mqadmin top  cluster {escape(snap.cluster) if snap else '-'}", style="bold")
    when = time.strftime("%H:%M:%S", time.localtime(snap.taken_ms / 1000)) if snap else "…"
    head.append(f"  at {when}  every {interval:g}s  sort: {state.sort}")
    if state.topic or state.group:
        head.append(f"  filter: topic~{escape(state.topic) or '*'} group~{escape(state.group) or '*'}", style="cyan")
    keys = "q quit  s sort  t topic filter  g group filter  c clear"
    if state.typing is not None:
        keys = f"{state.typing} filter: {escape(state.typed)}_  (Enter to apply, Esc to cancel)"
    parts: list[RenderableType] = [head, Text(keys, style="dim")]
    if snap is None:
        parts.append(Text("reading the cluster…"))
        return Group(*parts)
    if snap.error:
        parts.append(Text(f"refresh failed: {escape(snap.error)} (figures of the last refresh)", style="bold red"))

    brokers = Table(title="Brokers", title_justify="left", expand=False, box=None, header_style="bold")
    for header in ("BROKER", "BID", "ROLE", "ADDRESS", "IN TPS", "OUT TPS", "DISK", "PCWAIT(MS)", "ACTIVE", "ERROR"):
        brokers.add_column(header, justify="right" if header in ("BID", "IN TPS", "OUT TPS", "DISK") else "left")
    for b in snap.brokers:
        cells, style = broker_cells(b.to_json(False))
        brokers.add_row(*(safe(c) for c in cells), style=style or None)

    shown = state.groups(snap)
    groups = Table(
        title=f"Consumer groups ({len(shown)} of {len(snap.groups)})",
        title_justify="left",
        box=None,
        header_style="bold",
    )
    for header in ("GROUP", "LAG", "Δ LAG", "TPS", "CLIENTS", "TOPICS", "ERROR"):
        groups.add_column(header, justify="right" if header in ("LAG", "Δ LAG", "TPS", "CLIENTS") else "left")
    by_lag = sorted(snap.groups, key=lambda g: -g.lag)
    ranks = {g.group: i for i, g in enumerate(by_lag)}
    for g in shown:
        delta = snap.deltas.get(g.group)
        cells = [g.group, str(g.lag), "-" if delta is None else f"{delta:+d}", f"{g.consume_tps:.1f}",
                 str(g.clients) if g.clients else "OFFLINE", ",".join(g.topics), g.error or ""]  # fmt: skip
        groups.add_row(*(safe(c) for c in cells), style=group_style(g, delta, ranks[g.group]) or None)
    return Group(*parts, Text(""), brokers, Text(""), groups)
