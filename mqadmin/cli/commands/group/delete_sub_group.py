"""deleteSubGroup: delete a subscription group from one broker or every master of a cluster."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetGiven, TargetResultDoc
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, GroupOpt, NamesrvOpt, exactly_one, parse_bool

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, Target, TargetResult
    from mqadmin.model.route import ClusterInfo


class GroupTopicDeletionDoc(TypedDict):
    topic: Annotated[str, "the group's %RETRY% or %DLQ% topic"]
    results: list[TargetResultDoc]
    outcome: Outcome


class DeleteSubGroupDoc(TypedDict):
    group: str
    target: TargetGiven
    dryRun: bool
    removeOffset: Annotated[bool, "-r: the group's offsets removed too"]
    results: Annotated[list[TargetResultDoc], "each broker"]
    topics: Annotated[list[GroupTopicDeletionDoc], "-r: its retry and dead-letter topics deleted"]
    outcome: Outcome


@command(
    "deleteSubGroup",
    "mqadmin deleteSubGroup -c DefaultCluster -g OrdersConsumer --dry-run   # show what would be deleted",
    "mqadmin deleteSubGroup -c DefaultCluster -g OrdersConsumer -r true     # its offsets too",
    "mqadmin deleteSubGroup -b 127.0.0.1:10911 -g OrdersConsumer --if-exists",
    blocking=True,
    document=DeleteSubGroupDoc,
)
def delete_sub_group(
    group: GroupOpt,
    namesrv: NamesrvOpt = None,
    broker_addr: BrokerAddrOpt = None,
    cluster: ClusterOpt = None,
    remove_offset: Annotated[
        str | None,
        Option("-r", "--removeOffset", metavar="true|false", help="Also remove the group's consumer offsets [false]."),
    ] = None,
    keep_topics: Annotated[
        bool,
        Option("--keep-topics", help="With -c: keep the group's %RETRY% and %DLQ% topics (Java's tool deletes them)."),
    ] = False,
    dry_run: Annotated[bool, Option("--dry-run", help="Only show what would be deleted; change nothing.")] = False,
    if_exists: Annotated[bool, Option("--if-exists", help="No error when no broker has the group.")] = False,
) -> None:
    """Delete a subscription group from one broker (-b) or every master of a cluster (-c).

    Each broker reports deleted, not found (it did not have the group; nothing is sent to it) or failed. With
    -c, as Java's tool does, the group's retry and dead-letter topics (%RETRY%GROUP, %DLQ%GROUP) are then
    deleted from the cluster and the name servers, unless --keep-topics or a broker failed. --dry-run reads
    the brokers and shows "would delete" where something would go, without changing anything.
    """
    from mqadmin.admin import Status, outcome
    from mqadmin.cli.commands.group._shared import check_group
    from mqadmin.cli.errors import CliError, ExitCode
    from mqadmin.cli.render import json_output, note, print_json
    from mqadmin.cli.runner import broker_targets, exit_for_results, print_results, results_json, run_admin

    exactly_one(broker_addr, cluster)
    check_group(group, creating=False)
    clean = bool(parse_bool(remove_offset, "-r"))

    async def go(admin: AdminClient) -> tuple[list[TargetResult], list[dict[str, Any]]]:
        info = await admin.cluster_info()  # read once: the group's deletion and its two topics' use the same
        targets = await broker_targets(admin, broker_addr, cluster, masters_only=True, what="group deletion", info=info)
        results = await admin.delete_group_on(targets, group, clean_offset=clean, dry_run=dry_run)
        topics: list[dict[str, Any]] = []
        if cluster and not keep_topics and all(r.ok for r in results):
            topics = [await _group_topic(admin, cluster, targets, t, dry_run, info) for t in _group_topics(group)]
        return results, topics

    results, topics = run_admin(namesrv, go)
    everything = results + [r for t in topics for r in t["results"]]
    if json_output():
        target = {"cluster": cluster} if cluster else {"brokerAddr": broker_addr}
        doc = results_json(results, group=group, target=target, dryRun=dry_run, removeOffset=clean)
        doc["topics"] = [results_json(t["results"], topic=t["topic"]) for t in topics]
        doc["outcome"] = outcome(everything)
        print_json(doc)
    else:
        print_results(results, "BROKER")
        for t in topics:
            if any(r.status != Status.NOT_FOUND for r in t["results"]):  # a topic that never existed is not news
                print()
                print_results(t["results"], "TARGET", t["topic"])
    if dry_run:
        note("dry run: nothing was changed")
    exit_for_results(everything, f"deleteSubGroup {group}")
    if not if_exists and results and all(r.status == Status.NOT_FOUND for r in everything):  # nothing at all
        where = f"cluster {cluster!r}" if cluster else broker_addr
        raise CliError(
            f"group {group!r} does not exist on {where}",
            "see a group's config with: mqadmin getConsumerConfig -g GROUP (or pass --if-exists)",
            ExitCode.FAILURE,
        )


def _group_topics(group: str) -> tuple[str, str]:
    from mqadmin.model.group import DLQ_GROUP_TOPIC_PREFIX, RETRY_GROUP_TOPIC_PREFIX

    return RETRY_GROUP_TOPIC_PREFIX + group, DLQ_GROUP_TOPIC_PREFIX + group


async def _group_topic(
    admin: AdminClient, cluster: str, targets: list[Target], topic: str, dry_run: bool, info: ClusterInfo
) -> dict[str, Any]:
    """Delete one of the group's topics from the cluster (brokers, then name servers), or, in a dry run,
    show which masters hold it."""
    from mqadmin.admin import Status, TargetResult, fan_out

    if not dry_run:
        return {"topic": topic, "results": await admin.delete_topic(cluster, topic, info)}

    async def probe(t: Target) -> TargetResult:
        cfg, _ = await admin.read_topic_config(t.addr, topic)
        return TargetResult(t.name, t.addr, Status.NOT_FOUND if cfg is None else Status.WOULD_DELETE)

    return {"topic": topic, "results": await fan_out(targets, probe)}
