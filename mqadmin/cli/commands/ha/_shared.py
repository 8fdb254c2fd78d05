"""Options and helpers shared by the HA and controller commands: ``-a`` controller addresses, Java's ``-i``
repetition, and running against controllers (which need no name server)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from mqadmin.cli.errors import usage_error

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient

T = TypeVar("T")

ControllerOpt = Annotated[
    str,
    typer.Option(
        "-a",
        "--controllerAddress",
        metavar="HOST:PORT[;HOST:PORT]",
        help="Controller address(es), e.g. 127.0.0.1:9878 (a name server's port when it runs the controller).",
    ),
]
IntervalOpt = Annotated[
    float | None,
    typer.Option("-i", "--interval", min=0.1, metavar="SECONDS", help="Repeat every N seconds until Ctrl-C."),
]
CountOpt = Annotated[
    int | None, typer.Option("--count", min=1, metavar="N", help="With -i: stop after N rounds [until Ctrl-C].")
]
BrokerNameOpt = Annotated[
    str | None,
    typer.Option("-b", "--brokerName", metavar="BROKER", help="Broker name, e.g. broker-a.", show_default=False),
]

CONTROLLER_HINT = "-a takes the controller's host:port (e.g. 127.0.0.1:9878), several separated by ';'"


def controller_addrs(value: str) -> list[str]:
    """``-a 'a:9878;b:9878'`` as a list (duplicates dropped); a usage error names a bad address."""
    from mqadmin.transport.tcp import split_addr

    addrs: list[str] = []
    for part in (p.strip() for p in value.split(";")):
        if not part:
            continue
        try:
            split_addr(part)
        except ValueError as e:
            raise usage_error(f"bad controller address {part!r} for -a: {e}", CONTROLLER_HINT) from None
        if part not in addrs:
            addrs.append(part)
    if not addrs:
        raise usage_error("no controller address given (-a is blank)", CONTROLLER_HINT)
    return addrs


def one_of(broker: str | None, cluster: str | None, what: str) -> None:
    """Java's ``-b`` or ``-c``: exactly one of them."""
    if broker and cluster:
        raise usage_error(f"give either -b ({what}) or -c (a cluster), not both")
    if not broker and not cluster:
        raise usage_error(f"give -b ({what}) or -c CLUSTER")


NOT_A_CONTROLLER_HINT = (
    "is a controller running there? A name server runs one only with enableControllerInNamesrv=true; "
    "a standalone controller listens on port 9878 by default"
)


def run_controller(addrs: list[str], fn: Callable[[AdminClient], Awaitable[T]]) -> T:
    """Run ``fn`` against controllers (no name server needed), with controller errors explained."""
    from mqadmin.cli.runner import run_admin_at

    return run_admin_at(addrs, controller_errors(fn), namesrvs=False)


def controller_errors(fn: Callable[[AdminClient], Awaitable[T]]) -> Callable[[AdminClient], Awaitable[T]]:
    """``fn`` with a controller that reports no leader, or a server that is no controller, turned into a
    one-line error with a hint (exit 1)."""

    async def go(admin: AdminClient) -> T:
        from mqadmin.admin import ResponseError
        from mqadmin.admin.ha import NoControllerLeader
        from mqadmin.cli.errors import CliError, ExitCode

        try:
            return await fn(admin)
        except NoControllerLeader as e:
            raise CliError(str(e), "wait for the controllers to elect a leader, then retry", ExitCode.FAILURE) from e
        except ResponseError as e:
            if e.code != 3:  # REQUEST_CODE_NOT_SUPPORTED
                raise
            raise CliError(str(e), NOT_A_CONTROLLER_HINT, ExitCode.FAILURE) from e

    return go


async def rounds(interval: float | None, count: int | None, one_round: Callable[[int], Awaitable[bool]]) -> None:
    """Java's ``-i``: run ``one_round(n)`` once, or every ``interval`` seconds until ``count`` rounds or
    Ctrl-C; ``one_round`` returns False to stop early."""
    import asyncio

    n = 0
    while True:
        keep_going = await one_round(n)
        n += 1
        if not keep_going or interval is None or (count is not None and n >= count):
            return
        await asyncio.sleep(interval)
