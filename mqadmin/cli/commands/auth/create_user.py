"""createUser: create an ACL 2.0 user on one broker or on every broker of a cluster."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.auth._shared import PasswordFileOpt, PasswordOpt, PasswordStdinOpt, UserChangeDoc, UsernameOpt
from mqadmin.cli.declare import Option
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt, exactly_one

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult

UserTypeOpt = Annotated[str | None, Option("-t", "--userType", metavar="Super|Normal", help="User type [Normal].")]


@command(
    "createUser",
    "mqadmin createUser -c DefaultCluster -u alice                  # asks for the password",
    "mqadmin createUser -c DefaultCluster -u ci --password-file ci.secret",
    "pass show rocketmq/ops | mqadmin createUser -b 127.0.0.1:10911 -u ops -t Super --password-stdin",
    document=UserChangeDoc,
)
def create_user(
    username: UsernameOpt,
    namesrv: NamesrvOpt = None,
    broker_addr: BrokerAddrOpt = None,
    cluster: ClusterOpt = None,
    password: PasswordOpt = None,
    password_file: PasswordFileOpt = None,
    password_stdin: PasswordStdinOpt = False,
    user_type: UserTypeOpt = None,
) -> None:
    """Create a user on one broker (-b) or on every broker, masters and slaves, of a cluster (-c).

    The password comes from --password-file, --password-stdin or a prompt without echo (or -p, as in Java
    mqadmin). A broker that already has the user with the same settings reports "unchanged"; one whose user
    differs reports failed (use updateUser). Only a super user can create a super user.
    """
    from mqadmin.cli.commands.auth._shared import auth_targets, checked, print_changes
    from mqadmin.cli.commands.auth._shared import password as read_password
    from mqadmin.cli.runner import run_admin
    from mqadmin.model.auth import USER_TYPES, UserInfo, canonical

    exactly_one(broker_addr, cluster)
    kind = checked(lambda v: canonical(v, USER_TYPES, "user type"), user_type, "-t") if user_type else None
    secret = read_password(password, password_file, password_stdin, required=True, confirm=True)
    user = UserInfo(username.strip(), secret, kind)

    async def go(admin: AdminClient) -> list[TargetResult]:
        targets = await auth_targets(admin, broker_addr, cluster, every_address=True)
        return await admin.create_user_on(targets, user)

    results = run_admin(namesrv, go)
    print_changes(results, f"createUser {user.username}", username=user.username, userType=kind)
