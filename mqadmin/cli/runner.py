"""Running a command's coroutine with an AdminClient, and mapping failures to exit codes.

| failure                                         | exit code                 |
|-------------------------------------------------|---------------------------|
| no / malformed name server address, bad input   | 2 USAGE                   |
| every name server unreachable                   | 4 NAMESRV_UNREACHABLE     |
| a server answered an error, a broker unreachable| 1 FAILURE                 |
| a fan-out where some targets failed             | 3 PARTIAL (all failed: 1) |
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from mqadmin.cli.errors import CliError, ExitCode, usage_error
from mqadmin.cli.options import GLOBAL

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult
    from mqadmin.transport.tcp import Transport

T = TypeVar("T")

NAMESRV_HINT = "pass -n host:9876 or set NAMESRV_ADDR"

transport_factory: Callable[[], Transport] | None = None
"""Tests set this to hand the AdminClient an in-memory transport; None means real TCP."""


def run_admin(namesrv: str | None, fn: Callable[[AdminClient], Awaitable[T]]) -> T:
    """Resolve the name servers (``-n`` or NAMESRV_ADDR), run ``fn(admin)`` and translate errors."""
    from mqadmin.admin import AdminClient, BadNameServerAddress, NoNameServer, resolve_namesrv_addrs

    try:
        addrs = resolve_namesrv_addrs(namesrv)
    except NoNameServer:
        raise CliError("no name server address given", NAMESRV_HINT, ExitCode.USAGE) from None
    except BadNameServerAddress as e:
        raise usage_error(str(e), "-n takes 'host:port' or 'host:port;host:port' (quote it in the shell)") from None

    async def main() -> T:
        transport = transport_factory() if transport_factory else None
        async with AdminClient(addrs, transport=transport, timeout=GLOBAL.timeout) as admin:
            return await fn(admin)

    try:
        return asyncio.run(main())
    except Exception as e:
        mapped = as_cli_error(e)
        if mapped is e:
            raise
        raise mapped from e


def as_cli_error(e: Exception) -> Exception:
    """The CliError for a failure of the admin layer; other exceptions are returned unchanged."""
    from mqadmin.admin import NameServerUnreachable, ResponseError, UnknownCluster
    from mqadmin.transport.errors import RequestTimeout, TransportError

    if isinstance(e, CliError):
        return e
    if isinstance(e, NameServerUnreachable):
        return CliError(str(e), f"is a name server running there? {NAMESRV_HINT}", ExitCode.NAMESRV_UNREACHABLE)
    if isinstance(e, UnknownCluster):
        return usage_error(str(e), "pass one of the known clusters with -c (see: mqadmin clusterList)")
    if isinstance(e, ResponseError):
        return CliError(str(e), _hint_for_code(e.code), ExitCode.FAILURE)
    if isinstance(e, RequestTimeout):
        return CliError(str(e), "the server may be overloaded or stopped; try a larger --timeout", ExitCode.FAILURE)
    if isinstance(e, TransportError):
        return CliError(str(e), "is the server running and reachable from this host?", ExitCode.FAILURE)
    return e


def _hint_for_code(code: int) -> str | None:
    return {
        16: "the server refused the request (ACL or a protected setting)",
        17: "check the topic name; list topics with: mqadmin topicList",
        3: "this server version does not support the request",
    }.get(code)


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
