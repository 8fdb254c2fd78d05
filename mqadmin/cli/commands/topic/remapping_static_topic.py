"""remappingStaticTopic: move a static topic's logic queues onto other brokers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqadmin.cli.command import command
from mqadmin.cli.commands.topic._static import BrokersOpt, ClustersOpt, DryRunOpt, ForceOpt, MapFileOpt, StaticTopicDoc
from mqadmin.cli.params import NamesrvOpt, TopicOpt, check_topic, parse_bool

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult
    from mqadmin.model.route import ClusterInfo
    from mqadmin.model.static_topic import StaticTopicPlan


@command(
    "remappingStaticTopic",
    "mqadmin remappingStaticTopic -t Ledger -b broker-b,broker-c --dry-run",
    "mqadmin remappingStaticTopic -t Ledger -c NewCluster",
    "mqadmin remappingStaticTopic -t Ledger -mf /tmp/Ledger-1700000000000.after",
    document=StaticTopicDoc,
)
def remapping_static_topic(
    topic: TopicOpt,
    namesrv: NamesrvOpt = None,
    clusters: ClustersOpt = None,
    brokers: BrokersOpt = None,
    map_file: MapFileOpt = None,
    force: ForceOpt = None,
    dry_run: DryRunOpt = False,
) -> None:
    """Spread a static topic's logic queues evenly over the brokers of -c (clusters) or -b (broker names),
    moving as few as possible: each moved queue continues on its new broker at a logic offset above what
    the old one holds (old messages stay readable there). Needs 5.x brokers.

    Written in Java's order: brokers gaining queues, brokers losing them, then the gaining brokers again
    with the logic offsets decided from the old leaders' max offsets, then every other broker. A failing
    step stops the rest (those brokers report skipped). The mapping before and after is saved as
    <tmpdir>/<topic>-<epoch>.before/.after; --dry-run prints the new mapping and changes nothing, -mf
    applies a saved one.
    """
    from mqadmin.cli.commands.topic._static import Current, read_plan, run_static, target_brokers
    from mqadmin.cli.errors import CliError, ExitCode
    from mqadmin.model.static_topic import plan_remapping

    check_topic(topic, allow_system=False)
    forced = bool(parse_bool(force, "-fr"))
    from_file = read_plan(map_file, topic) if map_file else None

    def plan_for(info: ClusterInfo, current: Current) -> StaticTopicPlan:
        targets = target_brokers(info, clusters, brokers)
        if not current:
            raise CliError(
                f"no broker holds topic {topic!r}", "create it with: mqadmin updateStaticTopic", ExitCode.FAILURE
            )
        return plan_remapping(topic, targets, current)

    async def write(
        admin: AdminClient, plan: StaticTopicPlan, info: ClusterInfo, current: Current
    ) -> list[TargetResult]:
        return await admin.remap_static_topic(plan, info, current, force=forced)

    run_static("remappingStaticTopic", topic, namesrv, from_file, dry_run, plan_for, write)
