"""getConsumerConfig: a subscription group's config on every broker that has it."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.group._shared import GroupResultDoc
from mqadmin.cli.doc_types import Outcome
from mqadmin.cli.params import GroupOpt, NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, Target, TargetResult


class ConsumerConfigResultDoc(GroupResultDoc):
    cluster: str


class ConsumerConfigDoc(TypedDict):
    group: str
    results: list[ConsumerConfigResultDoc]
    outcome: Outcome


@command("getConsumerConfig", "mqadmin getConsumerConfig -g OrdersConsumer", document=ConsumerConfigDoc)
def get_consumer_config(group: GroupOpt, namesrv: NamesrvOpt = None) -> None:
    """A subscription group's config on every broker the name server knows that has it, one row per setting.

    Each broker is read from its master (a slave when it has no master), concurrently. Brokers that do not
    have the group are left out of the table (JSON lists them as "not found"); a broker that cannot be read
    is listed with the reason. No broker having the group exits 1.
    """
    from mqadmin.admin import Status
    from mqadmin.admin.groups import config_targets
    from mqadmin.cli.commands.group._shared import check_group, format_value, group_config_json
    from mqadmin.cli.errors import CliError, ExitCode
    from mqadmin.cli.render import Column, json_output, print_json, print_table
    from mqadmin.cli.runner import exit_for_results, print_results, results_json, run_admin

    check_group(group, creating=False)

    async def go(admin: AdminClient) -> tuple[list[Target], list[TargetResult]]:
        targets = config_targets(await admin.cluster_info())
        return targets, await admin.group_config_on(targets, group)

    targets, results = run_admin(namesrv, go)
    found = [(t, r) for t, r in zip(targets, results, strict=True) if r.status == Status.OK]
    if json_output():
        doc = results_json(results, group=group)
        for entry, t, r in zip(doc["results"], targets, results, strict=True):
            entry["cluster"] = t.cluster
            entry["config"] = group_config_json(r.data) if r.data is not None else None
        print_json(doc)
    else:
        rows = [
            (t.cluster, t.name, key, format_value(value))
            for t, r in found
            for key, value in group_config_json(r.data).items()
        ]
        print_table([Column("CLUSTER"), Column("BROKER"), Column("SETTING"), Column("VALUE")], rows)
        failed = [r for r in results if not r.ok]
        if failed:
            print()
            print_results(failed, "BROKER")
    exit_for_results(results, f"getConsumerConfig {group}")
    if not found:
        raise CliError(
            f"no broker has the group {group!r}",
            "check the name; updateSubGroup creates a group",
            ExitCode.FAILURE,
        )
