"""deleteTopic: delete a topic from every master of a cluster, then from the name servers' routes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.params import NamesrvOpt, TopicOpt, check_topic

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


class DeleteTopicDoc(TypedDict):
    topic: str
    cluster: str
    results: Annotated[list[TargetResultDoc], "each master, then each name server"]
    outcome: Outcome


@command(
    "deleteTopic",
    "mqadmin deleteTopic -c DefaultCluster -t Orders",
    "mqadmin deleteTopic -c DefaultCluster -t Orders --if-exists   # exit 0 when there is no such topic",
    blocking=True,
    document=DeleteTopicDoc,
)
def delete_topic(
    topic: TopicOpt,
    cluster: Annotated[str, Option("-c", "--clusterName", metavar="CLUSTER", help="Cluster name.")],
    namesrv: NamesrvOpt = None,
    if_exists: Annotated[bool, Option("--if-exists", help="No error when no broker has the topic.")] = False,
) -> None:
    """Delete a topic from every master of a cluster, then from every name server's routes.

    Each broker reports deleted, not found (it did not have the topic) or failed. The routes are
    removed from the name servers only when no broker failed, so a topic that some broker still holds
    stays visible; run the command again once the failed brokers are back. System topics are refused
    before anything is sent.
    """
    from mqadmin.admin import Status
    from mqadmin.cli.errors import CliError, ExitCode
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import exit_for_results, print_results, results_json, run_admin

    check_topic(topic, allow_system=False)

    async def go(admin: AdminClient) -> list[TargetResult]:
        return await admin.delete_topic(cluster, topic)

    results = run_admin(namesrv, go)
    if json_output():
        print_json(results_json(results, topic=topic, cluster=cluster))
    else:
        print_results(results, "TARGET")
    exit_for_results(results, f"deleteTopic {topic}")
    if not if_exists and results and all(r.status == Status.NOT_FOUND for r in results):
        raise CliError(
            f"topic {topic!r} does not exist on cluster {cluster!r}",
            "list topics with: mqadmin topicList (or pass --if-exists)",
            ExitCode.FAILURE,
        )
