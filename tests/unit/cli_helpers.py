"""Running the real CLI entry point in-process against a mock transport or the embedded servers."""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from mqadmin.cli import run, runner
from mqadmin.model.rpc import namesrv
from mqadmin.transport.base import Transport
from tests.mock_transport import MockTransport, cluster_info, ok, routes


@dataclass
class Outcome:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)

    def error_json(self) -> Any:
        """The error document of a failure under ``--format json`` (stderr's last line)."""
        return json.loads(self.err.strip().splitlines()[-1])


class Cli:
    """``cli("updateTopic", "-c", "DefaultCluster", ...)`` runs ``mqadmin`` as a user would, minus the process.

    It talks to the name servers ``namesrvs`` over ``transport`` (a ``MockTransport``), or over real sockets when
    there is none (the embedded servers). None of the user's settings apply."""

    def __init__(
        self,
        monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str],
        *,
        namesrvs: Sequence[str] = (),
        transport: Transport | None = None,
    ) -> None:
        self.transport = transport
        self._capsys = capsys
        self._monkeypatch = monkeypatch
        if transport is not None:
            monkeypatch.setattr(runner, "transport_factory", lambda: transport)
        if namesrvs:  # none of the user's settings
            for name in [k for k in os.environ if k.startswith(("ROCKETMQ_", "MQADMIN_"))]:
                monkeypatch.delenv(name)
            monkeypatch.setenv("MQADMIN_CONFIG", os.devnull)
        monkeypatch.delenv("NO_COLOR", raising=False)
        monkeypatch.setenv("NAMESRV_ADDR", ";".join(namesrvs))

    def __call__(self, *args: str) -> Outcome:
        self._capsys.readouterr()
        self._monkeypatch.setattr(sys, "argv", ["mqadmin", *args])
        with pytest.raises(SystemExit) as e:
            run()
        captured = self._capsys.readouterr()
        return Outcome(int(e.value.code or 0), captured.out, captured.err)


A, B = "127.0.0.1:10911", "127.0.0.1:10921"
"""The scripted brokers' addresses (broker-a, broker-b)."""


def scripted(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    answers: dict[Any, Any],
    *,
    namesrvs: Sequence[str] = ("127.0.0.1:9876",),
    **kw: Any,
) -> Cli:
    """The CLI over the mock transport: DefaultCluster of broker-a at A and broker-b at B, answering ``answers``
    (a table for ``mock_transport.routes``, over the cluster info); ``kw`` for ``MockTransport``."""
    table = {namesrv.GET_BROKER_CLUSTER_INFO: ok(cluster_info(("broker-a", 0, A), ("broker-b", 0, B)))} | answers
    return Cli(monkeypatch, capsys, namesrvs=namesrvs, transport=MockTransport(routes(table), **kw))


def codes(cli: Cli, addr: str | None = None) -> list[int]:
    """The codes of the requests a ``scripted`` CLI sent (to ``addr``)."""
    assert isinstance(cli.transport, MockTransport)
    return [c.code for a, c in cli.transport.sent if addr in (None, a)]


def assert_one_line_error(result: Outcome, *fragments: str) -> None:
    """The error is one ``mqadmin: error:`` line (plus an optional hint line) and no traceback; under
    ``--format json``, one error document whose message or hint holds the fragments."""
    lines = result.err.strip().splitlines()
    if lines and lines[0].startswith("{"):
        error = result.error_json()["error"]
        assert len(lines) == 1 and error["exitCode"] == result.code, result.err
        for f in fragments:
            assert f in f"{error['message']}\n{error['hint']}", (f, result.err)
        return
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
