"""Global options (``--format``, ``--timeout``, ``--debug``), accepted before the command and after it.

The root callback sets them from the options before the command; ``with_global_options`` gives
every command the same options, which override those (so ``mqadmin topicList --format json`` and
``mqadmin --format json topicList`` are the same).
"""

from __future__ import annotations

import functools
import inspect
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any

import typer

MAX_TIMEOUT = 3600.0


class OutputFormat(StrEnum):
    table = "table"
    json = "json"


@dataclass
class GlobalOptions:
    format: OutputFormat = OutputFormat.table
    timeout: float = 5.0
    timeout_given: bool = False
    """``--timeout`` was given (``wait`` reads it as its deadline, 60 s when not given)."""
    debug: bool = False


GLOBAL = GlobalOptions()


def reset_globals() -> None:
    """Back to the defaults (each run starts from them, also when run in-process by tests)."""
    GLOBAL.__init__()  # type: ignore[misc]


def debug_enabled() -> bool:
    """``--debug`` or a non-empty ``MQADMIN_DEBUG`` (for runs where the command line cannot change)."""
    return GLOBAL.debug or bool(os.environ.get("MQADMIN_DEBUG"))


def parse_timeout(value: str | None) -> float | None:
    """``--timeout SECONDS``: a finite number of seconds in (0, 3600]."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or not 0 < seconds <= MAX_TIMEOUT:
        raise typer.BadParameter(
            f"{value!r} is not a number of seconds in (0, {MAX_TIMEOUT:g}]; for example: --timeout 10"
        )
    return seconds


FormatOpt = Annotated[
    OutputFormat | None,
    typer.Option("--format", help="Output format: table (for people) or json (for scripts).", show_default=False),
]
TimeoutOpt = Annotated[
    str | None,
    typer.Option(
        "--timeout", metavar="SECONDS", help="Per-request timeout in seconds [default: 5].", show_default=False
    ),
]
DebugOpt = Annotated[
    bool | None,
    typer.Option(
        "--debug", help="Print each request and response code, and tracebacks, on stderr.", show_default=False
    ),
]


def set_globals(format: OutputFormat | None, timeout: str | None, debug: bool | None) -> None:
    """Apply the global options that were given (None = not given here)."""
    if format is not None:
        GLOBAL.format = format
    seconds = parse_timeout(timeout)
    if seconds is not None:
        GLOBAL.timeout, GLOBAL.timeout_given = seconds, True
    if debug:
        GLOBAL.debug = True


_GLOBAL_PARAMS = (
    inspect.Parameter("format_", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=FormatOpt),
    inspect.Parameter("timeout_", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=TimeoutOpt),
    inspect.Parameter("debug_", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=DebugOpt),
)


def with_global_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with the global options added to its parameters (Typer reads the signature)."""

    @functools.wraps(fn)
    def command(*args: Any, format_: OutputFormat | None, timeout_: str | None, debug_: bool | None, **kw: Any) -> Any:
        set_globals(format_, timeout_, debug_)
        return fn(*args, **kw)

    sig = inspect.signature(fn, eval_str=True)
    params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in sig.parameters.values()]
    command.__signature__ = sig.replace(parameters=[*params, *_GLOBAL_PARAMS])  # type: ignore[attr-defined]
    return command
