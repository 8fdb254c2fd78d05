"""queryMsgTraceById: the trace of a message (its send and each consumption) from the trace topic."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.message._shared import StoredFromOpt, StoredToOpt, check_range, parse_time, run_messaging
from mqadmin.cli.declare import Option
from mqadmin.cli.errors import CliError, ExitCode
from mqadmin.cli.params import NamesrvOpt, check_topic

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.model.trace import TraceView


class TraceDoc(TypedDict):
    type: Annotated[str, "Pub, SubBefore, SubAfter, EndTransaction or Recall"]
    msgId: str
    group: Annotated[str | None, "the producer or consumer group"]
    clientHost: Annotated[str | None, "the IP the trace was written from"]
    timestamp: Annotated[int, "ms since the epoch"]
    costTime: Annotated[int, "ms"]
    status: Literal["success", "failed"]
    topic: str | None
    tags: str | None
    keys: str | None
    storeHost: str | None
    offsetMsgId: str | None
    msgType: Annotated[str | None, "Normal_Msg, Trans_Msg_Half, ..."]


class TracesDoc(TypedDict):
    traces: list[TraceDoc]


@command(
    "queryMsgTraceById",
    "mqadmin queryMsgTraceById -i 7F0000011C2A18B4AAC27A4D0C830000",
    "mqadmin queryMsgTraceById -i 7F0000011C2A18B4AAC27A4D0C830000 -t MyTraceTopic",
    document=TracesDoc,
)
def query_msg_trace_by_id(
    msg_id: Annotated[str, Option("-i", "--msgId", metavar="ID", help="The message id (unique key).")],
    namesrv: NamesrvOpt = None,
    trace_topic: Annotated[
        str, Option("-t", "--traceTopic", metavar="TOPIC", help="The trace topic.")
    ] = "RMQ_SYS_TRACE_TOPIC",
    begin: StoredFromOpt = None,
    end: StoredToOpt = None,
    max_num: Annotated[
        int, Option("-c", "--maxNum", min=1, metavar="N", help="At most N trace messages per broker.")
    ] = 64,
) -> None:
    """Show a message's trace: who sent it (Pub) and each consumption (SubBefore/SubAfter), with client
    host, time, cost and status, from the records the clients' trace dispatchers wrote.

    Clients write traces only when message trace is enabled on them (Java: enableMsgTrace), to
    RMQ_SYS_TRACE_TOPIC unless they name another topic (-t). Nothing traced prints nothing (exit 0).
    """
    from mqadmin.admin.errors import ResponseError
    from mqadmin.admin.lookup import find_traces
    from mqadmin.admin.queries import END_OF_TIME
    from mqadmin.cli.commands.message._shared import human_time
    from mqadmin.cli.render import Column, json_output, note, print_json, print_table
    from mqadmin.wire.codes import ResponseCode

    check_topic(trace_topic)
    lo, hi = parse_time(begin, "-b"), parse_time(end, "-e")
    check_range(lo, hi, "-b", "-e")

    async def go(admin: AdminClient) -> list[TraceView]:
        try:
            return await find_traces(
                admin,
                msg_id.strip(),
                trace_topic,
                max_num=max_num,
                begin=lo or 0,
                end=END_OF_TIME if hi is None else hi,
            )
        except ResponseError as e:
            if e.code != ResponseCode.TOPIC_NOT_EXIST:
                raise
            raise CliError(
                f"the trace topic {trace_topic} does not exist",
                "no client has written a trace there: enable message trace on the producer and consumers",
                ExitCode.FAILURE,
            ) from None

    views = run_messaging(namesrv, go)
    if json_output():
        print_json({"traces": [v.to_json() for v in views]})
    else:
        columns = [Column("TYPE"), Column("GROUP"), Column("CLIENT HOST"), Column("TIME"), Column("COST MS", True),
                   Column("STATUS", styled=True)]  # fmt: skip
        rows = [(v.type, v.group or "", v.client_host or "", human_time(v.timestamp) if v.timestamp else "",
                 v.cost_time, v.status) for v in views]  # fmt: skip
        print_table(columns, rows)
    if not views:
        note(f"mqadmin: note: no trace of {msg_id.strip()} in {trace_topic}")
