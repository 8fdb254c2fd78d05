"""A command's I/O is one declared property (``@command(..., blocking=True, async_with=(...))``): each command
below runs in-process against an embedded cluster as declared (blocking sockets, no event loop) and with the
declaration switched to asyncio, and prints the same either way; an option in ``async_with`` switches it."""

from __future__ import annotations

import importlib
import sys
from typing import Any

import pytest

from mqadmin.cli import command, registry, run, runner
from tests.devprocs import EmbeddedCluster


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    with EmbeddedCluster(tmp_path_factory.mktemp("declared-io")) as c:
        yield c


def declared(name: str) -> command.Command:
    entry = registry.find(name)
    assert entry is not None
    importlib.import_module(f"mqadmin.cli.commands.{entry.module}")
    return command.COMMANDS[name]


class Spy:
    """Records the transport each run_admin builds (blocking or asyncio sockets)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.kinds: list[str] = []
        real = runner._socket_transport

        def spy(blocking: bool) -> Any:
            self.kinds.append("blocking" if blocking else "asyncio")
            return real(blocking)

        monkeypatch.setattr(runner, "_socket_transport", spy)


def mq(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    monkeypatch.setattr(sys, "argv", ["mqadmin", "--format", "json", *args])
    with pytest.raises(SystemExit) as e:
        run()
    return int(e.value.code or 0), capsys.readouterr().out


def cases(c: EmbeddedCluster) -> list[list[str]]:
    ns, a = c.namesrv_addr, c.broker_addrs["broker-a"]
    return [
        ["topicList", "-n", ns],
        ["clusterList", "-n", ns],
        ["topicRoute", "-n", ns, "-t", "TBW102"],
        ["getBrokerConfig", "-n", ns, "-b", a],
        ["getKvConfig", "-n", ns, "-s", "ORDER_TOPIC_CONFIG", "-k", "Missing"],
    ]


def test_each_command_runs_as_declared_and_the_same_on_asyncio(
    cluster: EmbeddedCluster, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    spy = Spy(monkeypatch)
    for args in cases(cluster):
        declaration = declared(args[0])
        assert declaration.blocking, args[0]
        as_declared = mq(monkeypatch, capsys, *args)
        monkeypatch.setitem(command.COMMANDS, args[0], declaration._replace(blocking=False))
        on_asyncio = mq(monkeypatch, capsys, *args)
        monkeypatch.setitem(command.COMMANDS, args[0], declaration)
        if args[0] == "getBrokerConfig":  # the broker's config holds nothing that changes between two reads
            assert as_declared[0] == on_asyncio[0] == 0
        else:
            assert as_declared == on_asyncio, args
        assert spy.kinds == ["blocking", "asyncio"], args
        spy.kinds.clear()


def test_an_option_declared_async_with_runs_the_command_on_asyncio(
    cluster: EmbeddedCluster, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert declared("topicList").async_with == ("cluster_model",)
    spy = Spy(monkeypatch)
    code, out = mq(monkeypatch, capsys, "topicList", "-n", cluster.namesrv_addr, "-c")
    assert code == 0 and '"topic"' in out
    assert spy.kinds == ["asyncio"]


def test_commands_that_declare_nothing_run_on_asyncio(
    cluster: EmbeddedCluster, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert not declared("topicStatus").blocking
    spy = Spy(monkeypatch)
    code, _ = mq(monkeypatch, capsys, "topicStatus", "-n", cluster.namesrv_addr, "-t", "TBW102")
    assert code == 0
    assert spy.kinds == ["asyncio"]
