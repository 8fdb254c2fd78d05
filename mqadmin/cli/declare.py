"""How a command declares its options and arguments, without importing Typer:
``topic: Annotated[str, Option("-t", "--topic", metavar="TOPIC", help="Topic name.", complete="topic")]``.

A declaration holds the names and the ``typer.Option``/``typer.Argument`` keywords mqadmin uses. A valid
command line is parsed from the declarations alone (``mqadmin.cli.fast_parse``); Typer gets them, turned into
its own (``typer_info``), only when it builds the command: for ``--help``, completion, the man page, and every
command line the fast parser leaves to it (usage errors included).
"""

from __future__ import annotations

from typing import Any


class Param:
    """What ``Option`` and ``Argument`` share: Typer's keywords (only those given, so Typer keeps its defaults)."""

    __slots__ = ("complete", "help", "hidden", "max", "metavar", "min", "names", "show_default")
    typer_kind = ""

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

    def typer_info(self) -> Any:
        """The ``typer.Option``/``typer.Argument`` this declaration stands for."""
        import typer

        keywords: dict[str, Any] = {
            k: getattr(self, k) for k in ("help", "metavar", "min", "max", "show_default", "hidden")
        }
        keywords = {k: v for k, v in keywords.items() if v is not None}
        if self.complete is not None:
            from mqadmin.cli.complete import completer

            keywords["autocompletion"] = completer(self.complete)
        return getattr(typer, self.typer_kind)(*self.names, **keywords)


class Option(Param):
    """``typer.Option``'s declaration: names (``"-t", "--topic"``, ``"--tls/--no-tls"``) and keywords."""

    __slots__ = ()
    typer_kind = "Option"


class Argument(Param):
    """``typer.Argument``'s declaration (no names: the parameter's own)."""

    __slots__ = ()
    typer_kind = "Argument"
