"""``-n`` is accepted by every command Java mqadmin has, as Java's accepts it on every command (its tool adds
``-n`` to each subcommand's options): scripts that always pass ``-n`` work with each of them. Checked in both
parsers (the fast one and Typer's) on the declarations of every registered command, and run for real on the
controller commands (tests/unit/test_cli_ha.py), which use it to find the controller."""

from __future__ import annotations

import importlib

import pytest

from mqadmin.cli import fast_parse, registry, typer_app
from mqadmin.cli.command import COMMANDS
from mqadmin.cli.parity import JAVA_COMMANDS

WITHOUT_N = {
    "audit": "reads exported metadata files with Spark; it talks to no cluster",
    "generateFleet": "writes a synthetic fleet of exported metadata; it talks to no cluster",
    "help": "prints the help of a command",
    "dev": "runs an embedded cluster (its subcommands take their own listen addresses)",
    "profile": "edits the config file's profiles (-n is a profile's setting there, not a server to ask)",
}
"""Our commands without ``-n``, none of them Java's."""

NAMES = sorted(e.name for e in registry.COMMANDS)


def test_no_java_command_goes_without_n() -> None:
    java = {name for name, _ in JAVA_COMMANDS}
    assert not java & set(WITHOUT_N)
    assert set(WITHOUT_N) <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_the_command_accepts_n(name: str) -> None:
    entry = registry.find(name)
    assert entry is not None
    click_options = {opt for p in typer_app.load_command(entry).params for opt in getattr(p, "opts", [])}
    if name in WITHOUT_N:
        assert "-n" not in click_options, f"{name} takes -n now: drop it from WITHOUT_N"
        return
    assert "-n" in click_options and "--namesrvAddr" in click_options, f"{name}: Typer's parser has no -n"
    importlib.import_module(f"mqadmin.cli.commands.{entry.module}")
    spec = fast_parse._command_spec(name, COMMANDS[name].function)
    if spec is not None:  # the fast parser reads the command: it knows -n too, as the same option
        assert spec.options["-n"][0] is spec.options["--namesrvAddr"][0]


def test_typer_reads_the_value_of_n_on_a_controller_command() -> None:
    entry = registry.find("getControllerConfig")
    assert entry is not None
    cmd = typer_app.load_command(entry)
    ctx = cmd.make_context("getControllerConfig", ["-n", "127.0.0.1:9876"], resilient_parsing=True)
    assert ctx.params["namesrv"] == "127.0.0.1:9876"
