"""A valid command line, parsed from the commands' declarations alone: no Typer, no click imported.

``mqadmin [GLOBAL OPTIONS] COMMAND [OPTIONS]`` is parsed as click parses it for the Typer app (options before
the command are the root's, ``-t V``, ``-tV``, ``--topic V``, ``--topic=V``, flags and ``--x/--no-x``, repeated
options, ``int``/``float`` ranges, ``Path``, enums, defaults) and gives the command function exactly the
arguments Typer would. Anything it is not sure of it leaves to Typer, which then prints what it always has:
``-h``/``--help``, ``--version``, completion, an unknown option or command, a bad or missing value, a
positional argument, a command with subcommands or arguments (``dev``, ``profile``, ``help``, ``audit``), an
option type it does not know. tests/cli/test_fast_parse.py checks both parsers agree on every command.
"""

from __future__ import annotations

import functools
import inspect
import os
import types
from collections.abc import Callable, Iterable
from enum import Enum
from typing import Annotated, Any, NamedTuple, Union, get_args, get_origin

from mqadmin.cli import registry
from mqadmin.cli.declare import Option, Param
from mqadmin.cli.options import ROOT_OPTIONS, parse_timeout, set_globals

COMPLETION_VARIABLE = "_MQADMIN_COMPLETE"
"""Set by the shell at each Tab: completion is Typer's."""


class Unsure(Exception):
    """The command line, or a command's declarations, is for Typer to handle."""


class Parsed(NamedTuple):
    """A parameter as the parser handles it."""

    name: str
    flag: bool
    multiple: bool
    convert: Callable[[Any], Any]
    """From the command line's text (or the default) to the value Typer would pass; raises on a bad value."""
    default: Any
    required: bool


class Spec:
    """The options of a command (or of the root) and how to read them."""

    def __init__(self, params: Iterable[tuple[str, Any, Any]]) -> None:
        """``params``: (name, annotation, default) as in the function's signature; Unsure for what is not known."""
        self.params: list[Parsed] = []
        self.options: dict[str, tuple[Parsed, bool | None]] = {}
        """Option string -> (its parameter, the flag's value or None for an option taking a value)."""
        for name, annotation, default in params:
            if get_origin(annotation) is not Annotated:
                raise Unsure(f"{name}: not declared with Option")
            decl = next((m for m in annotation.__metadata__ if isinstance(m, Param)), None)
            if not isinstance(decl, Option) or not decl.names:
                raise Unsure(f"{name}: an argument, or an option named by Typer")
            kind, multiple = base_type(annotation.__origin__)
            flag = kind is bool
            required = default is inspect.Parameter.empty
            param = Parsed(name, flag, multiple, _converter(kind, decl), None if required else default, required)
            self.params.append(param)
            for names in decl.names:
                primary, _, secondary = names.partition("/") if flag else (names, "", "")
                self.options[primary] = (param, True if flag else None)
                if secondary:
                    self.options[secondary] = (param, False)

    def parse(self, args: list[str], *, stop_at_positional: bool) -> tuple[dict[str, Any], int]:
        """(keyword arguments, index of the first argument not read): options until the first positional
        argument (the root: the command's name) or the end; Unsure for anything click would refuse."""
        given: dict[str, Any] = {}
        i = 0
        while i < len(args):
            arg = args[i]
            if arg == "--" or arg[:1] != "-" or len(arg) == 1:
                if stop_at_positional and arg != "--":
                    break
                raise Unsure("a positional argument")
            i += 1
            value: str | bool
            param: Parsed | None
            name, eq, value = arg.partition("=")
            if name in self.options and not _short(name):  # a long option (click tries these first)
                param, flag_value = self.options[name]
                if flag_value is not None:
                    if eq:
                        raise Unsure(f"{name} takes no value")
                    value = flag_value
                elif not eq:
                    value, i = _next(args, i)
            elif arg[:2] == "--":
                raise Unsure(f"no option {name}")
            else:  # a short option, its value attached (-tTopic) or next; grouped flags (-ab) are left to click
                name, value = arg[:2], arg[2:]
                param, flag_value = self.options.get(name, (None, None))
                if param is None or (flag_value is not None and value):
                    raise Unsure(f"no option {arg}")
                if flag_value is not None:
                    value = flag_value
                elif not value:
                    value, i = _next(args, i)
            if param.multiple:
                given.setdefault(param.name, []).append(value)
            else:
                given[param.name] = value
        return {p.name: _value(p, given) for p in self.params}, i


def _next(args: list[str], i: int) -> tuple[str, int]:
    if i >= len(args):
        raise Unsure("an option without its value")
    return args[i], i + 1


def _value(param: Parsed, given: dict[str, Any]) -> Any:
    try:
        if param.name in given:
            value = given[param.name]
            return [param.convert(v) for v in value] if param.multiple else param.convert(value)
        if param.required:
            raise Unsure(f"{param.name} is missing")
        if param.default is None:
            return None
        if param.multiple:  # Typer's list: None for an empty default of None, else the converted items
            return [param.convert(v) for v in param.default]
        return param.convert(param.default)
    except (ValueError, TypeError, OSError) as e:
        raise Unsure(f"{param.name}: {e}") from None


def base_type(annotation: Any) -> tuple[Any, bool]:
    """(the type of one value, whether the option repeats) of ``T``, ``T | None`` or ``list[T] | None``."""
    if get_origin(annotation) in (Union, types.UnionType):
        rest = [a for a in get_args(annotation) if a is not type(None)]
        if len(rest) != 1:
            raise Unsure(f"a union: {annotation}")
        annotation = rest[0]
    if get_origin(annotation) is list:
        (item,) = get_args(annotation)
        return item, True
    return annotation, False


def _converter(kind: Any, decl: Option) -> Callable[[Any], Any]:
    """How Typer's click type for ``kind`` converts and checks one value (ValueError when it would refuse it)."""
    if kind is bool:
        return bool
    if kind is str:
        return str
    if kind in (int, float):
        low = None if decl.min is None else kind(decl.min)
        high = None if decl.max is None else kind(decl.max)
        return lambda text: _in_range(kind(text), low, high)
    if isinstance(kind, type) and issubclass(kind, os.PathLike):  # Path, known without importing pathlib
        return functools.partial(_path, kind)
    if isinstance(kind, type) and issubclass(kind, Enum):
        return _enum_converter(kind)
    raise Unsure(f"an option of type {kind}")


def _enum_converter(kind: type[Enum]) -> Callable[[Any], Enum]:
    """Typer's choice of an enum's values (exact case) as the member."""
    members = {str(m.value): m for m in kind}

    def convert(value: str | Enum) -> Enum:
        text = str(value.value) if isinstance(value, Enum) else value
        if text not in members:
            raise ValueError(f"{text!r} is not one of {', '.join(members)}")
        return members[text]

    return convert


def _short(option: str) -> bool:
    """``-t`` (not ``--topic``, nor a long option with one dash like ``-topic``)."""
    return len(option) == 2 and option[1] != "-"


def _in_range(value: float, low: float | None, high: float | None) -> float:
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{value} is out of range")
    return value


def _path(kind: Callable[[Any], Any], text: str | os.PathLike[str]) -> Any:
    """Typer's ``Path`` check: a path that exists must be readable."""
    try:
        os.stat(text)
    except OSError:
        return kind(text)
    if not os.access(text, os.R_OK):
        raise ValueError(f"{text} is not readable")
    return kind(text)


_SPECS: dict[str, Spec | None] = {}


def _root() -> Spec:
    if "" not in _SPECS:
        _SPECS[""] = Spec((name, annotation, None) for name, annotation in ROOT_OPTIONS)
    spec = _SPECS[""]
    assert spec is not None
    return spec


def _command_spec(name: str, function: Callable[..., Any]) -> Spec | None:
    if name not in _SPECS:
        try:
            params = inspect.signature(function).parameters.values()
            _SPECS[name] = Spec((p.name, p.annotation, p.default) for p in params)
        except Unsure:
            _SPECS[name] = None  # this command is always Typer's
    return _SPECS[name]


def parse_command_line(args: list[str]) -> Callable[[], Any] | None:
    """What running ``mqadmin ARGS`` does, or None when Typer should parse ``ARGS``."""
    if not args or COMPLETION_VARIABLE in os.environ or "--help" in args or "-h" in args:
        return None  # (-h may be an option's value: then Typer parses a valid command line, as it always did)
    try:
        return _parse(args)
    except Unsure:
        return None


def _parse(args: list[str]) -> Callable[[], Any] | None:
    import importlib

    from mqadmin.cli.command import COMMANDS

    root, at = _root().parse(args, stop_at_positional=True)
    entry = registry.find(args[at]) if at < len(args) else None
    if entry is None:
        return None
    importlib.import_module(f"mqadmin.cli.commands.{entry.module}")
    declared = COMMANDS.get(entry.name)
    spec = None if declared is None else _command_spec(entry.name, declared.function)
    if declared is None or spec is None:
        return None
    kwargs, _ = spec.parse(args[at + 1 :], stop_at_positional=False)
    for timeout in (root["timeout"], kwargs.get("timeout_")):
        try:  # a bad one is a usage error of Typer's (set_globals raises it as a bad option value)
            parse_timeout(timeout)
        except ValueError:
            return None
    function = declared.function

    def run() -> Any:
        set_globals(**root)  # what the root callback does with the options before the command
        return function(**kwargs)

    return run
