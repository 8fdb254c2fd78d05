"""How a command declares its options and arguments, without importing Typer:
``topic: Annotated[str, Option("-t", "--topic", metavar="TOPIC", help="Topic name.", complete="topic")]``.

A declaration holds the names and the ``typer.Option``/``typer.Argument`` keywords mqadmin uses. A valid
command line is parsed from the declarations alone (``mqadmin.cli.fast_parse``); Typer gets them, turned into
its own (``mqadmin.cli.typer_app.typer_param``), only when it builds the command: for ``--help``, completion,
the man page, and every command line the fast parser leaves to it (usage errors included).
"""

from __future__ import annotations

from typing import Any


class Param:
    """What ``Option`` and ``Argument`` share: the names and Typer's keywords (None: not given)."""

    __slots__ = ("complete", "help", "hidden", "max", "metavar", "min", "names", "show_default")

    def __init__(
        self,
        *names: str,
        help: str | None = None,
        metavar: str | None = None,
        min: float | None = None,
        max: float | None = None,
        show_default: bool | None = None,
        hidden: bool | None = None,
        complete: str | None = None,
    ) -> None:
        self.names = names
        self.help = help
        self.metavar = metavar
        self.min = min
        self.max = max
        self.show_default = show_default
        self.hidden = hidden
        self.complete = complete
        """What a Tab completes from the live cluster (``mqadmin.cli.complete.completer``'s kinds)."""


class Option(Param):
    """``typer.Option``'s declaration: names (``"-t", "--topic"``, ``"--tls/--no-tls"``) and keywords."""

    __slots__ = ()


class Argument(Param):
    """``typer.Argument``'s declaration (no names: the parameter's own)."""

    __slots__ = ()

    def __init__(self, **keywords: Any) -> None:
        super().__init__(**keywords)
