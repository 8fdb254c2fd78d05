"""How a command module declares its command: ``@command("updateTopic", "mqadmin updateTopic -c …")``
registers the function under Java's name with the global options and the examples shown by ``--help``.

A command module holds one thin function (options with mqadmin's letters declared with
``mqadmin.cli.declare``, input checks, one call to the admin client through ``mqadmin.cli.runner``, output
through ``mqadmin.cli.render``). Registering imports no Typer: a valid command line runs the function from
``mqadmin.cli.fast_parse``; Typer builds the command (``mqadmin.cli.typer_app``) for help, completion and
usage errors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

from mqadmin.cli.options import with_global_options

F = TypeVar("F", bound=Callable[..., Any])


class Command(NamedTuple):
    name: str
    function: Callable[..., Any]
    """The decorated function with the global options (``with_global_options``): what both parsers call."""
    examples: tuple[str, ...]
    blocking: bool = False
    """Runs on blocking sockets without an event loop (``mqadmin.cli.runner``): its admin calls await no sleep,
    semaphore or timeout of asyncio's. False: asyncio."""
    async_with: tuple[str, ...] = ()
    """Options (parameter names) that make a blocking command run on asyncio when given (``clusterList -i``)."""
    document: Any = None
    """The TypedDict of its ``--format json`` document (``mqadmin.cli.documents``); None: not declared yet."""

    def runs_blocking(self, options: dict[str, Any]) -> bool:
        """Whether a call with these options runs on blocking I/O."""
        return self.blocking and not any(options.get(name) for name in self.async_with)


COMMANDS: dict[str, Command] = {}
"""Command name -> its declaration, filled as command modules are imported."""

APPS: dict[str, Any] = {}
"""Command name -> the Typer app of a command with subcommands (``dev``, ``profile``), which Typer always parses."""

SUBCOMMAND_DOCUMENTS: dict[str, Any] = {}
"""``"profile list"`` -> the TypedDict of that subcommand's ``--format json`` document, for every subcommand of
``APPS`` (filled as they register); None: it prints no JSON document (its help says so)."""

NO_DOCUMENT = "It prints no JSON document: stdout stays empty, with --format json too."
"""The last paragraph of the help of a subcommand that declares no document."""


def command(
    name: str, *examples: str, blocking: bool = False, async_with: tuple[str, ...] = (), document: Any = None
) -> Callable[[F], F]:
    """Register the decorated function as the mqadmin command ``name``; ``examples`` end its help. ``blocking``
    (and ``async_with``): its I/O, see ``Command``; the declaration in effect when it runs is read then, so a
    test can run a command both ways. ``document``: the TypedDict its ``--format json`` prints."""

    def register(fn: F) -> F:
        function = with_global_options(fn, lambda options: COMMANDS[name].runs_blocking(options))
        COMMANDS[name] = Command(name, function, examples, blocking, async_with, document)
        return fn

    return register
