"""getAcl: a subject's ACL as each broker holds it."""

from __future__ import annotations

from mqadmin.cli.command import command
from mqadmin.cli.commands.auth._shared import AuthReadsDoc, SubjectOpt
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt


@command(
    "getAcl",
    "mqadmin getAcl -c DefaultCluster -s User:alice",
    "mqadmin getAcl -b 127.0.0.1:10911 -s User:alice",
    document=AuthReadsDoc,
)
def get_acl(
    subject: SubjectOpt, namesrv: NamesrvOpt = None, broker_addr: BrokerAddrOpt = None, cluster: ClusterOpt = None
) -> None:
    """Show a subject's ACL entries (policy type, resource, actions, source addresses, decision) on one broker (-b)
    or on every master of a cluster (-c), one row per broker and entry."""
    from mqadmin.cli.commands.auth._shared import acl_json, checked, show_reads
    from mqadmin.model.auth import check_subject

    who = checked(check_subject, subject, "-s")
    show_reads(
        namesrv, broker_addr, cluster, lambda admin, addr: admin.get_acl(addr, who),
        key="acl", item_json=acl_json, users=False, what=f"getAcl {who}",
    )  # fmt: skip
