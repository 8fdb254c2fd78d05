"""updateStaticTopic: create a static topic (a fixed number of logic queues) or add queues to one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.topic._static import BrokersOpt, ClustersOpt, DryRunOpt, ForceOpt, MapFileOpt, StaticTopicDoc
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt, TopicOpt, check_topic, parse_bool

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult
    from mqadmin.model.route import ClusterInfo
    from mqadmin.model.static_topic import StaticTopicPlan


@command(
    "updateStaticTopic",
    "mqadmin updateStaticTopic -t Ledger -qn 8 -c DefaultCluster",
    "mqadmin updateStaticTopic -t Ledger -qn 12 -b broker-a,broker-b --dry-run",
    "mqadmin updateStaticTopic -t Ledger -mf /tmp/Ledger-1700000000000.after",
    document=StaticTopicDoc,
)
def update_static_topic(
    topic: TopicOpt,
    namesrv: NamesrvOpt = None,
    clusters: ClustersOpt = None,
    brokers: BrokersOpt = None,
    total: Annotated[
        int | None, Option("-qn", "--totalQueueNum", min=1, max=65535, metavar="N", help="Logic queues in all.")
    ] = None,
    map_file: MapFileOpt = None,
    force: ForceOpt = None,
    dry_run: DryRunOpt = False,
) -> None:
    """Create a static topic with -qn logic queues spread over the brokers of -c (clusters) or -b (broker
    names), or add logic queues to one up to -qn (queues never move and never shrink; the brokers that
    already hold the topic stay). Needs 5.x brokers; 4.9 brokers and mqadmin's embedded broker cannot
    host static topics.

    The mapping before and after is saved as <tmpdir>/<topic>-<epoch>.before/.after (Java's files);
    --dry-run prints the new mapping without changing anything, and -mf applies a saved one. Each
    broker is written with UPDATE_AND_CREATE_STATIC_TOPIC, the first one alone: a broker that refuses
    stops the command before any other is changed.
    """
    from mqadmin.cli.commands.topic._static import Current, read_plan, run_static, target_brokers
    from mqadmin.cli.errors import CliError, ExitCode, usage_error
    from mqadmin.model.static_topic import MappingError, plan_create_or_expand

    check_topic(topic, allow_system=False)
    forced = bool(parse_bool(force, "-fr"))
    if map_file is None and total is None:
        raise usage_error(
            "-qn is required (or -mf FILE to apply a saved mapping)", "for example: -qn 8 -c DefaultCluster"
        )
    from_file = read_plan(map_file, topic) if map_file else None

    def plan_for(info: ClusterInfo, current: Current) -> StaticTopicPlan:
        assert total is not None
        try:
            return plan_create_or_expand(topic, total, target_brokers(info, clusters, brokers), current)
        except MappingError as e:
            raise CliError(f"updateStaticTopic {topic}: {e}", _hint(e), ExitCode.FAILURE) from None

    async def write(
        admin: AdminClient, plan: StaticTopicPlan, info: ClusterInfo, current: Current
    ) -> list[TargetResult]:
        return await admin.write_static_plan(plan, info, current, force=forced)

    run_static("updateStaticTopic", topic, namesrv, from_file, dry_run, plan_for, write)


def _hint(e: Exception) -> str:
    if "nothing to do" in str(e) or "shrink" in str(e):
        return "give -qn larger than the current number of logic queues (see: mqadmin topicRoute)"
    if "not a static topic" in str(e):
        return "a normal topic cannot become static: pick another name"
    return "check the topic's mapping on each broker (the command changed nothing)"
