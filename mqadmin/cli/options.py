"""Global options (``--format``, ``--timeout``, ``--debug``, and the connection options: ``--profile``,
credentials, TLS, broker address map), accepted before the command and after it.

The root callback sets them from the options before the command; ``with_global_options`` gives
every command the same options, which override those (so ``mqadmin topicList --format json`` and
``mqadmin --format json topicList`` are the same).
"""

from __future__ import annotations

import functools
import inspect
import math
import os
import sys
from collections.abc import Callable
from enum import StrEnum
from typing import Annotated, Any

from mqadmin.cli import resume_gc
from mqadmin.cli.declare import Option

MAX_TIMEOUT = 3600.0


class OutputFormat(StrEnum):
    table = "table"
    json = "json"


class GlobalOptions:
    """What the command line gave (None: not given). The format and timeout in effect are resolved on first
    use: flag > environment > profile > default (``mqadmin.cli.settings.output_format``/``request_timeout``).

    A plain class: as a dataclass, its generated ``__init__`` cost every command about 2% of its start-up."""

    def __init__(self) -> None:
        self.format_flag: OutputFormat | None = None
        self.timeout_flag: float | None = None
        self.debug = False
        self.profile: str | None = None
        self.access_key: str | None = None
        self.secret_key: str | None = None
        self.secret_key_file: str | None = None
        self.security_token: str | None = None
        self.tls: bool | None = None
        self.tls_ca: str | None = None
        self.tls_cert: str | None = None
        self.tls_key: str | None = None
        self.tls_server_name: str | None = None
        self.tls_insecure: bool | None = None
        self.broker_addr_map: list[str] = []
        self.blocking_io = False
        """The running command's I/O, from its declaration (``@command(..., blocking=True)``): blocking sockets
        without an event loop, or asyncio. ``mqadmin.cli.runner.run_admin`` reads it."""


GLOBAL = GlobalOptions()


def reset_globals() -> None:
    """Back to the defaults (each run starts from them, also when run in-process by tests)."""
    GLOBAL.__init__()  # type: ignore[misc]  # reset in place: modules hold this very object
    settings = sys.modules.get("mqadmin.cli.settings")  # nothing to forget before a command has used it
    if settings is not None:
        settings.forget()


def debug_enabled() -> bool:
    """``--debug`` or a non-empty ``MQADMIN_DEBUG`` (for runs where the command line cannot change)."""
    return GLOBAL.debug or bool(os.environ.get("MQADMIN_DEBUG"))


def parse_timeout(value: str | None) -> float | None:
    """``--timeout SECONDS``: a finite number of seconds in (0, 3600]; ValueError saying so otherwise."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or not 0 < seconds <= MAX_TIMEOUT:
        raise ValueError(f"{value!r} is not a number of seconds in (0, {MAX_TIMEOUT:g}]; for example: --timeout 10")
    return seconds


def _opt(*names: str, help: str, metavar: str | None = None, kind: Any = str, hidden: bool = False) -> Any:
    option = Option(*names, metavar=metavar, help=help, show_default=False, hidden=hidden)
    return Annotated[kind | None, option]


FormatOpt = _opt("--format", kind=OutputFormat, help="Output format: table (for people) or json (for scripts).")
TimeoutOpt = _opt("--timeout", metavar="SECONDS", help="Per-request timeout in seconds [default: 5].")
DebugOpt = _opt("--debug", kind=bool, help="Print each request and response code, and tracebacks, on stderr.")


def connection_options(hidden: bool) -> tuple[tuple[str, Any], ...]:
    """Global options choosing the cluster connection (profile, credentials, TLS, broker address map), in the
    order the help lists them; their values go to ``GLOBAL`` under these names. A command's own help shows
    only ``--profile`` (``hidden``): the others are listed once, in ``mqadmin --help`` and the man page."""
    more = " (connection options: mqadmin --help)" if hidden else ""
    return (
        ("profile", _opt("--profile", metavar="PROFILE", help=f"Use this profile of the config file{more}.")),
        ("access_key", _opt("--access-key", metavar="KEY", help="ACL access key.", hidden=hidden)),
        (
            "secret_key",
            _opt("--secret-key", metavar="SECRET", help="ACL secret key (lands in shell history).", hidden=hidden),
        ),
        (
            "secret_key_file",
            _opt("--secret-key-file", metavar="FILE", help="Read the ACL secret key from FILE.", hidden=hidden),
        ),
        ("security_token", _opt("--security-token", metavar="TOKEN", help="ACL security token.", hidden=hidden)),
        ("tls", _opt("--tls/--no-tls", kind=bool, help="TLS to every server.", hidden=hidden)),
        ("tls_ca", _opt("--tls-ca", metavar="FILE", help="CA certificates (PEM) to verify servers.", hidden=hidden)),
        ("tls_cert", _opt("--tls-cert", metavar="FILE", help="Client certificate (PEM), mutual TLS.", hidden=hidden)),
        ("tls_key", _opt("--tls-key", metavar="FILE", help="Client key (PEM), mutual TLS.", hidden=hidden)),
        (
            "tls_server_name",
            _opt("--tls-server-name", metavar="NAME", help="Name expected in server certificates.", hidden=hidden),
        ),
        (
            "tls_insecure",
            _opt("--tls-insecure", kind=bool, help="Do not verify server certificates (warns).", hidden=hidden),
        ),
        (
            "broker_addr_map",
            Annotated[
                list[str] | None,
                Option(
                    "--broker-addr-map",
                    metavar="REGISTERED=REACHABLE",
                    help="Send requests for a registered broker address to another one (repeatable).",
                    show_default=False,
                    hidden=hidden,
                ),
            ],
        ),
    )


CONNECTION_OPTIONS = connection_options(hidden=False)
"""As the root shows them (``mqadmin --help``); see docs/profiles.md for their environment variables."""

ROOT_OPTIONS = (("format", FormatOpt), ("timeout", TimeoutOpt), ("debug", DebugOpt), *CONNECTION_OPTIONS)
"""The global options before the command (``--version`` aside), as ``set_globals`` takes them."""


def set_globals(format: OutputFormat | None, timeout: str | None, debug: bool | None, **connection: Any) -> None:
    """Apply the global options that were given (None = not given here)."""
    if format is not None:
        GLOBAL.format_flag = format
    try:
        seconds = parse_timeout(timeout)
    except ValueError as e:  # as a bad option value (the fast parser leaves such a command line to Typer)
        import typer

        raise typer.BadParameter(str(e)) from None
    if seconds is not None:
        GLOBAL.timeout_flag = seconds
    if debug:
        GLOBAL.debug = True
    for name, value in connection.items():
        if value is not None and value != []:
            setattr(GLOBAL, name, value)


_GLOBAL_PARAMS = (
    inspect.Parameter("format_", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=FormatOpt),
    inspect.Parameter("timeout_", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=TimeoutOpt),
    inspect.Parameter("debug_", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=DebugOpt),
    *(
        inspect.Parameter(f"{name}_", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation)
        for name, annotation in connection_options(hidden=True)
    ),
)


_FORMATS = frozenset(f.value for f in OutputFormat)
_OWNABLE = ("format_", "tls_")


def with_global_options(
    fn: Callable[..., Any], blocking: Callable[[dict[str, Any]], bool] | None = None
) -> Callable[..., Any]:
    """``fn`` with the global options added to its parameters (Typer reads the signature). ``blocking``: whether
    a call with these options runs on blocking I/O (the command's declaration; None: asyncio)."""

    sig = inspect.signature(fn, eval_str=True)
    own = {name for name in _OWNABLE if name in sig.parameters}
    """Global options the command declares itself: ``--format`` with more formats than table and json
    (``doctor``'s nagios), ``--tls`` meaning "serve TLS" (``dev up``)."""

    @functools.wraps(fn)
    def command(*args: Any, timeout_: str | None, debug_: bool | None, **kw: Any) -> Any:
        connection = {name: kw.pop(f"{name}_") for name, _ in CONNECTION_OPTIONS if f"{name}_" not in own}
        given = kw["format_"] if "format_" in own else kw.pop("format_")
        fmt = OutputFormat(given.value) if given is not None and given.value in _FORMATS else None
        set_globals(fmt, timeout_, debug_, **connection)
        GLOBAL.blocking_io = blocking is not None and blocking(kw)
        resume_gc()
        return fn(*args, **kw)

    params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in sig.parameters.values()]
    extra = [p for p in _GLOBAL_PARAMS if p.name not in own]
    command.__signature__ = sig.replace(parameters=[*params, *extra])  # type: ignore[attr-defined]  # read by inspect.signature (Typer)
    return command
