"""wait: block until the cluster has writable masters, a topic is routable everywhere, or a group has a consumer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.params import ClusterOpt, NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.topology.wait import Check, Condition

DEFAULT_DEADLINE = 60.0
REQUEST_TIMEOUT = 5.0
REQUEST_FLOOR = 1.0
"""A check started just before the deadline still gets this long an answer: one cut to the few milliseconds
left would end the wait on "no answer" instead of what the cluster last said."""


class ConditionDoc(TypedDict):
    kind: Annotated[str, "masters, topic or group"]
    name: str
    met: bool
    detail: str


class WaitDoc(TypedDict):
    conditions: list[ConditionDoc]
    elapsedMs: int
    outcome: Literal["ok", "timed out"]


@command(
    "wait",
    "mqadmin wait --masters 2 -c DefaultCluster --timeout 120",
    "mqadmin wait --topic Orders                 # route on every name server, queues on every master",
    "mqadmin wait --group OrderService           # a consumer of the group is online",
    document=WaitDoc,
)
def wait(
    namesrv: NamesrvOpt = None,
    cluster: ClusterOpt = None,
    masters: Annotated[
        int | None, Option("--masters", min=1, metavar="N", help="At least N masters that accept writes.")
    ] = None,
    topics: Annotated[
        list[str] | None,
        Option(
            "--topic", "-t", metavar="TOPIC", help="Routable on every name server, queues on every master (repeatable)."
        ),
    ] = None,
    groups: Annotated[
        list[str] | None,
        Option("--group", "-g", metavar="GROUP", help="A consumer of the group is online (repeatable)."),
    ] = None,
    interval: Annotated[
        float, Option("--interval", min=0.1, max=60, metavar="SECONDS", help="Time between checks.")
    ] = 1.0,
) -> None:
    """Wait until every condition given holds, checking again every --interval seconds.

    --timeout is the whole wait here (default 60 s; each request gets at most 5 s of it, and a check
    started before the deadline gets at least 1 s, so the wait may end up to 1 s late). Nothing failing
    meanwhile is an error (a name server not up yet, a broker restarting): the progress line on stderr says
    what is missing. Exits 0 once every condition holds, 7 when --timeout passes first (the output says which
    conditions were not met), 2 for a usage error. -c limits the masters to one cluster.
    """
    import time

    from mqadmin.cli.errors import CliError, ExitCode, usage_error
    from mqadmin.cli.options import GLOBAL
    from mqadmin.cli.params import check_topic
    from mqadmin.cli.runner import run_admin
    from mqadmin.cli.settings import forget
    from mqadmin.topology.wait import ConsumerOnline, TopicRoutable, WritableMasters, check_all

    conditions: list[Condition] = [WritableMasters(masters, cluster)] if masters else []
    for t in topics or []:
        check_topic(t)
        conditions.append(TopicRoutable(t, cluster))
    conditions += [ConsumerOnline(g, cluster) for g in groups or []]
    if not conditions:
        raise usage_error("nothing to wait for", "give --masters N, --topic TOPIC or --group GROUP")
    deadline_s = GLOBAL.timeout_flag or DEFAULT_DEADLINE
    GLOBAL.timeout_flag = min(REQUEST_TIMEOUT, deadline_s)
    forget()
    started = time.monotonic()

    async def go(admin: AdminClient) -> list[Check]:
        import asyncio

        line = _StatusLine()
        try:
            while True:
                left = deadline_s - (time.monotonic() - started)
                admin.timeout = max(REQUEST_FLOOR, min(REQUEST_TIMEOUT, left))
                checks = await check_all(admin, conditions)
                line.show(conditions, checks, time.monotonic() - started)
                left = deadline_s - (time.monotonic() - started)
                if all(c.met for c in checks) or left <= 0:
                    return checks
                await asyncio.sleep(min(interval, left))
        finally:
            line.close()

    checks = run_admin(namesrv, go)
    elapsed = time.monotonic() - started
    _print(conditions, checks, elapsed)
    if not all(c.met for c in checks):
        missing = ", ".join(f"{c.kind} {c.name}" for c, k in zip(conditions, checks, strict=True) if not k.met)
        raise CliError(
            f"timed out after {elapsed:.0f}s waiting for {missing}", "see the detail above", ExitCode.TIMED_OUT
        )


class _StatusLine:
    """What is still missing, on stderr: one line rewritten in place on a terminal, a new line when it changes
    otherwise."""

    def __init__(self) -> None:
        import sys

        self.tty = sys.stderr.isatty()
        self.last = ""

    def show(self, conditions: list[Condition], checks: list[Check], elapsed: float) -> None:
        import sys

        from mqadmin.cli.render import escape

        waiting = [f"{c.kind} {c.name}: {k.detail}" for c, k in zip(conditions, checks, strict=True) if not k.met]
        text = escape("; ".join(waiting)) if waiting else "done"
        if self.tty:
            sys.stderr.write(f"\r\x1b[2Kwait ({elapsed:.0f}s): {text}")
        elif text != self.last:
            sys.stderr.write(f"wait ({elapsed:.0f}s): {text}\n")
        sys.stderr.flush()
        self.last = text

    def close(self) -> None:
        import sys

        if self.tty and self.last:
            sys.stderr.write("\r\x1b[2K")
            sys.stderr.flush()


def _print(conditions: list[Condition], checks: list[Check], elapsed: float) -> None:
    from mqadmin.cli.render import Column, json_output, print_json, print_table

    rows = [[c.kind, c.name, "met" if k.met else "not met", k.detail] for c, k in zip(conditions, checks, strict=True)]
    if json_output():
        print_json(
            {
                "conditions": [
                    {"kind": c.kind, "name": c.name, "met": k.met, "detail": k.detail}
                    for c, k in zip(conditions, checks, strict=True)
                ],
                "elapsedMs": int(elapsed * 1000),
                "outcome": "ok" if all(k.met for k in checks) else "timed out",
            }
        )
    else:
        print_table([Column("CONDITION"), Column("NAME"), Column("STATUS"), Column("DETAIL")], rows)
