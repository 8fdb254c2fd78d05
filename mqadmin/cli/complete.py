"""Shell completion, answered without Typer, click or asyncio: command names, option names, and the values an
option's type names (``mqadmin.cli.declare.VALUE_TYPES``): live topic, group, cluster, broker, user and subject
names from the cluster the command line selects (``mqadmin.cli.live_names``), name-server addresses and
profiles from the config file, files only for options that take a file or directory.

The scripts (``script``) call ``mqadmin`` with ``_MQADMIN_COMPLETE`` set to the shell at each Tab: bash hands
the line up to the cursor (``COMP_LINE``, whole: its words are split at ``:`` and ``=``) and its current word,
so the answer can be trimmed to what bash replaces (``host:port`` completes whole); zsh and fish hand their
words, the cursor's last. The answer is one candidate a line, ``:files`` or ``:dirs`` for the shell's own file
completion, or nothing; nothing is ever written to stderr and any failure answers nothing.
"""

from __future__ import annotations

import inspect
import os
import re
import sys
from collections.abc import Callable
from enum import Enum
from typing import Any

from mqadmin.cli import registry
from mqadmin.cli.declare import VALUE_TYPES, Param

COMPLETE_VARIABLE = "_MQADMIN_COMPLETE"
SHELLS = ("bash", "zsh", "fish")
FILES, DIRS = ":files", ":dirs"
ROOT_ONLY = ("--help", "--version", "--install-completion", "--show-completion")

Options = dict[str, tuple[Param, Any]]
"""Option string -> (its declaration, the type of one value; bool for a flag)."""


def main() -> int:
    """Answer the shell's completion request in the environment (``mqadmin`` with ``_MQADMIN_COMPLETE`` set)."""
    shell = os.environ.get(COMPLETE_VARIABLE, "")
    try:
        if shell == "bash":
            words = split_line(os.environ.get("_MQADMIN_LINE", ""))[1:]
            lines = for_bash(candidates(words), words[-1], os.environ.get("_MQADMIN_CUR", ""))
        else:
            lines = candidates(sys.argv[1:] or [""])
        if lines:
            sys.stdout.write("\n".join(lines) + "\n")
    except Exception:  # noqa: BLE001 - a Tab never prints an error into the prompt
        return 1
    return 0


def install() -> int:
    """``mqadmin --install-completion [SHELL]`` (or ``--show-completion``): the script of SHELL, or of the shell
    mqadmin runs in, installed where that shell loads it (Typer's places) or printed."""
    from typer import _completion_shared as typer_completion

    own_completion_scripts()
    action, *shell = sys.argv[1:]
    if shell and shell[0] not in SHELLS:
        sys.stderr.write(
            f"mqadmin: error: no completion for the shell {shell[0]!r}\n  hint: one of {', '.join(SHELLS)}\n"
        )
        return 2
    name = shell[0] if shell else typer_completion._get_shell_name()
    if action == "--show-completion":
        sys.stdout.write(script(name or "bash"))
        return 0
    name, path = typer_completion.install(shell=name, prog_name="mqadmin", complete_var=COMPLETE_VARIABLE)
    sys.stdout.write(f"{name} completion installed in {path}\nit takes effect in a new shell\n")
    return 0


def own_completion_scripts() -> None:
    """Typer's ``--install-completion`` and ``--show-completion`` give mqadmin's own scripts; Typer fills its
    templates with ``%``, hence the doubling."""
    from typer import _completion_shared as typer_completion

    for shell in SHELLS:
        typer_completion._completion_scripts[shell] = script(shell).replace("%", "%%")


def split_line(line: str) -> list[str]:
    """The words of a shell line (quotes removed, an unfinished quote closed), the cursor's last ("" after a
    space)."""
    import shlex

    lexer = shlex.shlex(line, posix=True, punctuation_chars=False)
    lexer.whitespace_split = True
    lexer.commenters = ""
    words: list[str] = []
    try:
        for word in lexer:
            words.append(word)
    except ValueError:  # an unfinished quote: what was read of it is the cursor's word
        words.append(lexer.token)
        return words
    if not line or line[-1].isspace():
        words.append("")
    return words


_BASH_SPECIAL = re.compile(r"([^\w@%+=:,./~^-])")


def for_bash(found: list[str], word: str, cur: str) -> list[str]:
    """bash replaces only its own current word ``cur``, the end of ``word`` after the last ``:`` or ``=``:
    each candidate without what precedes it (bash-completion's ``__ltrim_colon_completions``), escaped."""
    if found[:1] in ([FILES], [DIRS]):
        return found
    head = word[: len(word) - len(cur)] if word.endswith(cur) else ""
    return [_BASH_SPECIAL.sub(r"\\\1", c[len(head) :]) for c in found if c.startswith(head)]


def candidates(args: list[str]) -> list[str]:
    """What completes the last of ``args`` (the words after ``mqadmin``): full words starting with it."""
    *before, cur = args
    options, command = _root_options(), None
    positional: list[Param] = []
    given: dict[str, list[Any]] = {}
    """The options on the line by long name (the cluster they select is the one to ask): their values."""
    pending: Param | None = None
    for word in before:
        if pending is not None:
            given.setdefault(long_name(pending), []).append(word)
            pending = None
        elif word.startswith("-") and len(word) > 1 and word != "--":
            name, eq, value = word.partition("=")
            found_option = options.get(name) or options.get(word[:2])
            if found_option is None:
                continue
            decl, kind = found_option
            if kind is bool:
                given.setdefault(long_name(decl), []).append(not name.startswith("--no-"))
            elif eq or name not in options:  # --topic=T, -tT
                given.setdefault(long_name(decl), []).append(value if eq else word[2:])
            else:
                pending = decl
        elif command is None:
            entry = registry.find(word)
            if entry is None:
                return []
            command = entry.name
            options, positional = command_options(entry)
        elif positional and positional.pop(0) is SUBCOMMAND:
            options, positional = _subcommand_options(command, word)
    if pending is not None:
        return value_candidates(pending, next(k for d, k in options.values() if d is pending), cur, given)
    if cur.startswith("--") and "=" in cur:
        name = cur.partition("=")[0]
        named = options.get(name)
        if named is None or named[1] is bool:
            return []
        found = value_candidates(*named, cur[len(name) + 1 :], given)
        return [f"{name}={v}" for v in found if v not in (FILES, DIRS)]
    if cur.startswith("-"):
        names = [n for n, (d, _) in options.items() if len(cur) > 2 or not d.hidden]
        names += ROOT_ONLY if command is None else ("--help",)
        return sorted(n for n in names if n.startswith(cur))
    if command is None:
        return [e.name for e in registry.COMMANDS if e.name.startswith(cur)]
    if positional:
        if positional[0] is SUBCOMMAND:
            return sorted(n for n in subcommands(command) if n.startswith(cur))
        return value_candidates(positional[0], str, cur, given)
    return []


def long_name(decl: Param) -> str:
    """``--topic`` for ``-t/--topic``, ``--tls`` for ``--tls/--no-tls``."""
    return next((n for n in decl.names if n.startswith("--")), decl.names[-1]).split("/")[0]


def value_candidates(decl: Param, kind: Any, cur: str, given: dict[str, list[Any]]) -> list[str]:
    """The values of an option (or argument) of ``decl``'s type that start with ``cur``."""
    if isinstance(kind, type) and issubclass(kind, Enum):
        return [str(m.value) for m in kind if str(m.value).startswith(cur)]
    paths = shell_paths(decl, kind)
    if paths:
        return [paths]
    names, sep = VALUE_TYPES.get(decl.metavar or "", ("", ""))
    if not names:
        return []
    head, _, last = cur.rpartition(sep) if sep else ("", "", cur)
    head = head + sep if head else ""
    listed = (
        head.split(sep) if head else []
    )  # after a separator: one more name, not a whole list, not one already listed
    return [head + n for n in _names(names, given) if n.startswith(last) and not (head and (sep in n or n in listed))]


def shell_paths(decl: Param, kind: Any) -> str | None:
    """FILES or DIRS for an option taking a file or a directory (the shell lists them), else None."""
    names = VALUE_TYPES.get(decl.metavar or "", ("", ""))[0]
    if names == "dir":
        return DIRS
    if names == "file" or (isinstance(kind, type) and issubclass(kind, os.PathLike)):
        return FILES
    return None


def _names(names: str, given: dict[str, list[Any]]) -> list[str]:
    if names == "command":
        return [e.name for e in registry.COMMANDS]
    if names in ("namesrv", "profile"):
        from mqadmin.cli.live_names import config_names

        return config_names(names)
    from mqadmin.cli.live_names import live_names

    return live_names(names, given)


def _root_options() -> Options:
    from mqadmin.cli.options import ROOT_OPTIONS

    return _options((name, annotation) for name, annotation in ROOT_OPTIONS)


def command_options(entry: registry.Entry) -> tuple[Options, list[Param]]:
    """A command's options (the global ones included) and its positional arguments, from its declarations; a
    command with subcommands (``dev``, ``profile``) has one positional argument, the subcommand."""
    import importlib

    from mqadmin.cli.command import APPS, COMMANDS

    importlib.import_module(f"mqadmin.cli.commands.{entry.module}")
    declared = COMMANDS.get(entry.name)
    if declared is not None:
        return _signature_options(declared.function)
    if entry.name in APPS:
        return {}, [SUBCOMMAND]
    return {}, []


SUBCOMMAND = Param(metavar="SUBCOMMAND")
"""The positional argument of ``dev`` and ``profile``."""


def subcommands(command: str) -> dict[str, Callable[..., Any]]:
    """The subcommands of ``dev`` or ``profile``: name -> the function with the global options."""
    from mqadmin.cli.command import APPS

    return {
        info.name or info.callback.__name__: getattr(info.callback, "__wrapped__", info.callback)
        for info in APPS[command].registered_commands
        if info.callback is not None
    }


def _subcommand_options(command: str, name: str) -> tuple[Options, list[Param]]:
    function = subcommands(command).get(name)
    return ({}, []) if function is None else _signature_options(function)


def _signature_options(function: Callable[..., Any]) -> tuple[Options, list[Param]]:
    params = inspect.signature(function, eval_str=True).parameters.values()
    declared = [(p.name, p.annotation) for p in params]
    arguments = [d for _, a in declared if (d := _decl(a)) is not None and not d.names]
    return _options(declared), arguments


def _decl(annotation: Any) -> Param | None:
    return next((m for m in getattr(annotation, "__metadata__", ()) if isinstance(m, Param)), None)


def _options(params: Any) -> Options:
    from mqadmin.cli.fast_parse import base_type

    found: Options = {}
    for _, annotation in params:
        decl = _decl(annotation)
        if decl is None or not decl.names:
            continue
        kind = base_type(annotation.__origin__)[0]
        for names in decl.names:
            for name in names.split("/") if kind is bool else (names,):
                found[name] = (decl, kind)
    return found


def script(shell: str) -> str:
    """The completion script ``mqadmin --install-completion SHELL`` installs (and ``completions/`` holds)."""
    return _SCRIPTS[shell]


_SCRIPTS = {
    "bash": """\
# mqadmin completion for bash (mqadmin --install-completion bash). The whole line goes to mqadmin: bash splits
# its words at ':' and '=', which would cut -n host:port in two.
_mqadmin_complete() {
    local cur=${COMP_WORDS[COMP_CWORD]} IFS=$'\\n'
    local -a reply
    reply=($(_MQADMIN_COMPLETE=bash _MQADMIN_LINE=${COMP_LINE:0:COMP_POINT} _MQADMIN_CUR=$cur "$1" 2>/dev/null))
    case ${reply[0]} in
        :files) COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames ;;
        :dirs) COMPREPLY=($(compgen -d -- "$cur")); compopt -o filenames ;;
        *) COMPREPLY=("${reply[@]}") ;;
    esac
}
complete -F _mqadmin_complete mqadmin
""",
    "zsh": """\
#compdef mqadmin
# mqadmin completion for zsh (mqadmin --install-completion zsh): autoloaded from $fpath, or sourced.
_mqadmin() {
    local -a reply
    reply=("${(@f)$(_MQADMIN_COMPLETE=zsh ${words[1]} "${(@Q)words[2,CURRENT-1]}" "${(Q)PREFIX}" 2>/dev/null)}")
    case $reply[1] in
        :files) _files ;;
        :dirs) _files -/ ;;
        '') return 1 ;;
        *) compadd -a reply ;;
    esac
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
    _mqadmin "$@"
else
    compdef _mqadmin mqadmin
fi
""",
    "fish": """\
# mqadmin completion for fish (mqadmin --install-completion fish).
function __mqadmin_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l reply (_MQADMIN_COMPLETE=fish $words[1] $words[2..-1] "$cur" 2>/dev/null)
    switch "$reply[1]"
        case :files
            __fish_complete_path "$cur"
        case :dirs
            __fish_complete_directories "$cur"
        case '*'
            printf '%s\\n' $reply
    end
end
complete --command mqadmin --no-files --arguments '(__mqadmin_complete)'
""",
}
