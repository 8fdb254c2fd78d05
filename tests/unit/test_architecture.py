"""The architecture contracts of pyproject.toml ([tool.importlinter]: the client layers, nothing importing
the CLI, servers without the admin client, broker and name server independent, broker parts without the
Broker, no import cycles) hold for the whole package, as ``lint-imports`` checks them."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

REPO = Path(__file__).resolve().parents[2]


def test_the_import_contracts_hold(capsys: pytest.CaptureFixture[str]) -> None:
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    assert {c["type"] for c in contracts} >= {"layers", "forbidden", "independence", "acyclic_siblings"}
    code = lint_imports(config_filename=str(REPO / "pyproject.toml"), no_cache=True, no_logo=True)
    report = capsys.readouterr().out
    assert code == 0, report
    assert f"Contracts: {len(contracts)} kept, 0 broken." in report
