"""updateUser: change an ACL 2.0 user's password, type or status on one broker or every broker of a cluster."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.auth._shared import PasswordFileOpt, PasswordOpt, PasswordStdinOpt, UserChangeDoc, UsernameOpt
from mqadmin.cli.declare import Option
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt, exactly_one

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


@command(
    "updateUser",
    "mqadmin updateUser -c DefaultCluster -u alice                  # asks for the new password",
    "mqadmin updateUser -c DefaultCluster -u alice -s disable",
    "mqadmin updateUser -b 127.0.0.1:10911 -u ci --password-file ci.secret",
    document=UserChangeDoc,
)
def update_user(
    username: UsernameOpt,
    namesrv: NamesrvOpt = None,
    broker_addr: BrokerAddrOpt = None,
    cluster: ClusterOpt = None,
    password: PasswordOpt = None,
    password_file: PasswordFileOpt = None,
    password_stdin: PasswordStdinOpt = False,
    user_type: Annotated[str | None, Option("-t", "--userType", metavar="Super|Normal", help="New user type.")] = None,
    user_status: Annotated[
        str | None, Option("-s", "--userStatus", metavar="enable|disable", help="New user status.")
    ] = None,
) -> None:
    """Change the password, type (-t) or status (-s) of a user on one broker (-b) or every broker of a cluster (-c).

    Only what is given changes. Without -t and -s, the new password is asked for (without echo) unless
    --password-file, --password-stdin or -p gives it. A broker where nothing would change reports
    "unchanged"; one without the user reports failed.
    """
    from mqadmin.cli.commands.auth._shared import auth_targets, checked, print_changes
    from mqadmin.cli.commands.auth._shared import password as read_password
    from mqadmin.cli.runner import run_admin
    from mqadmin.model.auth import USER_STATUSES, USER_TYPES, UserInfo, canonical

    exactly_one(broker_addr, cluster)
    kind = checked(lambda v: canonical(v, USER_TYPES, "user type"), user_type, "-t") if user_type else None
    status = checked(lambda v: canonical(v, USER_STATUSES, "user status"), user_status, "-s") if user_status else None
    needs_password = kind is None and status is None
    secret = read_password(password, password_file, password_stdin, required=needs_password, confirm=True)
    change = UserInfo(username.strip(), secret, kind, status)

    async def go(admin: AdminClient) -> list[TargetResult]:
        targets = await auth_targets(admin, broker_addr, cluster, every_address=True)
        return await admin.update_user_on(targets, change)

    results = run_admin(namesrv, go)
    print_changes(results, f"updateUser {change.username}", username=change.username)
