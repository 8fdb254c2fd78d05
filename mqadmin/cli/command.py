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


COMMANDS: dict[str, Command] = {}
"""Command name -> its declaration, filled as command modules are imported."""

APPS: dict[str, Any] = {}
"""Command name -> the Typer app of a command with subcommands (``dev``, ``profile``), which Typer always parses."""


def command(name: str, *examples: str) -> Callable[[F], F]:
    """Register the decorated function as the mqadmin command ``name``; ``examples`` end its help."""

    def register(fn: F) -> F:
        COMMANDS[name] = Command(name, with_global_options(fn), examples)
        return fn

    return register
