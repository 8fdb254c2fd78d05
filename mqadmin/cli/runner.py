"""Running a command's coroutine with an AdminClient, showing per-target results, and mapping
failures to exit codes.

| failure                                          | exit code                 |
|--------------------------------------------------|---------------------------|
| no / malformed address, bad input                | 2 USAGE                   |
| every name server unreachable                    | 4 NAMESRV_UNREACHABLE     |
| a server answered an error, a broker unreachable | 1 FAILURE                 |
| a fan-out where some targets failed              | 3 PARTIAL (all failed: 1) |
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from mqadmin.cli.errors import CliError, ExitCode, usage_error
from mqadmin.cli.options import GLOBAL, debug_enabled

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, Target, TargetResult
    from mqadmin.transport.tcp import Transport

T = TypeVar("T")

NAMESRV_HINT = "pass -n host:9876 or set NAMESRV_ADDR"
NAMESRV_FORMAT_HINT = (
    "-n takes 'host:port' or 'host:port;host:port' (quote it in the shell; name servers use port 9876)"
)

transport_factory: Callable[[], Transport] | None = None
"""Tests set this to hand the AdminClient an in-memory transport; None means real TCP."""


def namesrv_addrs(namesrv: str | None) -> list[str]:
    """The name servers of ``-n`` or NAMESRV_ADDR, checked (usage error naming the bad address)."""
    from mqadmin.admin import BadNameServerAddress, NoNameServer, resolve_namesrv_addrs

    try:
        return resolve_namesrv_addrs(namesrv)
    except NoNameServer:
        raise CliError("no name server address given", NAMESRV_HINT, ExitCode.USAGE) from None
    except BadNameServerAddress as e:
        raise usage_error(str(e), NAMESRV_FORMAT_HINT) from None


def check_broker_addr(addr: str | None, option: str = "-b") -> None:
    """A ``-b`` value must be host:port (usage error otherwise)."""
    if addr is None:
        return
    from mqadmin.wire.address import split_addr

    try:
        split_addr(addr)
    except ValueError as e:
        raise usage_error(
            f"bad broker address {addr!r} for {option}: {e}", f"{option} takes host:port (brokers use port 10911)"
        ) from None


def run_admin(namesrv: str | None, fn: Callable[[AdminClient], Awaitable[T]]) -> T:
    """Resolve the name servers (``-n`` or NAMESRV_ADDR), run ``fn(admin)`` and translate errors."""
    from mqadmin.admin import AdminClient

    addrs = namesrv_addrs(namesrv)

    async def main() -> T:
        fake = transport_factory() if transport_factory else None
        transport = fake or _tcp_transport()
        try:
            async with AdminClient(addrs, transport=transport, timeout=GLOBAL.timeout) as admin:
                return await fn(admin)
        finally:
            if fake is None:
                await transport.aclose()

    try:
        return asyncio.run(main())
    except Exception as e:
        mapped = as_cli_error(e, addrs)
        if mapped is e:
            raise
        raise mapped from e


def _tcp_transport() -> Transport:
    from mqadmin.cli.render import note
    from mqadmin.transport.tcp import TcpTransport

    trace = (lambda line: note(f"mqadmin: {line}")) if debug_enabled() else None
    return TcpTransport(timeout=GLOBAL.timeout, trace=trace)


def as_cli_error(e: Exception, namesrvs: Sequence[str] = ()) -> Exception:
    """The CliError for a failure of the admin layer; other exceptions are returned unchanged."""
    from mqadmin.admin import NameServerUnreachable, ResponseError, UnknownCluster
    from mqadmin.admin.errors import MalformedResponse
    from mqadmin.transport.errors import HostNotFound, RequestTimeout, TransportError

    if isinstance(e, CliError):
        return e
    if isinstance(e, NameServerUnreachable):
        if all(isinstance(x, HostNotFound) for x in e.errors.values()):
            return usage_error(str(e), "check the host names given with -n or NAMESRV_ADDR")
        return CliError(str(e), f"is a name server running there? {NAMESRV_HINT}", ExitCode.NAMESRV_UNREACHABLE)
    if isinstance(e, UnknownCluster):
        return usage_error(str(e), "pass one of the known clusters with -c (see: mqadmin clusterList)")
    if isinstance(e, ResponseError):
        return CliError(str(e), _hint_for_response(e, namesrvs), ExitCode.FAILURE)
    if isinstance(e, HostNotFound):
        return usage_error(str(e), "check the host name")
    if isinstance(e, RequestTimeout):
        return CliError(str(e), "the server may be overloaded or stopped; try a larger --timeout", ExitCode.FAILURE)
    if isinstance(e, TransportError):
        return CliError(str(e), "is the server running and reachable from this host?", ExitCode.FAILURE)
    if isinstance(e, MalformedResponse):
        return CliError(str(e), "is that address a RocketMQ server?", ExitCode.FAILURE)
    return e


def _hint_for_response(e: Any, namesrvs: Sequence[str]) -> str | None:
    if e.code == 3:  # REQUEST_CODE_NOT_SUPPORTED
        if e.addr in namesrvs:
            return f"{e.addr} does not answer name-server requests: is it a broker? -n takes a name server (port 9876)"
        return (
            f"{e.addr} does not support this request: an older broker, or a name server where a broker is "
            "expected (-b takes a broker address, port 10911)"
        )
    return {
        16: "the server refused the request (ACL or a protected setting)",
        17: "check the topic name; list topics with: mqadmin topicList",
    }.get(e.code)


async def broker_targets(
    admin: AdminClient, broker_addr: str | None, cluster: str | None, *, masters_only: bool, what: str = "this command"
) -> list[Target]:
    """The brokers of ``-b``/``-c``. A ``-b`` address that is one of the name servers is a usage error; one the
    name server does not list gets a warning; a slave is refused when ``masters_only``."""
    from mqadmin.cli.render import warn

    info = await admin.cluster_info()
    targets = await admin.targets(broker_addr, cluster, info)
    if not broker_addr:
        return targets
    target = targets[0]
    if broker_addr in admin.namesrv.addrs:
        raise usage_error(
            f"{broker_addr} is a name server (it is in -n/NAMESRV_ADDR)", "-b takes a broker address (port 10911)"
        )
    if not target.name:
        warn(f"{broker_addr} is not registered with the name server; sending anyway")
    elif masters_only and target.broker_id != 0:
        master = info.brokers[target.name].master_addr or "none registered"
        raise usage_error(
            f"{broker_addr} is a slave (id {target.broker_id}) of {target.name}; {what} acts on masters",
            f"use the master: -b {master}, or -c {target.cluster}",
        )
    return targets


# --- per-target results ----------------------------------------------------------------------------


def results_json(results: Sequence[TargetResult], **fields: Any) -> dict[str, Any]:
    """The JSON document of a fan-out: the command's own fields, one entry per target, and the outcome."""
    from mqadmin.admin import outcome

    return {**fields, "results": [r.to_json() for r in results], "outcome": outcome(results)}


def print_results(results: Sequence[TargetResult], kind: str = "BROKER", title: str | None = None) -> None:
    """One row per target: name, address, result, and the changes or the reason where there are any."""
    from mqadmin.cli.render import Column, print_table

    with_changes = any(r.changes for r in results)
    with_reason = any(r.reason for r in results)
    columns = [Column(kind), Column("ADDRESS"), Column("RESULT", styled=True)]
    columns += [Column("CHANGES")] if with_changes else []
    columns += [Column("REASON")] if with_reason else []
    rows = []
    for r in results:
        row: list[object] = [r.name or "?", r.addr, str(r.status)]
        row += [describe_changes(r.changes)] if with_changes else []
        row += [r.reason or ""] if with_reason else []
        rows.append(row)
    print_table(columns, rows, title)


def describe_changes(changes: dict[str, tuple[Any, Any]]) -> str:
    """``perm 6→4, writeQueueNums 8→16``."""
    return ", ".join(f"{name} {_value(old)}→{_value(new)}" for name, (old, new) in changes.items())


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}={x}" for k, x in sorted(v.items())) + "}"
    return str(v)


def exit_for_results(results: Sequence[TargetResult], what: str) -> None:
    """Raise PARTIAL (some failed) or FAILURE (all failed) after the per-target output was printed."""
    failed = [r for r in results if not r.ok]
    if not failed:
        return
    names = ", ".join(f"{r.name} {r.addr}".strip() for r in failed)
    if len(failed) == len(results):
        raise CliError(f"{what} failed on every target ({names})", "see the reason column above", ExitCode.FAILURE)
    raise CliError(
        f"{what} failed on {len(failed)} of {len(results)} targets ({names})",
        "the other targets are done; fix the failed ones and run the same command again",
        ExitCode.PARTIAL,
    )
