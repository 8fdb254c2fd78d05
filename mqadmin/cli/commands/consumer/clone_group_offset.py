"""cloneGroupOffset: give a consumer group another group's offsets on a topic."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.command import command
from mqadmin.cli.commands.consumer._shared import CloneOffsetDoc
from mqadmin.cli.commands.consumer.reset_offset_by_time import DryRunOpt
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt, check_topic, parse_bool

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


@command(
    "cloneGroupOffset",
    "mqadmin cloneGroupOffset -s OrdersConsumer -d OrdersConsumerV2 -t Orders --dry-run",
    "mqadmin cloneGroupOffset -s OrdersConsumer -d OrdersConsumerV2 -t Orders",
    document=CloneOffsetDoc,
)
def clone_group_offset(
    src: Annotated[str, Option("-s", "--srcGroup", metavar="GROUP", help="Group whose offsets are copied.")],
    dest: Annotated[str, Option("-d", "--destGroup", metavar="GROUP", help="Group that gets them.")],
    topic: Annotated[str, Option("-t", "--topic", metavar="TOPIC", help="Topic name.")],
    namesrv: NamesrvOpt = None,
    offline: Annotated[
        str | None,
        Option("-o", "--offline", metavar="true|false", help="Accepted for Java compatibility; ignored."),
    ] = None,
    dry_run: DryRunOpt = False,
) -> None:
    """Commit the source group's offset on every queue of the topic as the destination group's, on each
    broker of the topic's route, and print each queue's offset before and after. Only that topic is
    copied (Java's tool copies every topic the source group consumes). Online consumers of the destination
    group keep their own position and may overwrite the copy: a warning says so. --dry-run changes nothing.
    """
    from mqadmin.cli.commands.consumer._shared import (
        check_group,
        offset_results_json,
        print_offset_results,
        run_consumers,
    )
    from mqadmin.cli.render import json_output, note, print_json
    from mqadmin.cli.runner import exit_for_results

    check_group(src, "-s")
    check_group(dest, "-d")
    check_topic(topic)
    parse_bool(offline, "-o")

    async def go(admin: AdminClient) -> list[TargetResult]:
        return await admin.clone_offsets(src, dest, topic, dry_run=dry_run)

    results = run_consumers(namesrv, go)
    if json_output():
        print_json(offset_results_json(results, srcGroup=src, destGroup=dest, topic=topic, dryRun=dry_run))
    else:
        print_offset_results(results)
    if dry_run:
        note("dry run: nothing was changed")
    exit_for_results(results, f"cloneGroupOffset {src} {dest} {topic}")
