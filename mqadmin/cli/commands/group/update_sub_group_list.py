"""updateSubGroupList: create or update the subscription groups of a file on one broker or every master."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetGiven, TargetResultDoc
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt, exactly_one

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.admin.groups import GroupResult


class GroupListResultDoc(TargetResultDoc):
    group: str


class UpdateSubGroupListDoc(TypedDict):
    file: str
    target: TargetGiven
    results: list[GroupListResultDoc]
    outcome: Outcome


@command(
    "updateSubGroupList",
    "mqadmin updateSubGroupList -c DefaultCluster -f groups.json",
    "mqadmin updateSubGroupList -b 127.0.0.1:10911 -f groups.toml",
    document=UpdateSubGroupListDoc,
)
def update_sub_group_list(
    file: Annotated[
        str,
        Option(
            "-f",
            "--filename",
            metavar="FILE",
            help="JSON list of SubscriptionGroupConfig (as Java's tool takes) or TOML.",
        ),
    ],
    namesrv: NamesrvOpt = None,
    broker_addr: BrokerAddrOpt = None,
    cluster: ClusterOpt = None,
) -> None:
    """Create or update every subscription group of a file on one broker (-b) or every master of a cluster (-c).

    The file is Java's: a JSON list of group configs ([{"groupName": "G", "retryMaxTimes": 3}, ...]), or TOML
    with one [[group]] table per group and the same keys. Each group changes only the settings its entry has;
    the whole file is checked before anything is sent. Each broker is read once and gets the groups that
    change in one request (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST, 5.3.1+; older brokers one request per
    group). Prints one row per group per broker: created, updated (old→new), unchanged or failed.
    """
    from mqadmin.cli.commands.group._shared import warn_not_kept
    from mqadmin.cli.commands.group.group_file import read_group_file
    from mqadmin.cli.render import Column, json_output, print_json, print_table
    from mqadmin.cli.runner import broker_targets, describe_changes, exit_for_results, results_json, run_admin

    exactly_one(broker_addr, cluster)
    changes = read_group_file(file)

    async def go(admin: AdminClient) -> list[GroupResult]:
        targets = await broker_targets(admin, broker_addr, cluster, masters_only=True, what="group creation")
        return await admin.update_groups_on(targets, changes)

    results = run_admin(namesrv, go)
    if json_output():
        target = {"cluster": cluster} if cluster else {"brokerAddr": broker_addr}
        print_json(results_json(results, file=file, target=target))
    else:
        with_changes, with_reason = any(r.changes for r in results), any(r.reason for r in results)
        columns = [Column("GROUP"), Column("BROKER"), Column("ADDRESS"), Column("RESULT", styled=True)]
        columns += [Column("CHANGES")] if with_changes else []
        columns += [Column("REASON")] if with_reason else []
        rows = []
        for r in sorted(results, key=lambda r: (r.group, r.name)):
            row: list[object] = [r.group, r.name or "?", r.addr, str(r.status)]
            row += [describe_changes(r.changes)] if with_changes else []
            row += [r.reason or ""] if with_reason else []
            rows.append(row)
        print_table(columns, rows)
    by_group = {c.group: c for c in changes}
    for r in results:
        warn_not_kept([r], by_group[r.group])
    exit_for_results(results, f"updateSubGroupList {file}")
