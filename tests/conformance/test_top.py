"""``mqadmin top`` in a real terminal (tmux) against real brokers: every broker of the backend's cluster on the
screen with its health, a group whose offsets were set before any consumer ran listed by its lag, q quits."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tests.cli.test_top import lagging_group
from tests.conformance.backends import Backend
from tests.tmux import Terminal

pytestmark = pytest.mark.conformance


def test_top_shows_the_brokers_and_a_lagging_group_and_quits_on_q(backend: Backend, tmp_path: Path) -> None:
    group, topic = f"CG_TOP_{uuid.uuid4().hex[:8]}", f"Top_{uuid.uuid4().hex[:8]}"
    lagging_group(backend.namesrv_addr, backend.cluster, backend.brokers["broker-a"], group, topic, 2)
    term = Terminal(["top", "-n", backend.namesrv_addr, "-c", backend.cluster, "-i", "1", "-g", group], tmp_path)
    try:
        screen = term.wait_for(*backend.brokers, *backend.brokers.values(), group)
        active = "-" if backend.version_desc.startswith("V4") else "yes"  # 4.9 brokers do not report brokerActive
        for name in backend.brokers:
            row = next(line.split() for line in screen.splitlines() if line.split()[:1] == [name])
            assert row[2] == "master" and row[8] == active, row
        row = term.wait_for_row(group)  # the filter line names the group before its row is drawn
        assert row[:2] == [group, "2"] and "OFFLINE" in row and topic in row
        term.keys("q")
        assert term.exit_code() == 0
    finally:
        term.close()
