"""sendMsgStatus: send messages to one broker and show each send's time and result."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.message._shared import SentDoc
from mqadmin.cli.commands.namesrv._shared import BrokerNameOpt, broker_name
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.admin.send_status import TimedSend


class ProbeDoc(TypedDict):
    seq: int
    rtMs: Annotated[float, "round trip, ms"]
    result: Annotated[SentDoc | None, "null: failed"]
    error: str | None


class SendMsgStatusDoc(TypedDict):
    broker: str
    messageSize: Annotated[int, "bytes"]
    sends: list[ProbeDoc]


@command(
    "sendMsgStatus",
    "mqadmin sendMsgStatus -b broker-a",
    "mqadmin sendMsgStatus -b broker-a -s 4096 -c 10",
    document=SendMsgStatusDoc,
)
def send_msg_status(
    name: BrokerNameOpt,
    namesrv: NamesrvOpt = None,
    size: Annotated[int, Option("-s", "--messageSize", metavar="BYTES", min=1, help="Message size.")] = 128,
    count: Annotated[int, Option("-c", "--count", metavar="N", min=1, max=100_000, help="Messages to send.")] = 50,
) -> None:
    """Send COUNT messages of SIZE bytes, one after another, to the topic named after broker -b (every broker
    has one while brokerTopicEnable is on, so they reach that broker alone) and show each send's time and
    result. A first 16-byte message opens the connection and is not shown, as in Java mqadmin.

    A failed send is shown with its reason and the next one is sent; exit 3 when some failed, 1 when all did.
    """
    from mqadmin.cli.errors import CliError, ExitCode
    from mqadmin.cli.render import Column, json_output, print_json, print_table
    from mqadmin.cli.runner import run_admin

    name = broker_name(name)

    async def go(admin: AdminClient) -> list[TimedSend]:
        from mqadmin.admin.send_status import send_status

        return await send_status(admin, name, count, size)

    sends = run_admin(namesrv, go)
    if json_output():
        entries = [
            {"seq": s.seq, "rtMs": s.rt_ms, "result": s.result.to_json() if s.result else None, "error": s.error}
            for s in sends
        ]
        print_json({"broker": name, "messageSize": size, "sends": entries})
    else:
        columns = [Column("#", numeric=True), Column("RT (ms)", numeric=True), Column("STATUS", styled=True)]
        columns += [Column("MSG ID"), Column("QUEUE", numeric=True), Column("OFFSET", numeric=True), Column("REASON")]
        rows = [
            (s.seq, s.rt_ms, s.result.status, s.result.uniq_key, s.result.queue_id, s.result.queue_offset, "")
            if s.result
            else (s.seq, s.rt_ms, "failed", "", "", "", s.error or "")
            for s in sends
        ]
        print_table(columns, rows)
    failed = sum(1 for s in sends if s.result is None)
    if failed:
        code = ExitCode.FAILURE if failed == len(sends) else ExitCode.PARTIAL
        raise CliError(f"sendMsgStatus: {failed} of {len(sends)} sends to {name} failed", "see the reason column", code)
