"""plan: what applying a topology file would change on the live clusters."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.topology._shared import FileOpt, PlanDoc, PruneOpt
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.topology.plan import Plan


@command(
    "plan",
    "mqadmin plan -f topology.toml                     # exit 0: no changes, 6: changes pending",
    "mqadmin plan -f topology.toml --format json",
    "mqadmin plan -f topology.toml --out plan.json     # then: mqadmin apply --plan plan.json",
    "mqadmin plan -f topology.toml --prune             # also what --prune would delete",
    document=PlanDoc,
)
def plan(
    file: FileOpt,
    namesrv: NamesrvOpt = None,
    prune: PruneOpt = False,
    out: Annotated[
        str | None,
        Option("--out", metavar="PLAN", help="Also save the plan for 'apply --plan PLAN' (JSON)."),
    ] = None,
) -> None:
    """Compare a topology file with the live clusters and show what apply would do.

    Every cluster of the file is read concurrently (each master's topics and groups, the name servers'
    orderTopicConf). One row per topic or group per broker: create, update (old→new per field), delete (with
    --prune) or extra (on the cluster but not in the file, left alone). Exits 0 when nothing would change, 6
    when changes are pending, 1 when a cluster or broker could not be read (the rows that could be planned are
    still shown), 2 for a bad file.
    """
    from mqadmin.cli.commands.topology._shared import check_reachable, print_plan, read_topology, run_clusters
    from mqadmin.cli.errors import CliError, Exit, ExitCode
    from mqadmin.cli.render import json_output, print_json_stream
    from mqadmin.topology.plan import make_plan

    topology = read_topology(file)
    result: Plan = run_clusters(topology, namesrv, lambda client_for: make_plan(topology, client_for, prune=prune))
    check_reachable(result)
    if json_output():
        print_json_stream(result.json_doc())
    else:
        print_plan(result)
    if not result.complete:
        raise CliError("the plan is incomplete: some clusters or brokers could not be read", "see the errors above")
    if out is not None:
        save_plan(result, out)
    if result.changes:
        raise Exit(ExitCode.CHANGES_PENDING)


def save_plan(result: Plan, path: str) -> None:
    """Write the plan file atomically (a temporary file renamed into place)."""
    import os

    from mqadmin.cli.errors import CliError
    from mqadmin.cli.render import print_json_stream

    tmp = f"{path}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            print_json_stream(result.saved(), f)
        os.replace(tmp, path)
    except OSError as e:
        raise CliError(f"cannot write the plan to {path}: {e.strerror or e}", "check the path") from None
