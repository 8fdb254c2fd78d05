"""updateTopicPerm: change only a topic's permission, on one broker or every master of a cluster."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetGiven, TargetResultDoc
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt, TopicOpt, check_topic, exactly_one

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


class UpdateTopicPermDoc(TypedDict):
    topic: str
    perm: int
    target: TargetGiven
    results: list[TargetResultDoc]
    outcome: Outcome


@command(
    "updateTopicPerm",
    "mqadmin updateTopicPerm -c DefaultCluster -t Orders -p 4      # read-only everywhere",
    "mqadmin updateTopicPerm -b 127.0.0.1:10911 -t Orders -p 6",
    blocking=True,
    document=UpdateTopicPermDoc,
)
def update_topic_perm(
    topic: TopicOpt,
    perm: Annotated[
        int, Option("-p", "--perm", metavar="2|4|6", help="New permission: 2 write-only, 4 read-only, 6 both.")
    ],
    namesrv: NamesrvOpt = None,
    broker_addr: BrokerAddrOpt = None,
    cluster: ClusterOpt = None,
) -> None:
    """Change a topic's permission on one broker (-b, a master) or on every master of a cluster (-c).

    Only the permission changes: queues, flags, order and attributes stay as each broker holds them.
    Each broker reports updated (perm old→new), unchanged (it already had this permission; nothing is
    sent), not found (it does not hold the topic; nothing is created) or failed with the reason.
    """
    from mqadmin.admin import Status
    from mqadmin.admin.topics import TopicChange
    from mqadmin.cli.commands.topic._shared import PERM_HINT, PERMS
    from mqadmin.cli.errors import CliError, ExitCode, usage_error
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import broker_targets, exit_for_results, print_results, results_json, run_admin

    exactly_one(broker_addr, cluster)
    check_topic(topic, allow_system=False)
    if perm not in PERMS:
        raise usage_error(f"-p {perm} is not a valid permission", PERM_HINT)

    async def go(admin: AdminClient) -> list[TargetResult]:
        targets = await broker_targets(admin, broker_addr, cluster, masters_only=True, what="updateTopicPerm")
        return await admin.update_topic_on(targets, TopicChange(topic, perm=perm), must_exist=True)

    results = run_admin(namesrv, go)
    if json_output():
        target = {"cluster": cluster} if cluster else {"brokerAddr": broker_addr}
        print_json(results_json(results, topic=topic, perm=perm, target=target))
    else:
        print_results(results)
    exit_for_results(results, f"updateTopicPerm {topic}")
    if results and all(r.status == Status.NOT_FOUND for r in results):
        where = f"cluster {cluster!r}" if cluster else broker_addr
        raise CliError(
            f"topic {topic!r} does not exist on {where}",
            "create it with: mqadmin updateTopic (list topics with: mqadmin topicList)",
            ExitCode.FAILURE,
        )
