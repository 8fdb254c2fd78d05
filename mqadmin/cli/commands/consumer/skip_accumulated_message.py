"""skipAccumulatedMessage: move a consumer group to the end of every queue of a topic (its lag becomes 0)."""

from __future__ import annotations

from typing import Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.consumer._shared import ResetOffsetDoc
from mqadmin.cli.commands.consumer.reset_offset_by_time import DryRunOpt, ForceOpt, ResetClusterOpt
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt, check_topic, parse_bool


@command(
    "skipAccumulatedMessage",
    "mqadmin skipAccumulatedMessage -g OrdersConsumer -t Orders --dry-run   # what would be skipped",
    "mqadmin skipAccumulatedMessage -g OrdersConsumer -t Orders",
    document=ResetOffsetDoc,
)
def skip_accumulated_message(
    group: Annotated[str, Option("-g", "--group", metavar="GROUP", help="Consumer group name.")],
    topic: Annotated[str, Option("-t", "--topic", metavar="TOPIC", help="Topic name.")],
    namesrv: NamesrvOpt = None,
    force: ForceOpt = None,
    cluster: ResetClusterOpt = None,
    dry_run: DryRunOpt = False,
) -> None:
    """Skip every message the group has not consumed yet on a topic: each queue's offset moves to the
    queue's end, so its lag becomes 0. The messages stay stored; resetOffsetByTime brings the group back.
    Online consumers follow as with resetOffsetByTime; each queue is printed with its offset before and
    after (the MOVED column is the number of messages skipped). --dry-run changes nothing.
    """
    from mqadmin.admin.offsets import TO_END
    from mqadmin.cli.commands.consumer._shared import check_group
    from mqadmin.cli.commands.consumer.reset_offset_by_time import run_reset

    check_group(group)
    check_topic(topic)
    run_reset(
        "skipAccumulatedMessage", namesrv, group, topic, TO_END, parse_bool(force, "-f") is not False, cluster, dry_run
    )
