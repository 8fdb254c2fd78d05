"""deleteAcl: delete a subject's ACL, or its entry for one resource, on one broker or every broker of a cluster."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.auth._shared import AclChangeDoc, DryRunOpt, SubjectOpt
from mqadmin.cli.declare import Option
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt, exactly_one

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


@command(
    "deleteAcl",
    "mqadmin deleteAcl -c DefaultCluster -s User:alice                 # the whole ACL",
    "mqadmin deleteAcl -c DefaultCluster -s User:alice -r Topic:Orders  # one resource's entry",
    document=AclChangeDoc,
)
def delete_acl(
    subject: SubjectOpt,
    namesrv: NamesrvOpt = None,
    broker_addr: BrokerAddrOpt = None,
    cluster: ClusterOpt = None,
    resource: Annotated[
        str | None, Option("-r", "--resources", metavar="TYPE:NAME", help="Only this resource's entry.")
    ] = None,
    dry_run: DryRunOpt = False,
) -> None:
    """Delete a subject's whole ACL, or (-r) its entry for one resource, on one broker (-b) or every broker,
    masters and slaves, of a cluster (-c).

    A broker without that ACL or entry reports "not found". With --dry-run the brokers are only read.
    """
    from mqadmin.cli.commands.auth._shared import auth_targets, checked, print_changes
    from mqadmin.cli.runner import run_admin
    from mqadmin.model.auth import check_resource, check_subject

    exactly_one(broker_addr, cluster)
    who = checked(check_subject, subject, "-s")
    what = checked(check_resource, resource, "-r") if resource else None

    async def go(admin: AdminClient) -> list[TargetResult]:
        targets = await auth_targets(admin, broker_addr, cluster, every_address=True)
        return await admin.delete_acl_on(targets, who, what, dry_run=dry_run)

    results = run_admin(namesrv, go)
    print_changes(results, f"deleteAcl {who}", subject=who, resource=what, dryRun=dry_run)
