"""addWritePerm: give a broker's queues write permission again in every name server's routes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqadmin.cli.command import command
from mqadmin.cli.commands.namesrv._shared import (
    BrokerNameOpt,
    WritePermDoc,
    broker_name,
    check_known,
    counts_json,
    print_counts,
)
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


@command("addWritePerm", "mqadmin addWritePerm -b broker-a", blocking=True, document=WritePermDoc)
def add_write_perm(broker: BrokerNameOpt, namesrv: NamesrvOpt = None) -> None:
    """Give a broker's queues write permission again in every name server's routes (ADD_WRITE_PERM_OF_BROKER).

    The undo of wipeWritePerm. As in RocketMQ, the name servers set the permission of every queue data of the
    broker to read-write (6), also for topics that had another one until the broker registers again. Each name
    server reports the number of the broker's topics it changed.
    """
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import exit_for_results, run_admin

    name = broker_name(broker)

    async def go(admin: AdminClient) -> list[TargetResult]:
        await check_known(admin, name)
        return await admin.add_write_perm(name)

    results = run_admin(namesrv, go)
    if json_output():
        print_json(counts_json(results, name))
    else:
        print_counts(results)
    exit_for_results(results, f"addWritePerm {name}")
