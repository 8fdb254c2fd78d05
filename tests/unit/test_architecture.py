"""The architecture contracts of pyproject.toml ([tool.importlinter]: the client layers, nothing importing
the CLI, servers without the admin client, broker and name server independent, broker parts without the
Broker, no import cycles) hold for the whole package, as ``lint-imports`` checks them."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LINT = "from importlinter.cli import lint_imports; raise SystemExit(lint_imports(no_cache=True, no_logo=True))"


def test_the_import_contracts_hold() -> None:
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    assert {c["type"] for c in contracts} >= {"layers", "forbidden", "independence", "acyclic_siblings"}
    # in a child process: import-linter reconfigures logging, which other tests' caplog relies on
    done = subprocess.run([sys.executable, "-c", LINT], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Contracts: {len(contracts)} kept, 0 broken." in done.stdout
