"""checkMsgSendRT: send test messages to each queue of a topic in turn and show each send's time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.message._shared import run_messaging
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt, TopicOpt, check_topic

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient

MAX_SIZE = 4 * 1024 * 1024


class ProbeDoc(TypedDict):
    broker: str
    queueId: int
    ok: bool
    rt: Annotated[float, "ms"]
    error: str | None


class SendRtDoc(TypedDict):
    topic: str
    amount: int
    size: Annotated[int, "bytes per message"]
    sends: list[ProbeDoc]
    avgRt: Annotated[float, "ms, over the sends after the first (which opens the connections)"]


@dataclass(slots=True)
class Probe:
    broker: str
    queue_id: int
    ok: bool
    rt_ms: float
    error: str | None

    def to_json(self) -> ProbeDoc:
        return {"broker": self.broker, "queueId": self.queue_id, "ok": self.ok, "rt": round(self.rt_ms, 3),
                "error": self.error}  # fmt: skip


@command(
    "checkMsgSendRT",
    "mqadmin checkMsgSendRT -t Orders",
    "mqadmin checkMsgSendRT -t Orders -a 20 -s 1024",
    document=SendRtDoc,
)
def check_msg_send_rt(
    topic: TopicOpt,
    namesrv: NamesrvOpt = None,
    amount: Annotated[
        int, Option("-a", "--amount", min=1, max=100_000, metavar="N", help="How many messages to send.")
    ] = 100,
    size: Annotated[
        int, Option("-s", "--size", min=1, max=MAX_SIZE, metavar="BYTES", help="Body size of each message.")
    ] = 128,
) -> None:
    """Send -a messages of -s bytes to the topic, message i to publish queue i % queues (as Java), and show
    each send's broker, queue, result and response time in milliseconds, then the average.

    The messages are really stored in the topic (bodies of 'a'). The average leaves out the first send,
    which also connects, as Java does. Exit 1 when every send failed, 3 when some did.
    """
    import time

    from mqadmin.admin.errors import reason_of
    from mqadmin.admin.messaging import publisher, send_to
    from mqadmin.cli.errors import CliError, ExitCode
    from mqadmin.cli.render import Column, json_output, print_json, print_table

    check_topic(topic)
    body = b"a" * size

    async def go(admin: AdminClient) -> list[Probe]:
        pub = await publisher(admin, topic)
        probes = []
        for i in range(amount):
            queue = pub.queues[i % len(pub.queues)]
            start = time.perf_counter()
            try:
                result = await send_to(admin, pub, queue, body, {})
                ok, error = result.status == "SEND_OK", None if result.status == "SEND_OK" else result.status
            except Exception as e:  # a failed send is a result of the probe, not the end of it
                ok, error = False, reason_of(e)
            probes.append(Probe(queue.broker_name, queue.queue_id, ok, (time.perf_counter() - start) * 1000, error))
        return probes

    probes = run_messaging(namesrv, go)
    timed = probes[1:] or probes
    avg = sum(p.rt_ms for p in timed) / len(timed)
    if json_output():
        print_json({"topic": topic, "amount": amount, "size": size, "sends": [p.to_json() for p in probes],
                    "avgRt": round(avg, 3)})  # fmt: skip
    else:
        rows = [(p.broker, p.queue_id, "ok" if p.ok else "failed", f"{p.rt_ms:.2f}", p.error or "") for p in probes]
        cols = [Column("BROKER"), Column("QUEUE", True), Column("RESULT", styled=True), Column("RT MS", True)]
        with_error = any(p.error for p in probes)
        print_table(cols + [Column("ERROR")] if with_error else cols, [r if with_error else r[:4] for r in rows])
        print_table([Column("AVG RT MS", True)], [(f"{avg:.2f}",)])
    failed = sum(1 for p in probes if not p.ok)
    if failed:
        code = ExitCode.FAILURE if failed == len(probes) else ExitCode.PARTIAL
        raise CliError(f"{failed} of {len(probes)} sends to {topic} failed", "see the ERROR column above", code)
