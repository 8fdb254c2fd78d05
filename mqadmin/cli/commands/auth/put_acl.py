"""createAcl and updateAcl: give a subject ACL entries on one broker or every broker of a cluster.

One module for both: Apache's brokers treat the two requests alike (add the entries of new resources,
replace those of known ones), so the commands differ only in the request code they send."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqadmin.cli.command import command
from mqadmin.cli.commands.auth._acl_options import ActionsOpt, DecisionOpt, ResourcesOpt, SourceIpOpt
from mqadmin.cli.commands.auth._shared import AclChangeDoc, SubjectOpt
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt, exactly_one

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


def _register(name: str, create: bool) -> None:
    @command(
        name,
        f"mqadmin {name} -c DefaultCluster -s User:alice -r Topic:Orders -a Pub -d Allow",
        f"mqadmin {name} -c DefaultCluster -s User:alice -r Topic:app-*,Group:app -a Pub,Sub -d Allow -i 10.0.0.0/8",
        document=AclChangeDoc,
    )
    def put_acl(
        subject: SubjectOpt,
        resources: ResourcesOpt,
        actions: ActionsOpt,
        decision: DecisionOpt,
        namesrv: NamesrvOpt = None,
        broker_addr: BrokerAddrOpt = None,
        cluster: ClusterOpt = None,
        source_ip: SourceIpOpt = None,
    ) -> None:
        """Give a subject (-s User:NAME) ACL entries: for each resource (-r) the actions (-a), the decision (-d)
        and optionally the source addresses (-i), on one broker (-b) or every broker, masters and slaves, of a
        cluster (-c).

        As in Apache RocketMQ, createAcl and updateAcl both add the entries for resources the ACL lacks and
        replace those for resources it has; other entries stay. Each broker reports created (it had no ACL for
        the subject), updated (old -> new per resource) or unchanged (nothing sent). The user must exist.
        """
        from mqadmin.cli.commands.auth._acl_options import acl_of
        from mqadmin.cli.commands.auth._shared import auth_targets, print_changes
        from mqadmin.cli.runner import run_admin

        exactly_one(broker_addr, cluster)
        acl = acl_of(subject, resources, actions, decision, source_ip)

        async def go(admin: AdminClient) -> list[TargetResult]:
            targets = await auth_targets(admin, broker_addr, cluster, every_address=True)
            return await admin.put_acl_on(targets, acl, create=create)

        results = run_admin(namesrv, go)
        print_changes(results, f"{name} {acl.subject}", subject=acl.subject)


_register("createAcl", create=True)
_register("updateAcl", create=False)
