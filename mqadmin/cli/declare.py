"""How a command declares its options and arguments, without importing Typer:
``topic: Annotated[str, Option("-t", "--topic", metavar="TOPIC", help="Topic name.")]``.

The metavar is the value's type: ``TOPIC``, ``GROUP``, ``CLUSTER``, ``BROKER`` (a broker name), ``HOST:PORT`` (a
broker address), ``USER``, ``User:NAME`` (an ACL subject), ``PROFILE``, ``HOST:PORT[;HOST:PORT]`` (name servers),
``FILE``, ``DIR`` and their lists (``CLUSTER,...``); shell completion follows from it (``VALUE_TYPES``), so every
option of such a type completes the names of the cluster on the command line with no wiring of its own.

A declaration holds the names and the ``typer.Option``/``typer.Argument`` keywords mqadmin uses. A valid
command line is parsed from the declarations alone (``mqadmin.cli.fast_parse``); Typer gets them, turned into
its own (``mqadmin.cli.typer_app.typer_param``), only when it builds the command: for ``--help``, completion,
the man page, and every command line the fast parser leaves to it (usage errors included).
"""

from __future__ import annotations

from typing import Any


class Param:
    """What ``Option`` and ``Argument`` share: the names and Typer's keywords (None: not given)."""

    __slots__ = ("help", "hidden", "max", "metavar", "min", "names", "show_default")

    def __init__(
        self,
        *names: str,
        help: str | None = None,
        metavar: str | None = None,
        min: float | None = None,
        max: float | None = None,
        show_default: bool | None = None,
        hidden: bool | None = None,
    ) -> None:
        self.names = names
        self.help = help
        self.metavar = metavar
        self.min = min
        self.max = max
        self.show_default = show_default
        self.hidden = hidden


VALUE_TYPES: dict[str, tuple[str, str]] = {
    "TOPIC": ("topic", ""),
    "GROUP": ("group", ""),
    "CLUSTER": ("cluster", ""),
    "CLUSTER,...": ("cluster", ","),
    "BROKER": ("broker", ""),
    "BROKER,...": ("broker", ","),
    "HOST:PORT": ("addr", ""),
    "REGISTERED=REACHABLE": ("addr", "="),
    "USER": ("user", ""),
    "USER,...": ("user", ","),
    "User:NAME": ("subject", ""),
    "User:NAME,...": ("subject", ","),
    "HOST:PORT[;HOST:PORT]": ("namesrv", ";"),
    "PROFILE": ("profile", ""),
    "[PROFILE]": ("profile", ""),
    "COMMAND": ("command", ""),
    "FILE": ("file", ""),
    "PLAN": ("file", ""),
    "DIR": ("dir", ""),
    "DIR...": ("dir", ""),
}
"""Metavar -> (what the value names, the separator of a list of them or ""): the names a Tab offers
(``mqadmin.cli.complete``). topic, group, cluster, broker (names), addr (broker addresses), user and subject
come from the live cluster; namesrv and profile from the config file and NAMESRV_ADDR; file and dir from the
shell. An option of any other metavar completes nothing (no file names)."""


class Option(Param):
    """``typer.Option``'s declaration: names (``"-t", "--topic"``, ``"--tls/--no-tls"``) and keywords."""

    __slots__ = ()


class Argument(Param):
    """``typer.Argument``'s declaration (no names: the parameter's own)."""

    __slots__ = ()

    def __init__(self, **keywords: Any) -> None:
        super().__init__(**keywords)
