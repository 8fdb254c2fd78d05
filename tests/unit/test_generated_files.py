"""The committed completions and man page are what the app generates today."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mqadmin.cli.generate import document_tables, generated_files
from mqadmin.cli.manpage import command_paths
from mqadmin.cli.typer_app import app

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    return generated_files()


def test_committed_files_are_current(generated: dict[str, str]) -> None:
    stale = [rel for rel, text in generated.items() if not (REPO / rel).exists() or (REPO / rel).read_text() != text]
    assert not stale, f"out of date: {stale}; regenerate with: python -m mqadmin.cli.generate (from the repo root)"


def test_document_tables_in_docs_are_current() -> None:
    stale = [rel for rel, text in document_tables(REPO).items() if (REPO / rel).read_text() != text]
    assert not stale, f"out of date: {stale}; regenerate with: python -m mqadmin.cli.generate (from the repo root)"


def test_generate_script_writes_and_checks(tmp_path: Path) -> None:
    run = [sys.executable, "-m", "mqadmin.cli.generate", "--out", str(tmp_path)]
    assert subprocess.run([*run, "--check"], capture_output=True).returncode == 1  # nothing there yet
    assert subprocess.run(run, capture_output=True).returncode == 0
    assert subprocess.run([*run, "--check"], capture_output=True).returncode == 0
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == [
        "mqadmin.1",
        "mqadmin.bash",
        "mqadmin.fish",
        "mqadmin.zsh",
        "operations.py",
        "parity.md",
        "protocol-requests.md",
        "schema.json",
        "schemas.json",
    ]


def test_man_page_documents_every_command_exit_codes_and_environment(generated: dict[str, str]) -> None:
    page = generated["man/mqadmin.1"]
    commands = command_paths(app)
    assert {"updateTopic", "topicRoute", "clusterList"} <= set(commands)
    for name in commands:
        assert f".SS {name.replace('-', chr(92) + '-')}\n" in page
    for code in (0, 1, 2, 3, 4):
        assert f".TP\n\\fB{code}\\fR\n" in page
    assert "\\fBNAMESRV_ADDR\\fR" in page and "\\fBNO_COLOR\\fR" in page
    assert "\\-\\-writeQueueNums" in page


def test_bash_completion_completes_command_names() -> None:
    env = {**os.environ, "_MQADMIN_COMPLETE": "complete_bash", "COMP_WORDS": "mqadmin updateT", "COMP_CWORD": "1"}
    code = "from mqadmin.cli.typer_app import app; app(prog_name='mqadmin')"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True).stdout
    assert sorted(out.split()) == ["updateTopic", "updateTopicList", "updateTopicPerm"]
