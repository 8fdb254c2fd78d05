"""resendDlqMessage: send a group's dead-lettered messages back to their topic (mqadmin's own command)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.message._shared import (
    BrokerNameOpt,
    SinceOpt,
    UntilOpt,
    check_range,
    parse_time,
    run_messaging,
)
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt, check_topic

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.admin.dlq import DlqRun, Resend

PROGRESS_EVERY = 100


class DlqRangeDoc(TypedDict):
    broker: str
    queueId: int
    startOffset: int
    endOffset: int


class SentToDoc(TypedDict):
    broker: str
    queueId: int
    queueOffset: int
    offsetMsgId: str


class ResendDoc(TypedDict):
    broker: str | None
    queueId: int
    queueOffset: int
    msgId: str
    offsetMsgId: str
    originalTopic: Annotated[str | None, "RETRY_TOPIC: where it is sent back to (null: unknown, skipped)"]
    status: Annotated[str, "sent, would send, duplicate, skipped or failed"]
    reason: str | None
    sentTo: Annotated[SentToDoc | None, "where the copy was stored (null: not sent)"]


class ResendDlqDoc(TypedDict):
    group: str
    dlqTopic: str
    dryRun: bool
    count: Annotated[int, "dead letters sent (would be sent with --dry-run)"]
    queues: Annotated[list[DlqRangeDoc], "the dead-letter queues and offsets read"]
    results: list[ResendDoc]


@command(
    "resendDlqMessage",
    "mqadmin resendDlqMessage -g OrdersConsumer --dry-run",
    "mqadmin resendDlqMessage -g OrdersConsumer -s 2024-05-01T00:00:00 -c 100",
    "mqadmin resendDlqMessage -g OrdersConsumer -t Orders -b broker-a -o 250",
    document=ResendDlqDoc,
)
def resend_dlq_message(
    group: Annotated[str, Option("-g", "--consumerGroup", metavar="GROUP", help="The group whose %DLQ% to read.")],
    namesrv: NamesrvOpt = None,
    topic: Annotated[
        str | None,
        Option(
            "-t", "--topic", metavar="TOPIC", help="Only dead letters that came from this topic.", show_default=False
        ),
    ] = None,
    broker: BrokerNameOpt = None,
    offset: Annotated[
        int | None,
        Option(
            "-o", "--offset", min=0, metavar="N", help="Start at this offset in each DLQ queue.", show_default=False
        ),
    ] = None,
    begin: SinceOpt = None,
    end: UntilOpt = None,
    count: Annotated[
        int | None,
        Option("-c", "--count", min=1, metavar="N", help="Resend at most N messages.", show_default=False),
    ] = None,
    dry_run: Annotated[bool, Option("--dry-run", help="Send nothing; list what would be sent, and count it.")] = False,
) -> None:
    """Send the dead-lettered messages of a group (%DLQ%GROUP) back to the topic each came from.

    Each dead letter is read without committing offsets, from the start of each DLQ queue (or -o, or
    -s) to its end when the run starts (or -e), and sent as a new message to its original topic (the
    RETRY_TOPIC property the broker set): same body, keys, tags, user properties and message id, no
    delivery state, reconsume count 0. A message id is sent at most once per run. Progress goes to
    stderr, one row per dead letter to stdout. Exit 1 when every resend failed, 3 when some did.
    mqadmin's own command: Java mqadmin has none.
    """
    from mqadmin.admin.dlq import Status, resend_dlq
    from mqadmin.cli.errors import CliError, ExitCode, usage_error
    from mqadmin.cli.render import json_output, note, print_json
    from mqadmin.model.names import group_problem

    problem = group_problem(group)
    if problem:
        raise usage_error(problem, "give the consumer group whose dead letters to resend")
    if topic is not None:
        check_topic(topic)
    lo, hi = parse_time(begin, "-s"), parse_time(end, "-e")
    check_range(lo, hi, "-s", "-e")
    done = [0]

    def progress(r: Resend) -> None:
        done[0] += 1
        if done[0] % PROGRESS_EVERY == 0:
            note(f"mqadmin: {done[0]} dead letters handled so far")

    async def go(admin: AdminClient) -> DlqRun:
        return await resend_dlq(
            admin, group, broker=broker, offset=offset, begin=lo, end=hi, limit=count, topic=topic,
            dry_run=dry_run, progress=progress,
        )  # fmt: skip

    run = run_messaging(namesrv, go)
    resends = run.resends
    counted = sum(1 for r in resends if r.status in (Status.SENT, Status.WOULD_SEND))
    if json_output():
        doc = {"group": group, "dlqTopic": run.dlq_topic, "dryRun": dry_run, "count": counted}
        print_json({**doc, "queues": [_range_json(r) for r in run.ranges], "results": [_json(r) for r in resends]})
    else:
        _print(resends)
    verb = "would send" if dry_run else "sent"
    skipped = len(resends) - counted - run.failed
    note(
        f"mqadmin: {verb} {counted} of {len(resends)} dead letter(s) of {run.dlq_topic}"
        + (f", {run.failed} failed" if run.failed else "")
        + (f", {skipped} skipped" if skipped else "")
        + "; read "
        + ", ".join(
            f"{r.queue.broker_name} queue {r.queue.queue_id} offsets {r.start}-{r.end}" for r in run.ranges
        )  # fmt: skip
    )
    if run.failed:
        code = ExitCode.FAILURE if run.failed == len(resends) - skipped else ExitCode.PARTIAL
        raise CliError(f"{run.failed} resend(s) failed", "see the REASON column; run again with -o to retry", code)


def _range_json(r: Any) -> DlqRangeDoc:
    return {"broker": r.queue.broker_name, "queueId": r.queue.queue_id, "startOffset": r.start, "endOffset": r.end}


def _json(r: Resend) -> ResendDoc:
    m = r.found.message
    sent = r.sent
    return {
        "broker": r.found.broker_name, "queueId": m.queue_id, "queueOffset": m.queue_offset,
        "msgId": m.uniq_key or m.msg_id, "offsetMsgId": m.msg_id, "originalTopic": r.original_topic,
        "status": r.status, "reason": r.reason,
        "sentTo": None if sent is None else {"broker": sent.broker_name, "queueId": sent.queue_id,
                                             "queueOffset": sent.queue_offset, "offsetMsgId": sent.msg_id},
    }  # fmt: skip


def _print(resends: list[Resend]) -> None:
    from mqadmin.cli.render import Column, print_table

    with_reason = any(r.reason for r in resends)
    cols = [Column("BROKER"), Column("QUEUE", True), Column("OFFSET", True), Column("MSG ID"), Column("TOPIC"),
            Column("RESULT", styled=True), Column("SENT TO")]  # fmt: skip
    rows = []
    for r in resends:
        m, sent = r.found.message, r.sent
        where = f"{sent.broker_name} queue {sent.queue_id} offset {sent.queue_offset}" if sent else ""
        row: list[object] = [r.found.broker_name, m.queue_id, m.queue_offset, m.uniq_key or m.msg_id,
                             r.original_topic or "", r.status, where]  # fmt: skip
        rows.append(row + [r.reason or ""] if with_reason else row)
    print_table(cols + [Column("REASON")] if with_reason else cols, rows)
