"""deleteUser: delete an ACL 2.0 user (and its ACL) from one broker or every broker of a cluster."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqadmin.cli.command import command
from mqadmin.cli.commands.auth._shared import DryRunOpt, UserChangeDoc, UsernameOpt
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt, exactly_one

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


@command(
    "deleteUser",
    "mqadmin deleteUser -c DefaultCluster -u alice",
    "mqadmin deleteUser -c DefaultCluster -u alice --dry-run",
    document=UserChangeDoc,
)
def delete_user(
    username: UsernameOpt,
    namesrv: NamesrvOpt = None,
    broker_addr: BrokerAddrOpt = None,
    cluster: ClusterOpt = None,
    dry_run: DryRunOpt = False,
) -> None:
    """Delete a user from one broker (-b) or every broker, masters and slaves, of a cluster (-c).

    The brokers delete the user's ACL with it. A broker without the user reports "not found". With --dry-run
    the brokers are only read: the rows show where the user would be deleted.
    """
    from mqadmin.cli.commands.auth._shared import auth_targets, print_changes
    from mqadmin.cli.runner import run_admin

    exactly_one(broker_addr, cluster)
    name = username.strip()

    async def go(admin: AdminClient) -> list[TargetResult]:
        targets = await auth_targets(admin, broker_addr, cluster, every_address=True)
        return await admin.delete_user_on(targets, name, dry_run=dry_run)

    results = run_admin(namesrv, go)
    print_changes(results, f"deleteUser {name}", username=name, dryRun=dry_run)
