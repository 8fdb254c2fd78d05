"""The fast parser (mqadmin.cli.fast_parse) against Typer on every command: for each command line it accepts,
the command function gets exactly the arguments Typer gives it and the global options end the same; what it
is unsure of it leaves to Typer, which keeps its messages and exit code 2.

Each command's function is replaced by one that records its arguments (same signature), and the same
command line is run once through each parser.
"""

from __future__ import annotations

import importlib
import inspect
import shlex
from enum import Enum
from pathlib import Path
from typing import Any

import pytest

from mqadmin.cli import fast_parse, registry, typer_app
from mqadmin.cli.command import APPS, COMMANDS, Command
from mqadmin.cli.errors import CliError, Exit, ExitCode
from mqadmin.cli.main import main
from mqadmin.cli.options import GLOBAL, reset_globals

ALWAYS_TYPER = {"help", "audit", "dev", "profile"}
"""Commands the fast parser never takes: subcommands (dev, profile) or positional arguments (help, audit)."""

for _entry in registry.COMMANDS:
    importlib.import_module(f"mqadmin.cli.commands.{_entry.module}")
SINGLE = sorted(e.name for e in registry.COMMANDS if e.name in COMMANDS)

USAGE = "usage error"
DECLINED = "declined"


class Recorder:
    """Stands in for a command's function (same signature): what it was called with, and the globals then."""

    def __init__(self, declared: Command) -> None:
        self.calls: list[tuple[dict[str, Any], dict[str, Any]]] = []

        def record(**kw: Any) -> None:
            self.calls.append((kw, dict(vars(GLOBAL))))

        record.__signature__ = inspect.signature(declared.function)  # type: ignore[attr-defined]
        self.function = record


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch):
    """name -> Recorder, installed in place of every single command's function for both parsers."""
    recorders = {}
    for name in SINGLE:
        recorders[name] = Recorder(COMMANDS[name])
        monkeypatch.setitem(COMMANDS, name, COMMANDS[name]._replace(function=recorders[name].function))
    monkeypatch.setattr(typer_app, "_LOADED", {})
    monkeypatch.setattr(fast_parse, "_SPECS", {})
    monkeypatch.delenv(fast_parse.COMPLETION_VARIABLE, raising=False)
    yield recorders
    reset_globals()


def recorder_for(line: list[str], recorded: dict[str, Recorder]) -> Recorder:
    """The recorder of the command named in ``line`` (the first word that is one)."""
    return recorded[next(e.name for e in map(registry.find, line) if e is not None)]


def by_fast_parser(args: list[str], recorder: Recorder) -> Any:
    reset_globals()
    call = fast_parse.parse_command_line(args)
    if call is None:
        return DECLINED
    call()
    return recorder.calls.pop()


def by_typer(args: list[str], recorder: Recorder) -> Any:
    reset_globals()
    try:
        typer_app.run(args)
    except CliError as e:
        assert e.code == ExitCode.USAGE
        return USAGE
    return recorder.calls.pop()


def sample(annotation: Any, decl: Any) -> str:
    """A valid value for an option of this type."""
    kind, _ = fast_parse.base_type(annotation.__origin__)
    if isinstance(kind, type) and issubclass(kind, Enum):
        return str(list(kind)[-1].value)
    if kind in (int, float):
        low = decl.min if decl.min is not None else 3
        return str(int(low) if kind is int else low + 0.5 if decl.max is None else low)
    if kind is Path:
        return "/tmp"
    return "Sample-1"


def valid_command_lines(name: str) -> list[list[str]]:
    """The command's examples, then each of its options in each form, with the required options given."""
    params = inspect.signature(COMMANDS[name].function).parameters.values()
    required: list[str] = []
    lines: list[list[str]] = []
    examples: list[list[str]] = []
    for example in COMMANDS[name].examples:  # the mqadmin part of "echo … | mqadmin … | jq …"
        words = shlex.split(example, comments=True)
        start = words.index("mqadmin") + 1
        end = next((i for i, w in enumerate(words) if w in ("|", ">", "&&", ";") and i > start), len(words))
        examples.append(words[start:end])
    forms: list[list[str]] = []
    for p in params:
        decl = p.annotation.__metadata__[0]
        kind, multiple = fast_parse.base_type(p.annotation.__origin__)
        names = [n for spelled in decl.names for n in spelled.split("/")]
        if kind is bool:
            forms += [[n] for n in names]
            continue
        value = "2.5" if p.name == "timeout_" else sample(p.annotation, decl)  # seconds, checked by the command
        if p.default is inspect.Parameter.empty:
            required += [names[0], value]
        for n in names:
            forms += [[n, value], [f"{n}{value}"] if fast_parse._short(n) else [f"{n}={value}"]]
        if multiple:
            forms.append([names[-1], value, names[-1], value + "2"])
    lines += [required + form for form in forms] + [required]
    return examples + [[name, *line] for line in lines]


@pytest.mark.parametrize("name", sorted(set(SINGLE) - ALWAYS_TYPER))
def test_every_option_of_every_command_parses_as_typer_parses_it(name: str, recorded: dict[str, Recorder]) -> None:
    for line in valid_command_lines(name):
        recorder = recorder_for(line, recorded)
        typer = by_typer(line, recorder)
        assert typer != USAGE, line  # a sample line is valid
        assert by_fast_parser(line, recorder) == typer, line


def test_the_commands_left_to_typer_are_the_known_ones() -> None:
    declined = {name for name in SINGLE if fast_parse._command_spec(name, COMMANDS[name].function) is None}
    assert declined | set(APPS) == ALWAYS_TYPER


GLOBAL_LINES = [
    ["--format", "json", "topicList"],
    ["--timeout", "2.5", "--debug", "topicList", "--timeout", "9"],
    ["--tls", "--tls-ca", "ca.pem", "topicList", "--no-tls"],
    ["--broker-addr-map", "a:1=b:2", "topicList", "--broker-addr-map", "c:3=d:4", "--broker-addr-map", "e:5=f:6"],
    ["--profile", "prod", "--access-key", "AK", "topiclist", "--secret-key=SK", "--format=table"],
    ["updateTopic", "-t", "-weird", "-c", "C", "-a", "-message.type", "-c", "D"],  # values starting with '-'
    ["updateTopic", "-t=T", "-cC", "-r", "8", "-r", "16"],  # '-t=T' is the topic '=T'; the last -r wins
    ["updateTopic", "--topic=", "-c", "C", "--if-not-exists"],
    ["doctor", "--format", "nagios"],
    ["updateTopicList", "-f", "/nonexistent/file.json", "-c", "C"],
]


@pytest.mark.parametrize("line", GLOBAL_LINES, ids=" ".join)
def test_global_options_and_odd_values_parse_as_typer_parses_them(
    line: list[str], recorded: dict[str, Recorder]
) -> None:
    recorder = recorder_for(line, recorded)
    typer = by_typer(line, recorder)
    assert typer != USAGE
    assert by_fast_parser(line, recorder) == typer


LEFT_TO_TYPER = [
    [],
    ["--help"],
    ["--version"],
    ["topicList", "-h"],
    ["topicList", "--clusterModel=yes"],
    ["topicList", "-cx"],
    ["topicList", "extra"],
    ["topicList", "--", "-c"],
    ["topicList", "--no-such-option"],
    ["topicList", "-n"],
    ["topicList", "--timeout", "0"],
    ["--timeout", "soon", "topicList"],
    ["--", "topicList"],
    ["noSuchCommand"],
    ["updateTopic", "-c", "C"],  # -t is required
    ["updateTopic", "-t", "T", "-r", "0"],  # below -r's minimum
    ["updateTopic", "-t", "T", "-r", "eight"],
    ["--format", "yaml", "topicList"],
    ["doctor", "--format", "NAGIOS"],  # choices are case-sensitive
    ["help", "topicList"],
    ["profile", "list"],
]


@pytest.mark.parametrize("line", LEFT_TO_TYPER, ids=lambda line: " ".join(line) or "(none)")
def test_what_the_fast_parser_is_unsure_of_goes_to_typer(line: list[str], recorded: dict[str, Recorder]) -> None:
    assert fast_parse.parse_command_line(line) is None


def test_completion_is_typer_s(recorded: dict[str, Recorder], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(fast_parse.COMPLETION_VARIABLE, "complete_bash")
    assert fast_parse.parse_command_line(["topicList"]) is None


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (["topicList", "--no-such-option"], "mqadmin: error: No such option: --no-such-option"),
        (["updateTopic", "-t", "T", "-r", "0"], "mqadmin: error: Invalid value for '-r' / '--readQueueNums'"),
        (["updateTopic", "-c", "C"], "mqadmin: error: Missing option '-t' / '--topic'"),
        (["--timeout", "soon", "topicList"], "mqadmin: error: Invalid value: 'soon' is not a number of seconds"),
    ],
)
def test_a_bad_command_line_still_gets_typer_s_message_and_exit_2(
    line: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(line) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert err.startswith(message), err
    assert "  hint: see: mqadmin" in err


@pytest.mark.parametrize(
    ("failure", "code", "err"),
    [
        (Exit(6), 6, ""),
        (CliError("no topic 'T'", "create it first"), ExitCode.FAILURE, "mqadmin: error: no topic 'T'\n  hint: create"),
        (EOFError(), ExitCode.INTERRUPTED, "\n"),
        (ValueError("odd"), ExitCode.FAILURE, "mqadmin: error: ValueError: odd\n  hint: run again with --debug"),
    ],
    ids=["exit", "cli-error", "end-of-input", "bug"],
)
@pytest.mark.parametrize("parser", ["fast", "typer"])
def test_a_command_s_failure_ends_the_same_whichever_parser_ran_it(
    parser: str,
    failure: BaseException,
    code: int,
    err: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def fail(**kw: Any) -> None:
        raise failure

    fail.__signature__ = inspect.signature(COMMANDS["topicList"].function)  # type: ignore[attr-defined]
    monkeypatch.setitem(COMMANDS, "topicList", COMMANDS["topicList"]._replace(function=fail))
    monkeypatch.setattr(typer_app, "_LOADED", {})
    if parser == "typer":
        monkeypatch.setattr(fast_parse, "parse_command_line", lambda args: None)
    assert main(["topicList", "-n", "127.0.0.1:9876"]) == code
    assert capsys.readouterr().err.startswith(err)
