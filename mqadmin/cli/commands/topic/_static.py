"""What updateStaticTopic and remappingStaticTopic share: their options (Java's -c clusters, -b broker names,
-mf, -fr), choosing the target brokers, the run itself (read the mappings, plan or read a plan, save the
before/after mapping files, write), and printing the result."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult
    from mqadmin.model.route import ClusterInfo
    from mqadmin.model.static_topic import StaticTopicConfig, StaticTopicPlan

ClustersOpt = Annotated[
    str | None,
    Option("-c", "--clusters", metavar="CLUSTER,...", help="Spread the queues over these clusters' brokers."),
]
BrokersOpt = Annotated[
    str | None,
    Option("-b", "--brokers", metavar="BROKER,...", help="Spread the queues over these brokers (names)."),
]
MapFileOpt = Annotated[
    str | None,
    Option("-mf", "--mapFile", metavar="FILE", help="Apply this mapping file (written by --dry-run or a run)."),
]
ForceOpt = Annotated[
    str | None,
    Option(
        "-fr", "--forceReplace", metavar="true|false", help="Brokers replace their mapping even with an older epoch."
    ),
]
DryRunOpt = Annotated[bool, Option("--dry-run", help="Print the new mapping and change nothing.")]

Current = dict[str, "StaticTopicConfig"]
"""Each broker's config of the topic as it is now (broker name → config)."""
Planner = Callable[["ClusterInfo", Current], "StaticTopicPlan"]
Writer = Callable[["AdminClient", "StaticTopicPlan", "ClusterInfo", Current], Awaitable[list["TargetResult"]]]

FILE_HINT = "pass a mapping file written by --dry-run (or Java's tools: <topic>-<epoch>.after)"


class StaticTopicDoc(TypedDict):
    topic: str
    epoch: Annotated[int, "the new mapping's epoch"]
    plan: Annotated[
        dict[str, Any],
        "the mapping, in the form of Java's TopicRemappingDetailWrapper (as in the files): topic, type, epoch, "
        "brokerConfigMap (broker -> its config and queue mapping), brokerToMapIn, brokerToMapOut",
    ]
    files: Annotated[dict[str, str], "before/after -> the mapping file written"]
    results: Annotated[list[TargetResultDoc], "each broker written ([] with --dry-run)"]
    outcome: Outcome
    dryRun: bool


def target_brokers(info: ClusterInfo, clusters: str | None, brokers: str | None) -> set[str]:
    """The broker names of ``-c a,b`` or ``-b x,y``; a usage error names an unknown one."""
    from mqadmin.cli.errors import usage_error

    if bool(clusters) == bool(brokers):
        raise usage_error("give -c CLUSTER[,CLUSTER] or -b BROKER[,BROKER] (broker names), not both or neither")
    names = [n.strip() for n in (clusters or brokers or "").split(",") if n.strip()]
    if clusters:
        unknown = [c for c in names if c not in info.clusters]
        if unknown:
            raise usage_error(f"unknown cluster {unknown[0]!r}", f"known clusters: {', '.join(sorted(info.clusters))}")
        return {b for c in names for b in info.clusters[c]}
    unknown = [b for b in names if b not in info.brokers]
    if unknown:
        raise usage_error(
            f"unknown broker {unknown[0]!r} (-b takes broker names)",
            f"known brokers: {', '.join(sorted(info.brokers))}",
        )
    return set(names)


def read_plan(path: str, topic: str) -> StaticTopicPlan:
    """A mapping file, checked against ``topic``; usage errors name what is wrong."""
    import json

    from mqadmin.cli.errors import usage_error
    from mqadmin.model.static_topic import MappingError, StaticTopicPlan

    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise usage_error(f"{path}: no such file", FILE_HINT) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise usage_error(f"{path}: cannot read it: {e}", FILE_HINT) from None
    try:
        plan = StaticTopicPlan.from_json(doc)
        plan.check(topic)
    except (MappingError, AttributeError, TypeError, ValueError) as e:
        raise usage_error(f"{path}: {e}", FILE_HINT) from None
    return plan


def peers_of(info: ClusterInfo, brokers: set[str]) -> set[str]:
    """Every broker of the clusters these brokers belong to (Java's getAllBrokersInSameCluster)."""
    return {b for members in info.clusters.values() if brokers & set(members) for b in members}


def save(plan: StaticTopicPlan, suffix: str) -> str:
    """Write the plan as Java does (``<tmpdir>/<topic>-<epoch><suffix>``), atomically; returns the path."""
    import json
    import os
    import tempfile

    path = Path(tempfile.gettempdir()) / f"{plan.topic}-{plan.epoch}{suffix}"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(plan.to_json(), f, indent=2)
        f.write("\n")
    os.replace(tmp, path)
    return str(path)


def old_plan(topic: str, current: dict[str, StaticTopicConfig]) -> StaticTopicPlan:
    from mqadmin.model.static_topic import StaticTopicPlan

    epoch = max((c.mapping.epoch for c in current.values() if c.mapping), default=0)
    return StaticTopicPlan(topic, epoch, dict(current))


def print_outcome(
    command: str, plan: StaticTopicPlan, results: list[TargetResult] | None, files: dict[str, str]
) -> None:
    """The plan's per-broker queues, with each broker's result when it was written (None: dry run)."""
    from mqadmin.cli.render import Column, json_output, note, print_json, print_table
    from mqadmin.cli.runner import results_json

    leaders = plan.leaders()
    led = {b: sorted(q for q, leader in leaders.items() if leader == b) for b in plan.brokers}
    if json_output():
        doc: dict[str, Any] = {"topic": plan.topic, "epoch": plan.epoch, "plan": plan.to_json(), "files": files}
        if results is None:
            doc.update(results=[], outcome="ok", dryRun=True)
        else:
            doc.update(results_json(results), dryRun=False)
        print_json(doc)
        return
    for kind, path in files.items():
        note(f"{command}: the {kind} mapping is in {path}")
    by_name = {r.name: r for r in results or []}
    columns = [Column("BROKER"), Column("QUEUES", numeric=True), Column("LOGIC QUEUES LED")]
    columns += [Column("RESULT", styled=True), Column("REASON")] if results is not None else []
    rows = []
    for broker in sorted(plan.brokers):
        row: list[object] = [broker, plan.brokers[broker].config.write_queue_nums, " ".join(map(str, led[broker]))]
        if results is not None:
            r = by_name.get(broker)
            row += [str(r.status), r.reason or ""] if r else ["", ""]
        rows.append(row)
    title = f"{plan.topic}: {len(leaders)} logic queues, epoch {plan.epoch}" + (" (dry run)" if results is None else "")
    print_table(columns, rows, title)


@contextlib.contextmanager
def reported(command: str) -> Iterator[None]:
    """Failures of the static-topic operations as one-line errors (nothing has been written yet when
    they happen: reading the mappings, planning, or the first broker refusing)."""
    from mqadmin.admin import AdminError, ResponseError
    from mqadmin.admin.static_topics import STATIC_HINT, StaticTopicsUnsupported
    from mqadmin.cli.errors import CliError, ExitCode
    from mqadmin.model.static_topic import MappingError

    try:
        yield
    except StaticTopicsUnsupported as e:
        raise CliError(f"{command}: {e}", f"{STATIC_HINT}; nothing was changed", ExitCode.FAILURE) from None
    except MappingError as e:
        raise CliError(
            f"{command}: {e}", "check each broker's mapping; nothing was changed", ExitCode.FAILURE
        ) from None
    except ResponseError:
        raise
    except AdminError as e:
        raise CliError(f"{command}: {e}", "nothing was changed", ExitCode.FAILURE) from None


def exit_for_writes(command: str, results: list[TargetResult], files: dict[str, str]) -> None:
    """Exit 1 or 3 when a broker failed, saying how many were skipped and where the old mapping is."""
    from mqadmin.admin import Status
    from mqadmin.cli.errors import CliError, ExitCode

    failed = [r for r in results if not r.ok]
    if not failed:
        return
    skipped = sum(1 for r in results if r.status == Status.SKIPPED)
    done = len(results) - len(failed) - skipped
    first = failed[0]
    message = f"{command} failed on {len(failed)} of {len(results)} brokers ({first.name}: {first.reason})"
    if skipped:
        message += f"; {skipped} not written"
    hint = "run the same command again once the failed brokers are back"
    if "before" in files:
        hint += f", or restore the old mapping with -mf {files['before']} -fr true"
    raise CliError(message, hint, ExitCode.PARTIAL if done else ExitCode.FAILURE)


def run_static(
    command: str,
    topic: str,
    namesrv: str | None,
    from_file: StaticTopicPlan | None,
    dry_run: bool,
    plan_for: Planner,
    write: Writer,
) -> None:
    """Plan (``from_file``, or ``plan_for`` the current mappings), save the before/after files, write the
    plan unless ``dry_run``, print the outcome and exit as the brokers' results say."""
    from mqadmin.cli.runner import run_admin
    from mqadmin.model.static_topic import complete_with_cluster_peers

    async def go(admin: AdminClient) -> tuple[StaticTopicPlan, list[TargetResult] | None, dict[str, str]]:
        info = await admin.cluster_info()
        current = await admin.static_topic_configs(topic, info)
        files: dict[str, str] = {}
        plan = from_file if from_file is not None else plan_for(info, current)
        complete_with_cluster_peers(plan, peers_of(info, set(plan.brokers)))
        if dry_run:
            return plan, None, files
        if current:
            files["before"] = save(old_plan(topic, current), ".before")
        files["after"] = save(plan, ".after")
        return plan, await write(admin, plan, info, current), files

    with reported(f"{command} {topic}"):
        plan, results, files = run_admin(namesrv, go)
    print_outcome(command, plan, results, files)
    if results is not None:
        exit_for_writes(f"{command} {topic}", results, files)
