"""updateTopicList: create or update every topic of a file, on one broker or every master of a cluster."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import TargetGiven, TargetResultDoc
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt, exactly_one

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.admin.topic_batch import TopicResult


class TopicListResultDoc(TargetResultDoc):
    topic: str


class UpdateTopicListDoc(TypedDict):
    file: str
    target: TargetGiven
    results: Annotated[list[TopicListResultDoc], "each topic on each broker"]
    outcome: Annotated[
        Literal["ok", "partial", "failed", "interrupted"], "interrupted: Ctrl-C stopped it (the rest not sent)"
    ]


@command(
    "updateTopicList",
    "mqadmin updateTopicList -c DefaultCluster -f topics.json",
    "mqadmin updateTopicList -b 127.0.0.1:10911 -f topics.toml",
    "mqadmin --format json updateTopicList -c DefaultCluster -f topics.json",
    document=UpdateTopicListDoc,
)
def update_topic_list(
    filename: Annotated[
        str,
        Option("-f", "--filename", metavar="FILE", help="Topic configs: a JSON list (Java's format) or TOML."),
    ],
    namesrv: NamesrvOpt = None,
    broker_addr: BrokerAddrOpt = None,
    cluster: ClusterOpt = None,
) -> None:
    """Create or update every topic of a file on one broker (-b, a master) or on every master of a
    cluster (-c).

    The file is a JSON list of TopicConfig objects, as Java's updateTopicList reads it
    ([{"topicName": "Orders", "writeQueueNums": 8, "attributes": {"+message.type": "FIFO"}}]), or the same
    keys in [[topic]] tables of a .toml file. A new topic gets Java's TopicConfig defaults (16 queues,
    perm 6) for what its entry does not give; an existing one keeps its settings except the ones given.

    Prints one row per topic and broker: created, updated (old→new per field), unchanged (nothing sent)
    or failed with the reason. Brokers since 5.3 get the changed topics in a few
    UPDATE_AND_CREATE_TOPIC_LIST requests; older ones one request per topic. The whole file is checked
    before anything is sent. Ctrl-C stops sending: the requests in flight finish, the topics not sent are listed
    as such, and it exits 130 (the same command again does the rest).
    """
    from mqadmin.cli.commands.topic._shared import check_reserved
    from mqadmin.cli.commands.topic._topic_file import read_topic_file
    from mqadmin.cli.interrupt import stop_on_ctrl_c
    from mqadmin.cli.render import json_output, note, print_json
    from mqadmin.cli.runner import broker_targets, run_admin

    exactly_one(broker_addr, cluster)
    spec = read_topic_file(filename)
    if not spec.changes:
        note(f"updateTopicList: {filename} lists no topics; nothing to do")
        if json_output():
            print_json({"file": filename, "target": _target(broker_addr, cluster), "results": [], "outcome": "ok"})
        return

    async def go(admin: AdminClient) -> list[TopicResult]:
        info = await admin.cluster_info()
        for change in spec.changes:
            check_reserved(change.topic, info)
        targets = await broker_targets(admin, broker_addr, cluster, masters_only=True, what="topic creation", info=info)
        return await admin.update_topics_on(targets, spec.changes, spec.new_topic)

    with stop_on_ctrl_c("updateTopicList") as interruption:
        results = run_admin(namesrv, go)
    _print(filename, broker_addr, cluster, results, interruption.requested)
    if interruption.requested:
        _interrupted(results)
    _exit(results)


def _target(broker_addr: str | None, cluster: str | None) -> dict[str, str | None]:
    return {"cluster": cluster} if cluster else {"brokerAddr": broker_addr}


def _print(
    filename: str, broker_addr: str | None, cluster: str | None, results: list[TopicResult], interrupted: bool
) -> None:
    from collections import Counter

    from mqadmin.admin import outcome
    from mqadmin.cli.render import Column, json_output, note, print_json, print_table
    from mqadmin.cli.runner import describe_changes

    rows = [r.result for r in results]
    if json_output():
        entries = [{"topic": r.topic, **r.result.to_json()} for r in results]
        done = "interrupted" if interrupted else outcome(rows)
        doc = {"file": filename, "target": _target(broker_addr, cluster), "results": entries, "outcome": done}
        print_json(doc)
    else:
        with_changes = any(r.changes for r in rows)
        with_reason = any(r.reason for r in rows)
        columns = [Column("TOPIC"), Column("BROKER"), Column("ADDRESS"), Column("RESULT", styled=True)]
        columns += [Column("CHANGES")] if with_changes else []
        columns += [Column("REASON")] if with_reason else []
        table = []
        for r in results:
            row: list[object] = [r.topic, r.result.name or "?", r.result.addr, str(r.result.status)]
            row += [describe_changes(r.result.changes)] if with_changes else []
            row += [r.result.reason or ""] if with_reason else []
            table.append(row)
        print_table(columns, table)
    if not all(r.ok for r in rows):
        return  # the error line that follows gives the counts
    counts = Counter(str(r.status) for r in rows)
    brokers = len({(r.name, r.addr) for r in rows})
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    note(f"updateTopicList: {summary} ({len(results) // max(brokers, 1)} topics on {brokers} brokers)")


def _interrupted(results: list[TopicResult]) -> None:
    from mqadmin.admin.results import Status
    from mqadmin.cli.interrupt import interrupted

    not_sent = sum(1 for r in results if r.result.status == Status.NOT_SENT)
    failed = sum(1 for r in results if r.result.status == Status.FAILED)
    done = len(results) - not_sent - failed
    what = f"{done} of {len(results)} topic result(s) done, {not_sent} not sent" + (
        f", {failed} failed" if failed else ""
    )
    raise interrupted(
        f"updateTopicList interrupted (Ctrl-C): {what}",
        "run the same command again: the topics done then report unchanged and the rest is sent",
    )


def _exit(results: list[TopicResult]) -> None:
    from mqadmin.cli.errors import CliError, ExitCode

    failed = [r for r in results if not r.result.ok]
    if not failed:
        return
    first = failed[0]
    where = f"{first.topic} on {first.result.name or first.result.addr}: {first.result.reason}"
    if len(failed) == len(results):
        raise CliError(f"updateTopicList failed for every topic ({where})", "see the REASON column", ExitCode.FAILURE)
    raise CliError(
        f"updateTopicList failed for {len(failed)} of {len(results)} topic results (first: {where})",
        "the other topics are done; fix the cause and run the same command again (done topics report unchanged)",
        ExitCode.PARTIAL,
    )
