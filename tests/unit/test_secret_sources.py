"""Where secrets come from: files, commands, stdin, a prompt, Java's tools.yml."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from mqadmin.cli.errors import CliError
from mqadmin.cli.secret_sources import (
    prompt_secret,
    read_secret_file,
    read_stdin_secret,
    read_tools_yml,
    run_secret_command,
)


def test_secret_file_first_line_and_warnings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "sk"
    f.write_text("the-secret\nsecond line\n")
    f.chmod(0o600)
    assert read_secret_file(str(f)) == "the-secret"
    assert capsys.readouterr().err == ""
    f.chmod(0o644)
    assert read_secret_file(str(f)) == "the-secret"
    assert "readable by other users (mode 0644)" in capsys.readouterr().err
    f.write_text("\n")
    with pytest.raises(CliError, match="file .* is empty"):
        read_secret_file(str(f))
    with pytest.raises(CliError, match="cannot read the secret key from /nonexistent"):
        read_secret_file("/nonexistent")


def test_secret_command(tmp_path: Path) -> None:
    assert run_secret_command(f'{sys.executable} -c \'print("s3cr3t"); print("more")\'') == "s3cr3t"
    with pytest.raises(CliError, match="printed nothing"):
        run_secret_command("true")
    with pytest.raises(CliError, match="no-such-password-manager not found"):
        run_secret_command("no-such-password-manager show x")
    with pytest.raises(CliError, match="cannot parse secret_command"):
        run_secret_command("pass show 'unclosed")
    with pytest.raises(CliError) as e:
        run_secret_command(f"{sys.executable} -c 'print(\"leak\"); raise SystemExit(2)'")
    assert "failed (exit 2)" in e.value.message and "leak" not in e.value.message


def test_stdin_and_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("from-stdin\n"))
    assert read_stdin_secret("password") == "from-stdin"
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with pytest.raises(CliError, match="no password on stdin"):
        read_stdin_secret("password")
    with pytest.raises(CliError, match="stdin is not a terminal"):
        prompt_secret("password", confirm=True)

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    answers = iter(["pw1", "pw2", "pw3", "pw3"])
    monkeypatch.setattr(sys, "stdin", Tty())
    monkeypatch.setattr("getpass.getpass", lambda prompt: next(answers))
    with pytest.raises(CliError, match="the two passwords differ"):
        prompt_secret("password", confirm=True)
    assert prompt_secret("password", confirm=True) == "pw3"


def test_tools_yml(tmp_path: Path) -> None:
    assert read_tools_yml(str(tmp_path)) is None
    (tmp_path / "conf").mkdir()
    tools = tmp_path / "conf" / "tools.yml"
    tools.write_text('# comment\naccessKey: rocketmq2\nsecretKey: "1234 5678"  # quoted\n')
    assert read_tools_yml(str(tmp_path)) == ("rocketmq2", "1234 5678")
    tools.write_text("accessKey: only\n")
    assert read_tools_yml(str(tmp_path)) is None
