"""getUser: one ACL 2.0 user as each broker holds it (never its password)."""

from __future__ import annotations

from mqadmin.cli.command import command
from mqadmin.cli.commands.auth._shared import AuthReadsDoc, UsernameOpt
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt


@command(
    "getUser",
    "mqadmin getUser -c DefaultCluster -u alice",
    "mqadmin getUser -b 127.0.0.1:10911 -u alice",
    document=AuthReadsDoc,
)
def get_user(
    username: UsernameOpt, namesrv: NamesrvOpt = None, broker_addr: BrokerAddrOpt = None, cluster: ClusterOpt = None
) -> None:
    """Show a user (type and status) on one broker (-b) or on every master of a cluster (-c), one row per broker.

    Unlike Java mqadmin, the password is never shown. A broker without the user has no row (and null in
    JSON); a user found nowhere is an error (exit 1).
    """
    from mqadmin.cli.commands.auth._shared import show_reads, user_json
    from mqadmin.cli.errors import CliError

    name = username.strip()
    reads = show_reads(
        namesrv, broker_addr, cluster, lambda admin, addr: admin.get_user(addr, name),
        key="user", item_json=user_json, users=True, what=f"getUser {name}",
    )  # fmt: skip
    if not any(r.value for r in reads):
        raise CliError(f"no user {name!r} on any of these brokers", "list the users with: mqadmin listUser")
