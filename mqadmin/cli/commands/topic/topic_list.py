"""topicList: every topic the name server knows, one per line; with -c, each topic's clusters and groups."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.admin.topic_batch import TopicUsage


class TopicUsageDoc(TypedDict):
    topic: str
    clusters: Annotated[list[str], "the clusters whose brokers hold the topic"]
    groups: Annotated[list[str], "the consumer groups that consume it"]
    reason: Annotated[str | None, "why it could not be looked up (null: it was)"]


class TopicListDoc(TypedDict):
    topics: Annotated[list[str] | list[TopicUsageDoc], "the topic names, sorted; with -c, each topic's usage"]


@command(
    "topicList",
    "mqadmin topicList",
    "mqadmin topicList | wc -l",
    "mqadmin topicList -c",
    blocking=True,
    async_with=("cluster_model",),  # -c asks the brokers of every topic, bounded by asyncio's semaphore
    document=TopicListDoc,
)
def topic_list(
    namesrv: NamesrvOpt = None,
    cluster_model: Annotated[
        bool,
        Option("-c", "--clusterModel", help="Per topic: its clusters and the consumer groups of each."),
    ] = False,
) -> None:
    """List every topic the name server knows, one per line, sorted (nothing at all when there are none).

    With -c, one row per topic and consumer group: the clusters holding the topic and the groups that
    consume it (asked of every master of its route; %RETRY% and %DLQ% topics are left out, as Java does).
    A topic that could not be looked up gets a REASON and the exit code is 3.
    """
    from mqadmin.cli.render import json_output, print_json, print_lines
    from mqadmin.cli.runner import run_admin

    if cluster_model:
        _cluster_model(namesrv)
        return

    async def go(admin: AdminClient) -> list[str]:
        return await admin.topic_list()

    topics = sorted(run_admin(namesrv, go))
    if json_output():
        doc: TopicListDoc = {"topics": topics}
        print_json(doc)
    else:
        print_lines(topics)


def _cluster_model(namesrv: str | None) -> None:
    from mqadmin.cli.errors import CliError, ExitCode
    from mqadmin.cli.render import Column, json_output, print_json, print_table
    from mqadmin.cli.runner import run_admin

    async def go(admin: AdminClient) -> list[TopicUsage]:
        info = await admin.cluster_info()
        return await admin.topic_usage(sorted(await admin.topic_list()), info)

    usages = run_admin(namesrv, go)
    failed = [u for u in usages if u.reason]
    if json_output():
        usage_docs: list[TopicUsageDoc] = [
            {"topic": u.topic, "clusters": u.clusters, "groups": u.groups, "reason": u.reason} for u in usages
        ]
        doc: TopicListDoc = {"topics": usage_docs}
        print_json(doc)
    else:
        columns = [Column("CLUSTER"), Column("TOPIC"), Column("CONSUMER GROUP")] + (
            [Column("REASON")] if failed else []
        )
        rows = [
            [",".join(u.clusters), u.topic, group] + ([u.reason or ""] if failed else [])
            for u in usages
            for group in (u.groups or [""])
        ]
        print_table(columns, rows)
    if failed:
        code = ExitCode.FAILURE if len(failed) == len(usages) else ExitCode.PARTIAL
        raise CliError(
            f"{len(failed)} of {len(usages)} topics could not be looked up ({failed[0].topic}: {failed[0].reason})",
            "see the REASON column; the other topics are listed",
            code,
        )
