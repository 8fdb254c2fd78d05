"""apply: make the live clusters hold what a topology file (or a saved plan) says."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from mqadmin.cli.command import command
from mqadmin.cli.commands.topology._shared import ApplyDoc, PruneOpt
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from collections import Counter

    from mqadmin.admin.results import Status
    from mqadmin.topology.apply import Results
    from mqadmin.topology.plan import Plan


@command(
    "apply",
    "mqadmin apply -f topology.toml",
    "mqadmin apply --plan plan.json          # exactly the saved plan; refused if the clusters changed since",
    "mqadmin apply -f topology.toml --prune  # also delete what the file does not name",
    "mqadmin apply -f topology.toml --dry-run",
    document=ApplyDoc,
)
def apply(
    file: Annotated[str | None, Option("-f", "--file", metavar="FILE", help="The topology file (TOML).")] = None,
    plan_file: Annotated[
        str | None, Option("--plan", metavar="PLAN", help="A plan saved by 'plan --out' (instead of -f).")
    ] = None,
    namesrv: NamesrvOpt = None,
    prune: PruneOpt = False,
    dry_run: Annotated[bool, Option("--dry-run", help="Only show what would be done (as plan does).")] = False,
    concurrency: Annotated[
        int, Option("--concurrency", min=1, max=256, metavar="N", help="Requests in flight at most.")
    ] = 16,
    batch_size: Annotated[
        int, Option("--batch-size", min=1, max=5000, metavar="N", help="Topics or groups per batch request.")
    ] = 500,
) -> None:
    """Create, update (and with --prune delete) topics and groups until the clusters match the topology file.

    The plan is made again from the live clusters (or read from --plan, whose clusters must not have changed
    since), then carried out: brokers concurrently, topics in batches (UPDATE_AND_CREATE_TOPIC_LIST) where the
    broker has it, at most --concurrency requests in flight, a progress bar on stderr. One row per item:
    created, updated, deleted, written (orderTopicConf) or failed with the reason; a broker that does not
    answer fails its items without holding up the others. Running it again reports nothing to do. Exits 0
    when everything is done, 3 when some items failed (run it again once the brokers are back), 1 when all
    failed. Ctrl-C stops sending: the requests in flight finish, the items not sent are listed as such, and it
    exits 130 (running it again does what is left).
    """
    from collections import Counter

    from mqadmin.admin.results import Status
    from mqadmin.cli.commands.topology._shared import check_reachable, print_plan, read_topology, run_clusters
    from mqadmin.cli.errors import usage_error
    from mqadmin.cli.interrupt import stop_on_ctrl_c
    from mqadmin.cli.render import json_output, note, print_json_stream
    from mqadmin.topology.apply import apply_plan
    from mqadmin.topology.plan import make_plan

    if (file is None) == (plan_file is None):
        raise usage_error("give either -f FILE (a topology) or --plan PLAN (a saved plan)")
    saved = _read_saved(plan_file) if plan_file else None
    if saved is not None and prune:
        raise usage_error("--prune is decided when the plan is made", "use: mqadmin plan --prune --out PLAN")
    topology = _saved_topology(saved, plan_file) if saved is not None else read_topology(file or "")
    prune = bool(saved["prune"]) if saved is not None else prune

    async def go(client_for: Any) -> tuple[Plan, Results | None]:
        fresh = await make_plan(topology, client_for, prune=prune)
        if saved is not None:
            _check_unchanged(saved, fresh)
        if dry_run or not fresh.changes:
            return fresh, None
        _announce_deletions(fresh)
        with _progress(fresh) as bar:
            return fresh, await apply_plan(
                fresh, client_for, concurrency=concurrency, batch_size=batch_size, progress=bar
            )

    with stop_on_ctrl_c("apply") as interruption:
        plan, results = run_clusters(topology, namesrv, go)
    if not interruption.requested:
        check_reachable(plan)
    counts = results.counts() if results is not None else Counter[Status]()
    if json_output():
        outcome = "interrupted" if interruption.requested else _outcome(plan, counts)
        done = results.to_json() if results is not None else iter(())
        print_json_stream({**plan.json_doc(), "results": done, "outcome": outcome})
    elif results is None:
        print_plan(plan)
        if not dry_run and plan.complete:
            note("apply: nothing to do")
    else:
        _print_results(plan, results, counts)
    if interruption.requested:
        _interrupted(plan, counts)
    _exit(plan, counts)


def _read_saved(path: str) -> dict[str, Any]:
    import json

    from mqadmin.cli.errors import usage_error
    from mqadmin.topology.plan import PLAN_FORMAT, PLAN_VERSION

    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise usage_error(f"cannot read the plan {path}: {getattr(e, 'strerror', None) or e}") from None
    if not isinstance(doc, dict) or doc.get("format") != PLAN_FORMAT or doc.get("version") != PLAN_VERSION:
        raise usage_error(f"{path} is not a plan saved by 'mqadmin plan --out'", "make one with: mqadmin plan --out")
    return doc


def _saved_topology(saved: dict[str, Any], path: str | None) -> Any:
    from mqadmin.cli.commands.topology._shared import DOCS_HINT
    from mqadmin.cli.errors import usage_error
    from mqadmin.topology.model import TopologyError, parse_topology

    try:
        return parse_topology(str(saved.get("topologyText", "")), str(saved.get("topology") or path))
    except TopologyError as e:
        raise usage_error(f"the plan {path} holds a topology this mqadmin cannot use: {e}", DOCS_HINT) from None


def _check_unchanged(saved: dict[str, Any], fresh: Plan) -> None:
    """The saved plan's items must be exactly what the clusters call for now."""
    from mqadmin.cli.errors import CliError

    now = fresh.to_json()["items"]
    if now == saved.get("items") and fresh.complete:
        return
    before = {_key(i): i for i in saved.get("items") or []}
    after = {_key(i): i for i in now}
    differ = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    shown = ", ".join(" ".join(k) for k in differ[:3]) or "some clusters or brokers could not be read"
    raise CliError(
        f"the clusters changed since the plan was made ({len(differ)} item(s) differ: {shown})",
        "nothing was applied; make a new plan: mqadmin plan --out PLAN",
    )


def _key(item: dict[str, Any]) -> tuple[str, ...]:
    return tuple(str(item.get(k)) for k in ("cluster", "kind", "name", "broker"))


def _announce_deletions(plan: Plan) -> None:
    from mqadmin.cli.render import note
    from mqadmin.topology.plan import Action

    gone = [i for i in plan.changes if i.action == Action.DELETE]
    if gone:
        names = ", ".join(f"{i.kind} {i.name} on {i.broker} ({i.cluster})" for i in gone)
        note(f"apply: deleting {len(gone)} item(s): {names}")


def _progress(plan: Plan) -> Any:
    from mqadmin.cli.commands.topology._shared import progress

    return progress("apply", len(plan.changes))


def _failed(counts: Counter[Status]) -> int:
    from mqadmin.admin.results import NOT_DONE

    return sum(n for status, n in counts.items() if status in NOT_DONE)


def _outcome(plan: Plan, counts: Counter[Status]) -> str:
    """ok; partial: some of the work done (a change made, or a cluster's brokers read when another's were not);
    failed: none, including an apply whose every change failed, however many brokers it read first."""
    failed = _failed(counts) + sum(len(c.problems) for c in plan.clusters)
    if not failed:
        return "ok"
    changed = counts.total() - _failed(counts)
    if counts.total() and not changed:
        return "failed"
    done = changed + sum(1 for c in plan.clusters for b in c.state.brokers if b.ok)
    return "partial" if done else "failed"


def _print_results(plan: Plan, results: Results, counts: Counter[Status]) -> None:
    from mqadmin.cli.commands.topology._shared import print_diff
    from mqadmin.cli.render import note

    print_diff(plan, results)
    for c in plan.clusters:
        for problem in c.problems:
            note(f"mqadmin: error: {c.spec.key}: {problem}")
    note("apply: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items())))


def _interrupted(plan: Plan, counts: Counter[Status]) -> None:
    from mqadmin.admin.results import Status
    from mqadmin.cli.interrupt import interrupted

    not_sent = counts[Status.NOT_SENT]
    failed = counts[Status.FAILED]
    total = len(plan.changes)
    done = total - not_sent - failed if counts else 0
    what = f"{done} of {total} change(s) done, {total - done - failed} not sent" + (
        f", {failed} failed" if failed else ""
    )
    raise interrupted(
        f"apply interrupted (Ctrl-C): {what}",
        "run the same apply again: it plans from the clusters again and does only what is left",
    )


def _exit(plan: Plan, counts: Counter[Status]) -> None:
    from mqadmin.cli.errors import CliError, ExitCode

    outcome = _outcome(plan, counts)
    if outcome == "ok":
        return
    failed = _failed(counts)
    problems = sum(len(c.problems) for c in plan.clusters)
    what = f"{failed} item(s) failed" + (f", {problems} broker(s) or cluster(s) not read" if problems else "")
    if outcome == "partial":
        raise CliError(f"apply: {what}", "the rest is done; run apply again once they are back", ExitCode.PARTIAL)
    raise CliError(f"apply: {what}", "see the reasons above", ExitCode.FAILURE)
