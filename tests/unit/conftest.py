"""Fixtures of the CLI unit tests: a fake two-broker cluster and the CLI pointed at it."""

from __future__ import annotations

import pytest

from tests.unit.cli_helpers import Cli
from tests.unit.fake_remoting import FakeBroker, FakeNamesrv, two_broker_cluster


@pytest.fixture
def cluster() -> tuple[FakeNamesrv, FakeBroker, FakeBroker]:
    return two_broker_cluster()


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], cluster) -> Cli:
    ns, a, b = cluster
    return Cli(monkeypatch, capsys, ns, a, b)
