"""How a command module declares its command: ``@command("updateTopic", "mqadmin updateTopic -c …")``
registers the function under Java's name with the global options and the examples shown by ``--help``.

A command module holds one thin Typer function (options with mqadmin's letters, input checks, one call
to the admin client through ``mqadmin.cli.runner``, output through ``mqadmin.cli.render``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import typer

from mqadmin.cli.options import with_global_options

F = TypeVar("F", bound=Callable[..., Any])

APPS: dict[str, typer.Typer] = {}
"""Command name -> its one-command Typer app, filled as command modules are imported."""


def new_app(**kw: Any) -> typer.Typer:
    """A Typer app with mqadmin's settings (no rich markup, ``-h``, no pretty tracebacks)."""
    return typer.Typer(
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
        **kw,
    )


def examples_epilog(examples: tuple[str, ...]) -> str | None:
    if not examples:
        return None
    return "Examples:\n\n\b\n" + "\n".join(f"  {e}" for e in examples)


def command(name: str, *examples: str) -> Callable[[F], F]:
    """Register the decorated function as the mqadmin command ``name``; ``examples`` end its help."""

    def register(fn: F) -> F:
        app = new_app()
        app.command(name, epilog=examples_epilog(examples))(with_global_options(fn))
        APPS[name] = app
        return fn

    return register
