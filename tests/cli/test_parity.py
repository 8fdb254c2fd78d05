"""The parity inventory stays honest: every Java mqadmin 5.5.0 command is reachable in our CLI, or is
explained (not applicable, with a reason; or missing, with the issue that builds it)."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from mqadmin.cli import registry
from mqadmin.cli.parity import JAVA_COMMANDS, NOT_APPLICABLE, PLANNED
from mqadmin.cli.typer_app import app

JAVA = [name for name, _ in JAVA_COMMANDS]


def test_the_inventory_lists_each_java_command_once() -> None:
    assert len(JAVA) == len(set(JAVA)) == 96
    assert set(NOT_APPLICABLE) <= set(JAVA) and set(PLANNED) <= set(JAVA)


@pytest.mark.parametrize("name", JAVA)
def test_each_java_command_is_reachable_or_explained(name: str) -> None:
    entry = registry.find(name)
    implemented = entry is not None and entry.name == name
    explained = [d for d in (NOT_APPLICABLE, PLANNED) if name in d]
    assert implemented != bool(explained), f"{name}: implemented={implemented}, explained in {len(explained)} lists"
    assert len(explained) <= 1
    if name in NOT_APPLICABLE:
        assert len(NOT_APPLICABLE[name]) > 20, "say why it does not apply"
    if name in PLANNED:
        assert re.match(r"issue \d+ \(", PLANNED[name])
    if implemented:
        result = CliRunner().invoke(app, [name, "--help"])
        assert result.exit_code == 0, result.output
        assert name.lower() in result.output.lower()
