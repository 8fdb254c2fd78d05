"""What the topology commands share: reading the file, one admin client per set of name servers, the plan's
table, the progress shown on stderr."""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
from collections.abc import Awaitable, Callable, Iterator
from operator import attrgetter
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypedDict, TypeVar

from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import ChangeDoc
from mqadmin.cli.errors import CliError, ExitCode, usage_error

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.topology.apply import Results
    from mqadmin.topology.model import ClusterSpec, Topology
    from mqadmin.topology.plan import Item, Plan

T = TypeVar("T")


class PlanBrokerDoc(TypedDict):
    name: str
    addr: str
    version: Annotated[str | None, "e.g. V5_3_3 (null: not read)"]
    status: Literal["ok", "failed"]
    reason: str | None


class PlanClusterDoc(TypedDict):
    cluster: Annotated[str, "the topology's key for the cluster"]
    clusterName: str
    namesrv: Annotated[str, "host:port;host:port"]
    status: Literal["ok", "failed"]
    reason: Annotated[str | None, "why it could not be read"]
    brokers: list[PlanBrokerDoc]
    problems: Annotated[list[str], "what keeps its plan from being complete"]


class PlanItemDoc(TypedDict):
    cluster: str
    kind: Literal["topic", "group", "orderConf"]
    name: str
    broker: str | None
    addr: str | None
    action: Literal["create", "update", "delete", "extra"]
    changes: Annotated[dict[str, ChangeDoc], "field -> old and new value (update)"]
    note: str | None


class PlanDoc(TypedDict):
    topology: Annotated[str, "the topology file"]
    prune: bool
    clusters: list[PlanClusterDoc]
    items: Annotated[list[PlanItemDoc], "each difference, by cluster"]
    summary: Annotated[dict[str, int], "create, update, delete, extra -> how many"]
    outcome: Literal["no changes", "changes pending", "failed"]


class ItemResultDoc(PlanItemDoc):
    status: Annotated[str, "created, updated, deleted, failed, not sent, ..."]
    reason: str | None


class ApplyDoc(TypedDict):
    topology: str
    prune: bool
    clusters: list[PlanClusterDoc]
    items: list[PlanItemDoc]
    summary: dict[str, int]
    results: Annotated[list[ItemResultDoc], "each item applied"]
    outcome: Literal["ok", "partial", "failed", "interrupted", "no changes", "changes pending"]


DOCS_HINT = "see docs/topology.md for the file's format (schema: mqadmin/topology/schema.json)"

FileOpt = Annotated[str, Option("-f", "--file", metavar="FILE", help="The topology file (TOML).")]
PruneOpt = Annotated[
    bool,
    Option(
        "--prune",
        help="Delete the topics and groups the file does not name (never system, retry or dead-letter topics, "
        "nor groups with consumers online).",
    ),
]


def read_topology(path: str) -> Topology:
    from mqadmin.topology.model import TopologyError, load_topology

    try:
        return load_topology(path)
    except TopologyError as e:
        raise usage_error(str(e), DOCS_HINT) from None


def cluster_addrs(topology: Topology, namesrv: str | None) -> dict[str, list[str]]:
    """Each cluster's name servers: its ``namesrv`` in the file, else ``-n``, else NAMESRV_ADDR."""
    from mqadmin.cli.runner import namesrv_addrs

    out = {}
    for key, spec in topology.clusters.items():
        try:
            out[key] = namesrv_addrs(spec.namesrv or namesrv)
        except CliError as e:
            where = f"cluster {key!r} of {topology.source}"
            raise CliError(
                f"{where}: {e.message}", f"give it namesrv = '...' in the file, or {e.hint}", e.code
            ) from None
    return out


def run_clusters(
    topology: Topology, namesrv: str | None, fn: Callable[[Callable[[ClusterSpec], AdminClient]], Awaitable[T]]
) -> T:
    """Run ``fn(client_for)``: ``client_for(spec)`` is the admin client of the cluster's name servers (one per set
    of name servers, all on one transport)."""
    from mqadmin.admin import AdminClient
    from mqadmin.cli.runner import run_admin

    addrs = cluster_addrs(topology, namesrv)
    first = next(iter(addrs.values()))

    async def go(admin: AdminClient) -> T:
        clients = {tuple(first): admin}

        def client_for(spec: ClusterSpec) -> AdminClient:
            key = tuple(addrs[spec.key])
            if key not in clients:
                clients[key] = AdminClient(list(key), transport=admin.transport, timeout=admin.timeout)
            return clients[key]

        return await fn(client_for)

    return run_admin(";".join(first), go)


def check_reachable(plan: Plan) -> None:
    """Exit 4 when no cluster could be read because no name server answered."""
    states = [c.state for c in plan.clusters]
    if states and all(s.unreachable for s in states):
        raise CliError(
            f"no name server answered: {states[0].error}",
            "is a name server running there? pass -n host:9876, set NAMESRV_ADDR or give namesrv in the file",
            ExitCode.NAMESRV_UNREACHABLE,
        )


# --- showing a plan ------------------------------------------------------------------------------------------


def value_text(v: Any) -> str:
    if v is None:
        return "(none)"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}={x}" for k, x in sorted(v.items())) + "}"
    return str(v)


def describe(item: Item) -> str:
    """``readQueueNums=16, perm=6`` for a new item, ``perm 6→4`` for a change."""
    from mqadmin.topology.plan import Action

    if item.action == Action.CREATE and item.kind != "orderConf":
        return ", ".join(f"{k}={value_text(new)}" for k, (_, new) in item.changes.items())
    return ", ".join(f"{k} {value_text(old)}→{value_text(new)}" for k, (old, new) in item.changes.items())


MARKS = {"create": ("+", "32"), "update": ("~", "33"), "delete": ("-", "31"), "extra": (" ", "2")}
"""Each action's mark and its colour (SGR code) on a terminal: green +, yellow ~, red -, dim for what is left alone."""


RESULT_COLOURS = {"failed": "1;31", "not sent": "2"}


def diff_lines(plan: Plan, results: Results | None = None) -> Iterator[tuple[str, str | None]]:
    """The plan as a diff, as ``terraform plan`` shows one: per cluster, per topic or group (sorted), one line per
    action and detail with the brokers it applies to, then the detail indented; (text, colour) pairs. With
    ``results`` (what apply did), only the changes (each done or tried), each line ending with its result (and
    the reason of a failure). Made as written: the lines of 100,000 items are never all held."""
    from mqadmin.cli.render import escape
    from mqadmin.topology.plan import CHANGES

    for c in plan.clusters:
        items = [i for i in c.items if results is None or i.action in CHANGES]
        if not items:
            continue
        yield f"cluster {escape(c.spec.key)} ({escape(c.spec.cluster)})", None
        items.sort(key=attrgetter("name"))  # then by kind: by (kind, name), without a key tuple per item
        items.sort(key=attrgetter("kind"))
        for (kind, name), same in itertools.groupby(items, key=lambda i: (str(i.kind), i.name)):
            changes: dict[tuple[str, str, str], list[str]] = {}  # one topic's or group's at a time
            for i in same:
                detail = describe(i) or (i.note or "")
                done = "" if results is None else ": " + _result_text(*results.of(i))
                changes.setdefault((str(i.action), detail, done), []).append(i.broker)
            for (action, detail, done), brokers in changes.items():
                mark, colour = MARKS[action]
                colour = next((sgr for s, sgr in RESULT_COLOURS.items() if done.startswith(f": {s}")), colour)
                left = " (not in the file: left alone)" if action == "extra" else ""
                where = escape(", ".join(brokers))
                yield f"  {mark} {kind} {escape(name)} on {where}{left}{escape(done)}", colour
                if detail:
                    yield f"      {escape(detail)}", colour


def _result_text(status: str, reason: str | None) -> str:
    """``created``, ``failed (REASON)``; a change not sent says why (``not sent: interrupted (Ctrl-C)``)."""
    if reason and reason.startswith(status):
        return reason
    return f"{status} ({reason})" if reason else status


def print_diff(plan: Plan, results: Results | None = None) -> None:
    """``diff_lines`` on stdout, coloured on a terminal."""
    from mqadmin.cli.render import styled_output

    colour = styled_output()
    for text, sgr in diff_lines(plan, results):
        sys.stdout.write(f"\x1b[{sgr}m{text}\x1b[0m\n" if colour and sgr else f"{text}\n")
    sys.stdout.flush()


def print_plan(plan: Plan) -> None:
    from mqadmin.cli.render import note

    print_diff(plan)
    for c in plan.clusters:
        for problem in c.problems:
            note(f"mqadmin: error: {c.spec.key}: {problem}")
    s = plan.summary()
    extra = f"; {s['extra']} not in the file (left alone{'' if plan.prune else ': --prune deletes them'})"
    counts = f"{s['create']} to create, {s['update']} to update, {s['delete']} to delete"
    extra = extra if s["extra"] else ""
    if not plan.complete:  # what could not be read may need changes: never "no changes"
        problems = sum(len(c.problems) for c in plan.clusters)
        note(f"plan: incomplete ({problems} part(s) could not be read); of the rest: {counts}{extra}")
    else:
        note(f"plan: {counts}{extra}" if plan.changes else f"plan: no changes{extra}")


# --- progress on stderr --------------------------------------------------------------------------------------


class _LineProgress:
    """Without a terminal: a line at each tenth of the way (CI logs show that a long apply is moving)."""

    def __init__(self, what: str, total: int) -> None:
        self.what, self.total, self.done, self.shown = what, total, 0, 0

    def advance(self, n: int) -> None:
        self.done += n
        step = self.done * 10 // self.total
        if step > self.shown and self.done < self.total:
            self.shown = step
            sys.stderr.write(f"{self.what}: {self.done}/{self.total}\n")
            sys.stderr.flush()


@contextlib.contextmanager
def progress(what: str, total: int) -> Iterator[Any]:
    """A progress bar on stderr when it is a terminal (lines otherwise); nothing for nothing to do."""
    from mqadmin.topology.apply import NoProgress

    if total == 0:
        yield NoProgress()
        return
    if not sys.stderr.isatty() or os.environ.get("TERM") == "dumb":
        yield _LineProgress(what, total)
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn(what), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(what, total=total)

        class _Bar:
            def advance(self, n: int) -> None:
                bar.advance(task, n)

        yield _Bar()
