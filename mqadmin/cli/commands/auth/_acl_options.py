"""The options createAcl and updateAcl share (Java's -s -r -a -d -i) and the ACL they describe."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.declare import Option

if TYPE_CHECKING:
    from mqadmin.model.auth import AclInfo

ResourcesOpt = Annotated[
    str,
    Option(
        "-r", "--resources", metavar="TYPE:NAME,...", help="Resources: Topic:T, Group:G, Topic:prefix*, Topic:*, *."
    ),
]
ActionsOpt = Annotated[
    str, Option("-a", "--actions", metavar="ACTION,...", help="Pub, Sub, Create, Update, Delete, Get, List, All.")
]
DecisionOpt = Annotated[str, Option("-d", "--decision", metavar="Allow|Deny", help="Allow or Deny.")]
SourceIpOpt = Annotated[
    str | None,
    Option("-i", "--sourceIp", metavar="IP[/BITS],...", help="Only from these addresses or CIDR blocks."),
]


def acl_of(subject: str, resources: str, actions: str, decision: str, source_ips: str | None) -> AclInfo:
    """The ACL the options describe, each value checked (usage error naming the option and the value)."""
    from mqadmin.cli.commands.auth._shared import checked
    from mqadmin.cli.errors import usage_error
    from mqadmin.model.auth import (
        ACTIONS,
        DECISIONS,
        AclInfo,
        canonical,
        check_resource,
        check_source_ip,
        check_subject,
        split_list,
    )

    resource_list = [checked(check_resource, r, "-r") for r in split_list(resources)]
    action_list = [checked(lambda a: canonical(a, ACTIONS, "action"), a, "-a") for a in split_list(actions)]
    if not resource_list:
        raise usage_error("-r names no resource", "for example: -r Topic:Orders,Group:billing")
    if not action_list:
        raise usage_error("-a names no action", "for example: -a Pub,Sub")
    return AclInfo.of(
        checked(check_subject, subject, "-s"),
        resource_list,
        action_list,
        checked(lambda d: canonical(d, DECISIONS, "decision"), decision, "-d"),
        [checked(check_source_ip, ip, "-i") for ip in split_list(source_ips)],
    )
