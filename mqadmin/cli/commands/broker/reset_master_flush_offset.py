"""resetMasterFlushOffset: set the master flush offset a slave replicates from."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


class MasterFlushOffsetDoc(TypedDict):
    masterFlushOffset: int
    results: list[TargetResultDoc]
    outcome: Outcome


@command(
    "resetMasterFlushOffset", "mqadmin resetMasterFlushOffset -b 127.0.0.1:10921 -o 0", document=MasterFlushOffsetDoc
)
def reset_master_flush_offset(
    broker_addr: Annotated[
        str, Option("-b", "--brokerAddr", metavar="HOST:PORT", help="Address of the broker (a slave).")
    ],
    offset: Annotated[int, Option("-o", "--offset", metavar="OFFSET", min=0, help="Commit-log offset.")],
    namesrv: NamesrvOpt = None,
) -> None:
    """Set the master flush offset of a slave (RESET_MASTER_FLUSH_OFFSET): where in the commit log it takes
    replication up again. The broker applies it only while it is a slave; a master answers success and keeps
    its own. Prints the broker with its result.
    """
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import (
        broker_targets,
        check_broker_addr,
        exit_for_results,
        print_results,
        results_json,
        run_admin,
    )

    check_broker_addr(broker_addr)

    async def go(admin: AdminClient) -> list[TargetResult]:
        from mqadmin.admin import Status, Target, TargetResult
        from mqadmin.admin.fanout import fan_out

        async def one(t: Target) -> TargetResult:
            await admin.reset_master_flush_offset(t.addr, offset)
            return TargetResult(t.name, t.addr, Status.OK)

        return await fan_out(await broker_targets(admin, broker_addr, None, masters_only=False), one)

    results = run_admin(namesrv, go)
    if json_output():
        print_json(results_json(results, masterFlushOffset=offset))
    else:
        print_results(results)
    exit_for_results(results, "resetMasterFlushOffset")
