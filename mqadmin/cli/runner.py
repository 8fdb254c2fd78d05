"""Running a command's coroutine with an AdminClient, showing per-target results, and mapping
failures to exit codes.

| failure                                            | exit code                 |
|----------------------------------------------------|---------------------------|
| no / malformed address, bad input or settings      | 2 USAGE                   |
| every name server (or the address server) unreachable | 4 NAMESRV_UNREACHABLE  |
| a server answered an error, a broker unreachable   | 1 FAILURE                 |
| a fan-out where some targets failed                | 3 PARTIAL (all failed: 1) |
| credentials refused, or no permission              | 5 AUTH                    |

The connection (credentials, TLS, broker address map, name servers from a profile or an address server)
comes from ``mqadmin.cli.settings``; every transport a command uses is built by ``connection_transport``.

A command that awaits no sleep, semaphore or timeout of asyncio's declares ``@command(..., blocking=True)``
(``async_with``: options that need asyncio, such as ``clusterList -i``): ``run_admin`` then runs it over
``BlockingTransport`` without an event loop, and asyncio is never imported (with ssl, concurrent.futures and
logging, it is a large part of a short command's start-up). Its fan-outs still reach every server at once:
``mqadmin.transport.gather`` runs them on threads.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from mqadmin.cli.errors import CliError, ExitCode, usage_error
from mqadmin.cli.options import debug_enabled

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, Target, TargetResult
    from mqadmin.model.route import ClusterInfo
    from mqadmin.transport.base import Transport

T = TypeVar("T")

NAMESRV_HINT = "pass -n host:9876 or set NAMESRV_ADDR"
NO_NAMESRV_HINT = f"{NAMESRV_HINT} (or use a profile: mqadmin profile create NAME -n host:9876)"
NAMESRV_FORMAT_HINT = (
    "-n takes 'host:port' or 'host:port;host:port' (quote it in the shell; name servers use port 9876)"
)

transport_factory: Callable[[], Transport] | None = None
"""Tests set this to hand the AdminClient an in-memory transport; None means real TCP."""


def namesrv_addrs(namesrv: str | None) -> list[str]:
    """The name servers of ``-n``, NAMESRV_ADDR or the profile, checked (usage error naming the bad address);
    an address-server URL is fetched (exit 4 when it cannot be)."""
    from mqadmin.admin import BadNameServerAddress, NoNameServer
    from mqadmin.admin.addrserver import AddressServerError
    from mqadmin.admin.namesrv import namesrv_list
    from mqadmin.cli import settings
    from mqadmin.transport.errors import TlsConfigError

    value = settings.namesrv(namesrv)
    if value.value is None:
        raise CliError("no name server address given", NO_NAMESRV_HINT, ExitCode.USAGE)
    try:
        return namesrv_list(value.value, fetch=_fetch_from_address_server)
    except NoNameServer:
        raise CliError(
            f"no name server address given ({value.origin} is empty)", NO_NAMESRV_HINT, ExitCode.USAGE
        ) from None
    except BadNameServerAddress as e:
        where = "" if value.origin == "-n" else f" (from {value.origin})"
        raise usage_error(f"{e}{where}", NAMESRV_FORMAT_HINT) from None
    except AddressServerError as e:
        raise CliError(
            str(e),
            "check the URL and that the address server is up, or give the name servers with -n",
            ExitCode.NAMESRV_UNREACHABLE,
        ) from None
    except TlsConfigError as e:
        raise as_cli_error(e) from None


def _fetch_from_address_server(url: str) -> list[str]:
    import ssl

    from mqadmin.admin.addrserver import fetch_namesrv_list
    from mqadmin.admin.namesrv import parse_namesrv_addrs
    from mqadmin.cli import settings
    from mqadmin.cli.render import warn

    tls = settings.tls().value
    verify: ssl.SSLContext | bool = True if tls is None else tls.context()  # https checked as the servers are
    trace(f"name servers from the address server {url}")
    return fetch_namesrv_list(
        url, timeout=settings.request_timeout(), verify=verify, warn=warn, parse=parse_namesrv_addrs
    )


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
    """Resolve the name servers (``-n``, NAMESRV_ADDR or the profile), run ``fn(admin)`` and translate errors;
    on blocking sockets when the command declares it (``@command(..., blocking=True)``, see ``run_admin_at``)."""
    from mqadmin.cli import settings
    from mqadmin.cli.options import GLOBAL

    settings.validate()
    return run_admin_at(namesrv_addrs(namesrv), fn, blocking=GLOBAL.blocking_io)


def run_lookup(namesrv: str | None, fn: Callable[[AdminClient], Awaitable[T]]) -> T:
    """``run_admin`` on blocking sockets, for a lookup outside any command's declared I/O: names completed at a
    Tab, the controller found through the name server before a controller command talks to it."""
    from mqadmin.cli import settings

    settings.validate()
    return run_admin_at(namesrv_addrs(namesrv), fn, blocking=True)


def run_admin_at(
    addrs: list[str], fn: Callable[[AdminClient], Awaitable[T]], *, namesrvs: bool = True, blocking: bool = False
) -> T:
    """``run_admin`` with the servers given; ``namesrvs=False`` when they are not name servers (controllers of
    ``-a``), so errors are not explained as name-server errors. With ``blocking`` (a command that awaits no
    sleep, semaphore or timeout of asyncio's; its fan-outs go through ``transport.gather``) ``fn`` runs over blocking
    sockets without an event loop; in-memory transports of tests (``transport_factory``) always get one."""
    from mqadmin.admin.lazy_client import LazyAdminClient  # AdminClient, importing only the operations used
    from mqadmin.cli import settings

    blocking = blocking and transport_factory is None

    result: list[T] = []

    async def main() -> None:
        transport = connection_transport(addrs, blocking=blocking)
        try:
            async with LazyAdminClient(addrs, transport=transport, timeout=settings.request_timeout()) as admin:
                result.append(await fn(admin))
        finally:
            if transport_factory is None:
                await transport.aclose()

    # The result is handed over outside the task: on Python 3.11, asyncio.run's restoring of the SIGINT handler
    # formats the main task's repr, result included, and a dataclass repr of 100,000 topics costs seconds and
    # hundreds of MiB.
    try:
        if blocking:
            from mqadmin.transport.gather import run_to_end

            run_to_end(main())
        else:
            import asyncio

            asyncio.run(main())
        return result[0]
    except Exception as e:
        mapped = as_cli_error(e, addrs if namesrvs else ())
        if mapped is e:
            raise
        raise mapped from e


def trace(line: str) -> None:
    """One ``--debug`` line on stderr (nothing without --debug)."""
    if debug_enabled():
        from mqadmin.cli.render import note

        note(f"mqadmin: {line}")


def connection_transport(namesrvs: Sequence[str], *, blocking: bool = False) -> Transport:
    """The transport every request of the command goes through: signed with the resolved credentials, over TLS
    when it is on, broker addresses mapped (never the name servers ``namesrvs``); over blocking sockets with
    ``blocking``. Tests swap the TCP part through ``transport_factory``."""
    from mqadmin.cli import settings
    from mqadmin.transport.addrmap import MappedTransport

    settings.validate()
    transport = transport_factory() if transport_factory else _socket_transport(blocking)
    amap = settings.addr_map()
    if amap.value:
        trace(f"broker address map from {amap.origin}: " + ", ".join(f"{k}={v}" for k, v in amap.value.items()))
        transport = MappedTransport(transport, amap.value, keep=namesrvs)
    return transport


def _socket_transport(blocking: bool) -> Transport:
    from mqadmin.cli import settings
    from mqadmin.cli.render import note, warn

    if blocking:
        from mqadmin.transport.blocking import BlockingTransport as SocketTransport
    else:
        from mqadmin.transport.tcp import TcpTransport as SocketTransport  # type: ignore[assignment]  # either, one name

    credentials = settings.credentials()
    tls = settings.tls()
    if tls.value is not None and tls.value.insecure:
        warn(f"TLS without verifying server certificates (tls_insecure from {tls.origin}): use only on test clusters")
    if credentials is not None and (source := settings.credential_source()) is not None:
        trace(f"signing requests as AccessKey={credentials.access_key} ({source.origin})")
    if tls.value is not None:
        trace(f"TLS from {tls.origin}: {tls.value}")
    tracer = (lambda line: note(f"mqadmin: {line}")) if debug_enabled() else None
    return SocketTransport(timeout=settings.request_timeout(), trace=tracer, tls=tls.value, credentials=credentials)


def as_cli_error(e: Exception, namesrvs: Sequence[str] = ()) -> Exception:
    """The CliError for a failure of the admin layer; other exceptions are returned unchanged."""
    from mqadmin.admin import NameServerUnreachable, ResponseError, UnknownCluster
    from mqadmin.admin.auth import NO_AUTH_HINT, AuthNotEnabled, auth_refusal
    from mqadmin.admin.errors import MalformedResponse
    from mqadmin.transport.errors import (
        HostNotFound,
        RequestTimeout,
        TlsConfigError,
        TlsHandshakeFailed,
        TransportError,
    )

    if isinstance(e, CliError):
        return e
    if isinstance(e, TlsConfigError):
        return usage_error(
            str(e), "the TLS files must be PEM: --tls-ca (or tls_ca in the profile), --tls-cert, --tls-key"
        )
    if isinstance(e, NameServerUnreachable):
        errors = list(e.errors.values())
        if all(isinstance(x, HostNotFound) for x in errors):
            return usage_error(str(e), "check the host names given with -n or NAMESRV_ADDR")
        tls_error = next((x for x in errors if isinstance(x, TlsHandshakeFailed)), None)
        hint = (
            tls_hint(tls_error)
            if tls_error
            else _closed_hint(errors) or f"is a name server running there? {NAMESRV_HINT}"
        )
        return CliError(str(e), hint, ExitCode.NAMESRV_UNREACHABLE)
    if isinstance(e, UnknownCluster):
        return usage_error(str(e), "pass one of the known clusters with -c (see: mqadmin clusterList)")
    if isinstance(e, AuthNotEnabled):
        return CliError(str(e), NO_AUTH_HINT, ExitCode.FAILURE)
    if isinstance(e, ResponseError):
        kind = auth_refusal(e.code, e.remark)
        if kind:
            return CliError(str(e), auth_hint(kind), ExitCode.AUTH)
        return CliError(str(e), _hint_for_response(e, namesrvs), ExitCode.FAILURE)
    if isinstance(e, HostNotFound):
        return usage_error(str(e), "check the host name")
    if isinstance(e, RequestTimeout):
        return CliError(str(e), "the server may be overloaded or stopped; try a larger --timeout", ExitCode.FAILURE)
    if isinstance(e, TlsHandshakeFailed):
        return CliError(str(e), tls_hint(e), ExitCode.FAILURE)
    if isinstance(e, TransportError):
        hint = _closed_hint([e]) or "is the server running and reachable from this host?"
        return CliError(str(e), hint, ExitCode.FAILURE)
    if isinstance(e, MalformedResponse):
        return CliError(str(e), "is that address a RocketMQ server?", ExitCode.FAILURE)
    return e


def tls_hint(e: Any) -> str:
    if e.verify:
        return (
            "give the CA that signed the server's certificate with --tls-ca FILE, the name it holds with "
            "--tls-server-name NAME, or (test clusters only) --tls-insecure"
        )
    return "is TLS enabled on that server (tls.server.mode permissive or enforcing)? without TLS, drop --tls"


def _closed_hint(errors: Sequence[Exception]) -> str | None:
    """A server that closes a plaintext connection at once may be enforcing TLS."""
    from mqadmin.cli import settings
    from mqadmin.transport.errors import ConnectionClosed

    closed = [x for x in errors if isinstance(x, ConnectionClosed) and "by the server" in str(x)]
    if closed and settings.tls().value is None:
        return "the server closed the connection: if it enforces TLS (tls.server.mode=enforcing), pass --tls"
    return None


def auth_hint(kind: str) -> str:
    """What to do about a refusal, naming the access key used and where it came from (never the secret)."""
    from mqadmin.admin.auth import AUTHENTICATION
    from mqadmin.cli import settings

    try:
        source = settings.credential_source()
    except CliError:
        source = None
    if kind == AUTHENTICATION:
        if source is None or not source.access_key:
            return (
                "the broker requires credentials: --access-key with --secret-key-file, ROCKETMQ_ACCESS_KEY and "
                "ROCKETMQ_SECRET_KEY, or a profile (docs/profiles.md)"
            )
        return (
            f"the broker did not accept access key {source.access_key!r} (from {source.origin}): check the key and "
            "its secret, and that the user exists and is enabled (mqadmin getUser)"
        )
    who = f"user {source.access_key!r} (from {source.origin})" if source and source.access_key else "this user"
    return f"{who} lacks the permission: a super user can grant it with mqadmin createAcl, or use other credentials"


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
    admin: AdminClient,
    broker_addr: str | None,
    cluster: str | None,
    *,
    masters_only: bool,
    what: str = "this command",
    info: ClusterInfo | None = None,
) -> list[Target]:
    """The brokers of ``-b``/``-c`` (from ``info`` when the command has just read it). A ``-b`` address that is one
    of the name servers is a usage error; one the name server does not list gets a warning; a slave is refused when
    ``masters_only``."""
    from mqadmin.cli.render import warn

    info = info or await admin.cluster_info()
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


def _every_namesrv_unreachable(failed: Sequence[TargetResult]) -> Exception | None:
    """A fan-out to the name servers where none answered: exit 4 with its hint, as for any other command."""
    from mqadmin.admin.errors import NameServerUnreachable
    from mqadmin.transport.errors import TransportError

    errors = {r.addr: r.error for r in failed if r.name == "namesrv" and isinstance(r.error, TransportError)}
    return NameServerUnreachable(errors) if len(errors) == len(failed) else None


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
    from mqadmin.admin.auth import NO_AUTH_HINT, AuthNotEnabled, refusal_of  # ACL models: only on failure

    names = ", ".join(f"{r.name} {r.addr}".strip() for r in failed)
    if len(failed) == len(results):
        if unreachable := _every_namesrv_unreachable(failed):
            raise as_cli_error(unreachable)
        kinds = {refusal_of(r.error) for r in failed}
        if len(kinds) == 1 and (kind := kinds.pop()) is not None:
            raise CliError(f"{what} was refused on every target ({names})", auth_hint(kind), ExitCode.AUTH)
        hint = "see the reason column above"
        if all(isinstance(r.error, AuthNotEnabled) for r in failed):
            hint = NO_AUTH_HINT
        raise CliError(f"{what} failed on every target ({names})", hint, ExitCode.FAILURE)
    raise CliError(
        f"{what} failed on {len(failed)} of {len(results)} targets ({names})",
        "the other targets are done; fix the failed ones and run the same command again",
        ExitCode.PARTIAL,
    )
