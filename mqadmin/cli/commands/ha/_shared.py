"""Options and helpers shared by the HA and controller commands: ``-a`` controller addresses, Java's ``-i``
repetition, and running against controllers (which need no name server)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, TypedDict, TypeVar

from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.errors import usage_error

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, Target, TargetResult
    from mqadmin.model.rpc.ha import ControllerMetadataHeader

T = TypeVar("T")


class ReplicaDoc(TypedDict):
    brokerName: str
    brokerId: int
    brokerAddress: str
    alive: Annotated[bool | None, "null: the controller did not say"]


class MasterDoc(TypedDict):
    masterBrokerId: Annotated[int | None, "null: no master"]
    masterAddress: str | None
    masterEpoch: int
    syncStateSetEpoch: int


class SyncStateDoc(MasterDoc):
    brokerName: str
    inSyncReplicas: list[ReplicaDoc]
    notInSyncReplicas: list[ReplicaDoc]


class HaConnectionDoc(TypedDict):
    addr: Annotated[str, "the slave's address"]
    slaveAckOffset: int
    diff: Annotated[int, "bytes the slave is behind"]
    inSync: bool
    transferredByteInSecond: int
    transferFromWhere: int


class HaClientDoc(TypedDict):
    masterAddr: str | None
    transferredByteInSecond: int
    maxOffset: int
    lastReadTimestamp: int
    lastWriteTimestamp: int
    masterFlushOffset: int
    activated: bool


class HaRuntimeDoc(TypedDict):
    master: bool
    masterCommitLogMaxOffset: int
    inSyncSlaveNums: int
    haConnectionInfo: Annotated[list[HaConnectionDoc], "a master: each slave connected"]
    haClientRuntimeInfo: Annotated[HaClientDoc, "a slave: its connection to the master"]


class HaStatusResultDoc(TargetResultDoc):
    haStatus: Annotated[HaRuntimeDoc | None, "null: failed"]


class HaStatusDoc(TypedDict):
    """One round (with -i, one line per round)."""

    results: Annotated[list[HaStatusResultDoc], "each broker"]
    outcome: Outcome


class EpochDoc(TypedDict):
    epoch: int
    startOffset: int
    endOffset: int


class EpochCacheDoc(TypedDict):
    clusterName: str
    brokerName: str
    brokerId: int
    epochList: list[EpochDoc]
    maxOffset: int


class EpochResultDoc(TargetResultDoc):
    epochCache: Annotated[EpochCacheDoc | None, "null: failed"]


class BrokerEpochDoc(TypedDict):
    """One round (with -i, one line per round)."""

    results: Annotated[list[EpochResultDoc], "each broker"]
    outcome: Outcome


FoundControllerOpt = Annotated[
    str | None,
    Option(
        "-a",
        "--controllerAddress",
        metavar="CONTROLLER[;CONTROLLER]",
        help="Controller address(es), e.g. 127.0.0.1:9878 [found through the name server: a controller-mode "
        "broker's controllerAddr, or a name server that runs the controller].",
        show_default=False,
    ),
]
IntervalOpt = Annotated[
    float | None,
    Option("-i", "--interval", min=0.1, metavar="SECONDS", help="Repeat every N seconds until Ctrl-C."),
]
CountOpt = Annotated[
    int | None, Option("--count", min=1, metavar="N", help="With -i: stop after N rounds [until Ctrl-C].")
]
BrokerNameOpt = Annotated[
    str | None,
    Option("-b", "--brokerName", metavar="BROKER", help="Broker name, e.g. broker-a.", show_default=False),
]

CONTROLLER_HINT = "-a takes the controller's host:port (e.g. 127.0.0.1:9878), several separated by ';'"


def controller_addrs(value: str) -> list[str]:
    """``-a 'a:9878;b:9878'`` as a list (duplicates dropped); a usage error names a bad address."""
    from mqadmin.wire.address import split_addr

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


def controllers(controller: str | None, namesrv: str | None, cluster: str | None = None) -> list[str]:
    """The controllers of ``-a``; without it, those the cluster of the name server (``-n``, NAMESRV_ADDR or the
    profile) points to (``controllers_of_cluster``, the brokers of ``cluster`` first), named on stderr."""
    if controller is not None:
        return controller_addrs(controller)
    from mqadmin.cli import settings
    from mqadmin.cli.errors import CliError, ExitCode
    from mqadmin.cli.render import note
    from mqadmin.cli.runner import run_lookup

    if settings.namesrv(namesrv).value is None:
        raise usage_error("no controller address given", "give -a HOST:PORT, or -n NAMESRV to find the controller")

    async def go(admin: AdminClient) -> list[str]:
        return await admin.controllers_of_cluster(cluster)

    found = run_lookup(namesrv, go)
    if not found:
        raise CliError(
            "no controller found through the name server: no broker runs in controller mode with a "
            "controllerAddr, and no name server runs one (enableControllerInNamesrv)",
            "give the controller with -a HOST:PORT",
            ExitCode.FAILURE,
        )
    note(f"mqadmin: controller {';'.join(found)} (found through the name server)")
    return found


async def reachable(admin: AdminClient, addrs: list[str]) -> tuple[str, ControllerMetadataHeader]:
    """The first of the controllers ``addrs`` that answers, with its metadata; those passed over (not reachable)
    are named on stderr."""
    addr, meta = await admin.reachable_controller(addrs)
    _passed_over(addrs, addr)
    return addr, meta


async def leader_of(admin: AdminClient, addrs: list[str]) -> tuple[str, str]:
    """(the controller asked, the leader it reports): the first of ``addrs`` that answers is asked, those passed
    over named on stderr."""
    asked, leader = await admin.controller_leader(addrs)
    _passed_over(addrs, asked)
    return asked, leader


def _passed_over(addrs: list[str], asked: str) -> None:
    from mqadmin.cli.render import note

    if asked != addrs[0]:
        note(f"mqadmin: controller {';'.join(addrs[: addrs.index(asked)])} not reachable; asked {asked}")


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


def watch_brokers(
    namesrv: str | None,
    interval: float | None,
    count: int | None,
    what: str,
    targets: Callable[[AdminClient], Awaitable[list[Target]]],
    fetch: Callable[[AdminClient, list[Target]], Awaitable[list[TargetResult]]],
    shown: tuple[str, Callable[[Any], Any], Callable[[Sequence[TargetResult]], None]],
) -> None:
    """A per-broker read repeated as Java's ``-i`` does: ``fetch`` on ``targets`` each round, printed as a table
    by ``shown[2]`` or as JSON with each answer under key ``shown[0]`` (as ``shown[1]`` renders it; one line per
    round with -i); exit 3 or 1 when brokers of the last round failed."""
    from mqadmin.cli.render import json_output, print_json, print_json_line
    from mqadmin.cli.runner import exit_for_results, results_json, run_admin

    key, to_json, print_table = shown
    last: list[list[TargetResult]] = []

    async def go(admin: AdminClient) -> None:
        chosen = await targets(admin)

        async def one_round(n: int) -> bool:
            results = await fetch(admin, chosen)
            if json_output():
                doc = results_json(results)
                for entry, r in zip(doc["results"], results, strict=True):
                    entry[key] = to_json(r.data) if r.ok and r.data else None
                (print_json_line if interval else print_json)(doc)
            else:
                if n:
                    print()
                print_table(results)
            last[:] = [results]
            return True

        await rounds(interval, count, one_round)

    try:
        run_admin(namesrv, go)
    except KeyboardInterrupt:
        if not last or interval is None:
            raise
    exit_for_results(last[0], what)
