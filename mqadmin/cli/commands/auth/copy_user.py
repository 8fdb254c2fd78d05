"""copyUser: copy ACL 2.0 users from one broker to another."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.auth._shared import AuthCopyDoc, FromBrokerOpt, ToBrokerOpt
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


@command(
    "copyUser",
    "mqadmin copyUser -f 127.0.0.1:10911 -t 127.0.0.1:10921",
    "mqadmin copyUser -f 127.0.0.1:10911 -t 127.0.0.1:10921 -u alice,bob",
    document=AuthCopyDoc,
)
def copy_user(
    from_broker: FromBrokerOpt,
    to_broker: ToBrokerOpt,
    namesrv: NamesrvOpt = None,
    usernames: Annotated[
        str | None, Option("-u", "--usernames", metavar="USER,...", help="Only these users [all].")
    ] = None,
) -> None:
    """Copy every user of one broker (-f), or the ones named (-u), to another broker (-t), passwords included.

    One row per user: created, updated (with what changed) or unchanged. A user named with -u that the
    source broker does not have is left out, as in Java mqadmin.
    """
    from mqadmin.admin.fanout import Target
    from mqadmin.cli.commands.auth._shared import print_changes
    from mqadmin.cli.runner import check_broker_addr, run_admin
    from mqadmin.model.auth import split_list

    check_broker_addr(from_broker, "-f")
    check_broker_addr(to_broker, "-t")
    names = split_list(usernames)

    async def go(admin: AdminClient) -> list[TargetResult]:
        return await admin.copy_users(from_broker, Target("", to_broker), names or None)

    results = run_admin(namesrv, go)
    print_changes(results, "copyUser", "USER", fromBroker=from_broker, toBroker=to_broker)
