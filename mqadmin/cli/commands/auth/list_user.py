"""listUser: the ACL 2.0 users of one broker or of each master of a cluster (never their passwords)."""

from __future__ import annotations

from typing import Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.auth._shared import AuthReadsDoc
from mqadmin.cli.declare import Option
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt


@command(
    "listUser",
    "mqadmin listUser -c DefaultCluster",
    "mqadmin listUser -b 127.0.0.1:10911 -f ali",
    document=AuthReadsDoc,
)
def list_user(
    namesrv: NamesrvOpt = None,
    broker_addr: BrokerAddrOpt = None,
    cluster: ClusterOpt = None,
    filter: Annotated[
        str | None, Option("-f", "--filter", metavar="TEXT", help="Only users whose name contains TEXT.")
    ] = None,
) -> None:
    """List the users (name, type, status) of one broker (-b) or of every master of a cluster (-c).

    One row per broker and user; unlike Java mqadmin, which prints the first master's users with their
    passwords, every master is shown and passwords never are.
    """
    from mqadmin.cli.commands.auth._shared import show_reads, user_json

    show_reads(
        namesrv, broker_addr, cluster, lambda admin, addr: admin.list_users(addr, filter),
        key="users", item_json=user_json, users=True, what="listUser",
    )  # fmt: skip
