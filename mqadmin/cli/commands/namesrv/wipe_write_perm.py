"""wipeWritePerm: take a broker's write permission away in every name server's routes (drain it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.namesrv._shared import (
    BrokerNameOpt,
    WritePermDoc,
    broker_name,
    check_known,
    counts_json,
    print_counts,
)
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


@command(
    "wipeWritePerm",
    "mqadmin wipeWritePerm -b broker-a --dry-run   # the routes that would lose write permission",
    "mqadmin wipeWritePerm -b broker-a",
    "mqadmin addWritePerm -b broker-a              # undo",
    blocking=True,
    async_with=("dry_run",),  # the plan reads routes under asyncio's semaphore,
    document=WritePermDoc,
)
def wipe_write_perm(
    broker: BrokerNameOpt,
    namesrv: NamesrvOpt = None,
    dry_run: Annotated[
        bool, Option("--dry-run", help="Show the routes that would lose write permission; change nothing.")
    ] = False,
) -> None:
    """Remove a broker's write permission from its queues in every name server's routes (WIPE_WRITE_PERM_OF_BROKER).

    Producers stop sending to the broker once they refresh their routes (about 30 s) while consumers go on
    reading it: the way to drain a broker before maintenance. It lasts until addWritePerm, or until the broker
    registers a changed topic table. Each name server reports the number of the broker's topics it changed.
    --dry-run reads each name server's routes instead and lists the topics whose queues on the broker would
    lose write permission.
    """
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import exit_for_results, run_admin

    name = broker_name(broker)

    async def go(admin: AdminClient) -> list[TargetResult]:
        await check_known(admin, name)
        return await (admin.wipe_write_perm_plan(name) if dry_run else admin.wipe_write_perm(name))

    results = run_admin(namesrv, go)
    if dry_run:
        _show_plan(results, name)
    elif json_output():
        print_json(counts_json(results, name))
    else:
        print_counts(results)
    exit_for_results(results, f"wipeWritePerm {name}")


def _show_plan(results: list[TargetResult], name: str) -> None:
    from mqadmin.cli.render import Column, json_output, note, print_json, print_table
    from mqadmin.cli.runner import print_results, results_json
    from mqadmin.model.topic import perm_to_string

    if json_output():
        doc = results_json(results, brokerName=name, dryRun=True)
        for entry, r in zip(doc["results"], results, strict=True):
            plan = r.data
            entry["topicCount"] = plan.count if plan else None
            entry["topics"] = (
                [{"topic": c.topic, "perm": {"old": c.old, "new": c.new}} for c in plan.changes] if plan else []
            )
        print_json(doc)
        return
    rows = [
        (r.addr, c.topic, f"{perm_to_string(c.old)}→{perm_to_string(c.new)}")
        for r in results
        if r.ok
        for c in r.data.changes
    ]
    print_table([Column("NAME SERVER"), Column("TOPIC"), Column("PERM")], rows)
    for r in results:
        if r.ok:
            plan = r.data
            lose = len(plan.changes)
            note(f"dry run: {r.addr}: {lose} of the {plan.count} topics of {name} would lose write permission")
    failed = [r for r in results if not r.ok]
    if failed:
        print_results(failed, "NAME SERVER")
