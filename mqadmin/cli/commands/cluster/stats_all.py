"""statsAll: TPS and 24-hour message counts per topic and consumer group, with each group's accumulation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.params import NamesrvOpt, check_topic

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult
    from mqadmin.admin.stats import TopicGroupStats


class TopicGroupStatsDoc(TypedDict):
    topic: str
    group: Annotated[str | None, "a group consuming the topic (null: the topic's row without one)"]
    accumulation: Annotated[int, "the group's lag on the topic"]
    inTps: float
    outTps: float | None
    inMsg24Hour: int
    outMsg24Hour: int | None


class StatsAllDoc(TypedDict):
    stats: list[TopicGroupStatsDoc]
    results: Annotated[list[TargetResultDoc], "each broker asked"]
    outcome: Outcome


@command("statsAll", "mqadmin statsAll", "mqadmin statsAll -a", "mqadmin statsAll -t Orders", document=StatsAllDoc)
def stats_all(
    namesrv: NamesrvOpt = None,
    active: Annotated[
        bool, Option("-a", "--activeTopic", help="Only topics and groups with messages in the last 24 hours.")
    ] = False,
    topic: Annotated[
        str | None, Option("-t", "--topic", metavar="TOPIC", help="Only this topic.", show_default=False)
    ] = None,
) -> None:
    """TPS and 24-hour message counts per topic and consumer group, from the brokers' statistics.

    For each topic (every one the name server lists except %RETRY% and %DLQ% topics, or -t) and each group
    consuming it: the group's accumulation (messages not yet consumed), the topic's put TPS over the last
    minute, the group's get TPS, and the messages put and got in the last 24 hours, summed over the masters
    of the topic's route (VIEW_BROKER_STATS_DATA, GET_CONSUME_STATS). A topic without consumer groups has one
    row marked NO_CONSUMER. Brokers that do not answer are listed after the table (exit 3, or 1 if none did).
    """
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import exit_for_results, print_results, results_json, run_admin

    if topic is not None:
        check_topic(topic)

    async def go(admin: AdminClient) -> tuple[list[TopicGroupStats], list[TargetResult]]:
        return await admin.stats_all(topic)

    rows, results = run_admin(namesrv, go)
    shown = [r for r in rows if r.active or not active]
    failed = [r for r in results if not r.ok]
    if json_output():
        doc = results_json(results, stats=[_row_json(r) for r in shown])
        doc["outcome"] = doc["outcome"] if results else "ok"
        print_json(doc)
    else:
        _print_table(shown)
        if failed:
            print()
            print_results(failed)
    exit_for_results(results, "statsAll")


def _row_json(r: TopicGroupStats) -> TopicGroupStatsDoc:
    return {
        "topic": r.topic,
        "group": r.group,
        "accumulation": r.accumulation,
        "inTps": r.in_tps,
        "outTps": r.out_tps,
        "inMsg24Hour": r.in_24h,
        "outMsg24Hour": r.out_24h,
    }


def _print_table(rows: list[TopicGroupStats]) -> None:
    from mqadmin.cli.render import Column, print_table

    columns = [Column("TOPIC"), Column("CONSUMER GROUP"), Column("ACCUMULATION", numeric=True),
               Column("IN TPS", numeric=True), Column("OUT TPS", numeric=True), Column("IN MSG 24H", numeric=True),
               Column("OUT MSG 24H", numeric=True)]  # fmt: skip
    table = [
        [r.topic, r.group or "-", r.accumulation, f"{r.in_tps:.2f}", "-" if r.out_tps is None else f"{r.out_tps:.2f}",
         r.in_24h, "NO_CONSUMER" if r.out_24h is None else r.out_24h]
        for r in rows
    ]  # fmt: skip
    print_table(columns, table)
