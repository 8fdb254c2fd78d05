"""copyAcl: copy ACLs from one broker to another."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.auth._shared import AuthCopyDoc, FromBrokerOpt, ToBrokerOpt
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


@command(
    "copyAcl",
    "mqadmin copyAcl -f 127.0.0.1:10911 -t 127.0.0.1:10921",
    "mqadmin copyAcl -f 127.0.0.1:10911 -t 127.0.0.1:10921 -s User:alice,User:bob",
    document=AuthCopyDoc,
)
def copy_acl(
    from_broker: FromBrokerOpt,
    to_broker: ToBrokerOpt,
    namesrv: NamesrvOpt = None,
    subjects: Annotated[
        str | None, Option("-s", "--subjects", metavar="User:NAME,...", help="Only these subjects [all].")
    ] = None,
) -> None:
    """Copy every ACL of one broker (-f), or the subjects named (-s), to another broker (-t).

    One row per subject: created, updated (old -> new per resource) or unchanged. The users must exist on
    the target broker (copy them first with copyUser).
    """
    from mqadmin.admin.fanout import Target
    from mqadmin.cli.commands.auth._shared import checked, print_changes
    from mqadmin.cli.runner import check_broker_addr, run_admin
    from mqadmin.model.auth import check_subject, split_list

    check_broker_addr(from_broker, "-f")
    check_broker_addr(to_broker, "-t")
    names = [checked(check_subject, s, "-s") for s in split_list(subjects)]

    async def go(admin: AdminClient) -> list[TargetResult]:
        return await admin.copy_acls(from_broker, Target("", to_broker), names or None)

    results = run_admin(namesrv, go)
    print_changes(results, "copyAcl", "SUBJECT", fromBroker=from_broker, toBroker=to_broker)
