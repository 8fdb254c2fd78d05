"""topicStatus: min/max offset and last update time of each queue, from every broker of the route."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.params import NamesrvOpt, TopicOpt, check_topic

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, Target, TargetResult
    from mqadmin.model.stats import QueueOffsets


class QueueStatusDoc(TypedDict):
    broker: str
    queueId: int
    minOffset: int
    maxOffset: int
    lastUpdateTimestamp: Annotated[int | None, "ms since the epoch of the queue's last message (null: none)"]


class TopicStatusDoc(TypedDict):
    topic: str
    queues: Annotated[list[QueueStatusDoc], "every queue of the brokers that answered, by broker and queue id"]
    results: Annotated[list[TargetResultDoc], "each broker of the route"]
    outcome: Outcome


@command("topicStatus", "mqadmin topicStatus -t Orders", document=TopicStatusDoc)
def topic_status(topic: TopicOpt, namesrv: NamesrvOpt = None) -> None:
    """Per-queue min/max offsets and last update time, asked of every broker of the topic's route at once.

    Brokers that do not answer are listed after the table; the exit code is then 3 (1 if none answered).
    """
    from mqadmin.cli.commands.topic._shared import java_time
    from mqadmin.cli.render import Column, json_output, print_json, print_table
    from mqadmin.cli.runner import exit_for_results, print_results, results_json, run_admin

    check_topic(topic)

    async def go(admin: AdminClient) -> list[TargetResult]:
        from mqadmin.admin import Status, TargetResult, fan_out
        from mqadmin.admin.fanout import masters

        route = await admin.topic_route(topic)

        async def stats(t: Target) -> TargetResult:
            return TargetResult(t.name, t.addr, Status.OK, data=await admin.topic_stats(t.addr, topic))

        return await fan_out(masters(route.broker_datas), stats)

    results = run_admin(namesrv, go)
    queues: list[QueueOffsets] = sorted(
        (q for r in results if r.data for q in r.data), key=lambda q: (q.broker_name, q.queue_id)
    )
    if json_output():
        print_json(results_json(results, topic=topic, queues=[_queue_json(q) for q in queues]))
    else:
        cols = [Column("BROKER"), Column("QID", numeric=True), Column("MIN OFFSET", numeric=True),
                Column("MAX OFFSET", numeric=True), Column("LAST UPDATED")]  # fmt: skip
        print_table(
            cols,
            [
                (q.broker_name, q.queue_id, q.min_offset, q.max_offset, java_time(q.last_update_timestamp))
                for q in queues
            ],
        )
        failed = [r for r in results if not r.ok]
        if failed:
            print_results(failed, "BROKER", "Brokers that did not answer")
    exit_for_results(results, f"topicStatus {topic}")


def _queue_json(q: QueueOffsets) -> QueueStatusDoc:
    return {
        "broker": q.broker_name,
        "queueId": q.queue_id,
        "minOffset": q.min_offset,
        "maxOffset": q.max_offset,
        "lastUpdateTimestamp": q.last_update_timestamp or None,
    }
