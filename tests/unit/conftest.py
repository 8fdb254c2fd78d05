"""Fixtures of the CLI unit tests: the embedded servers and the CLI pointed at them (``live``). Tests of what the
CLI sends and shows use ``cli_helpers.scripted`` (the mock transport)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.embedded import ThreadedCluster
from tests.unit.cli_helpers import Cli


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadedCluster]:
    """The embedded name server and two brokers, for the module (tests use names of their own)."""
    with ThreadedCluster(tmp_path_factory.mktemp("embedded")) as c:
        yield c


@pytest.fixture
def live(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], embedded: ThreadedCluster) -> Cli:
    """The CLI talking to ``embedded`` over loopback."""
    return Cli(monkeypatch, capsys, namesrvs=[embedded.namesrv_addr])
