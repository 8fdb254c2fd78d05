"""Running the real CLI entry point in-process against the fake transport."""

from __future__ import annotations

import json
import signal
import sys
from dataclasses import dataclass
from typing import Any

import pytest

from mqadmin.cli import run, runner
from tests.unit.fake_remoting import FakeBroker, FakeNamesrv, FakeTransport


@dataclass
class Outcome:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


class Cli:
    """``cli("updateTopic", "-c", "DefaultCluster", ...)`` runs ``mqadmin`` as a user would, minus the process."""

    def __init__(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *servers: FakeNamesrv | FakeBroker
    ) -> None:
        self.transport = FakeTransport(*servers)
        self._capsys = capsys
        self._monkeypatch = monkeypatch
        monkeypatch.setattr(runner, "transport_factory", lambda: self.transport)
        namesrvs = [s.addr for s in servers if isinstance(s, FakeNamesrv)]
        monkeypatch.setenv("NAMESRV_ADDR", ";".join(namesrvs))
        monkeypatch.delenv("NO_COLOR", raising=False)

    def __call__(self, *args: str) -> Outcome:
        self._capsys.readouterr()
        self._monkeypatch.setattr(sys, "argv", ["mqadmin", *args])
        with pytest.raises(SystemExit) as e:
            run()
        captured = self._capsys.readouterr()
        return Outcome(int(e.value.code or 0), captured.out, captured.err)


def assert_one_line_error(result: Outcome, *fragments: str) -> None:
    """The error is one ``mqadmin: error:`` line (plus an optional hint line) and no traceback."""
    lines = result.err.strip().splitlines()
    assert lines and lines[0].startswith("mqadmin: error: "), result.err
    assert len(lines) <= 2 and all(ln.startswith("  hint: ") for ln in lines[1:]), result.err
    assert "Traceback" not in result.err
    for f in fragments:
        assert f in result.err, (f, result.err)


def rows(out: str) -> list[list[str]]:
    """A plain (not a TTY) table's lines, split into cells."""
    return [line.split() for line in out.strip().splitlines()]


def default_sigint() -> None:
    """A child process's ``preexec_fn`` for tests that press Ctrl-C: SIGINT's default disposition, as under a
    terminal. A shell without job control (CI started in the background) makes its children ignore SIGINT, and
    Python keeps an inherited SIG_IGN, so the child would never see the Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
