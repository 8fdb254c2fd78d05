"""listAcl: the ACLs of one broker or of each master of a cluster, optionally filtered."""

from __future__ import annotations

from typing import Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.auth._shared import AuthReadsDoc
from mqadmin.cli.declare import Option
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt


@command(
    "listAcl",
    "mqadmin listAcl -c DefaultCluster",
    "mqadmin listAcl -b 127.0.0.1:10911 -s alice -r Topic:Orders",
    document=AuthReadsDoc,
)
def list_acl(
    namesrv: NamesrvOpt = None,
    broker_addr: BrokerAddrOpt = None,
    cluster: ClusterOpt = None,
    subject: Annotated[
        str | None, Option("-s", "--subject", metavar="TEXT", help="Only subjects containing TEXT.")
    ] = None,
    resource: Annotated[
        str | None, Option("-r", "--resource", metavar="TEXT", help="Only entries for resources containing TEXT.")
    ] = None,
) -> None:
    """List the ACLs of one broker (-b) or of every master of a cluster (-c): one row per broker and entry."""
    from mqadmin.cli.commands.auth._shared import acl_json, show_reads

    show_reads(
        namesrv, broker_addr, cluster, lambda admin, addr: admin.list_acls(addr, subject, resource),
        key="acls", item_json=acl_json, users=False, what="listAcl",
    )  # fmt: skip
