"""``mqadmin top`` as a person sees it: in a real terminal (tmux) against an embedded cluster, its brokers and
groups on the screen, the lag's change after messages arrive, a paused broker shown in its row, the keys (sort,
filter, clear) and q ending it with exit 0; and its NDJSON and one-shot forms for scripts."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import wait_until
from tests.devprocs import EmbeddedCluster
from tests.tmux import Terminal

RED = re.compile(r"\x1b\[(?:[\d;]*;)?31(?:;[\d;]*)?m")
"""An SGR sequence that sets the foreground red."""


def mq(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mqadmin", *args], capture_output=True, text=True, timeout=120)


def lagging_group(namesrv: str, cluster: str, broker_addr: str, group: str, topic: str, messages: int) -> None:
    """``group`` with offsets but no consumer, ``messages`` behind on queue 0 of broker-a of ``topic`` (moved past a
    first message: a 4.9 broker with nobody online takes only offsets that move)."""
    n = ["-n", namesrv]
    assert mq("updateTopic", *n, "-c", cluster, "-t", topic).returncode == 0
    send(namesrv, topic, messages + 1)
    assert mq("updateSubGroup", *n, "-c", cluster, "-g", group).returncode == 0
    moved = mq("resetOffsetByTime", *n, "-g", group, "-t", topic, "-s", "now", "-b", broker_addr, "-q", "0", "-o", "1")
    assert moved.returncode == 0, moved.stdout + moved.stderr


def send(namesrv: str, topic: str, count: int) -> None:
    for _ in range(count):
        assert mq("sendMessage", "-n", namesrv, "-t", topic, "-p", "x", "-b", "broker-a", "-i", "0").returncode == 0


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedCluster]:
    with EmbeddedCluster(tmp_path_factory.mktemp("top")) as c:
        a = c.broker_addrs["broker-a"]
        lagging_group(c.namesrv_addr, c.cluster, a, "BillingGroup", "Orders", 3)
        lagging_group(c.namesrv_addr, c.cluster, a, "AuditGroup", "Payments", 1)
        yield c


def test_top_in_a_terminal_shows_the_cluster_follows_the_keys_and_quits_with_q(
    cluster: EmbeddedCluster, tmp_path: Path
) -> None:
    n = cluster.namesrv_addr
    term = Terminal(["--timeout", "2", "top", "-n", n, "-i", "3"], tmp_path)  # a change shows for 3 s
    try:
        screen = term.wait_for("broker-a", "broker-b", "BillingGroup", "AuditGroup", "sort: lag")
        print(screen)  # shown with -s, and in a failure's report
        billing = next(line for line in screen.splitlines() if "BillingGroup" in line)
        assert billing.split()[:2] == ["BillingGroup", "3"] and "OFFLINE" in billing and "Orders" in billing
        assert screen.index("BillingGroup") < screen.index("AuditGroup")  # the larger lag first
        coloured = term.screen(colours=True).splitlines()
        assert RED.search(next(x for x in coloured if "BillingGroup" in x))  # lagging, nobody consuming: red
        assert not RED.search(next(x for x in coloured if "broker-a" in x))  # a healthy broker: plain

        send_now(n, "Orders", 2)  # the lag grows between two refreshes: its change is shown
        wait_lag(term, "BillingGroup", "5", ("+2", "+1"))  # (+1 if a refresh fell between the two sends)

        broker_b = cluster.broker_procs["broker-b"].p
        broker_b.send_signal(signal.SIGSTOP)  # a broker that does not answer: shown in its row, no crash
        try:
            screen = term.wait_for("no answer within")
            assert "broker-b" in next(line for line in screen.splitlines() if "no answer within" in line)
        finally:
            broker_b.send_signal(signal.SIGCONT)
        term.wait_for("broker-b", absent=["no answer within"])

        term.keys("s")
        term.wait_for("sort: delta")
        term.keys("g", "A", "u", "d", "Enter")
        term.wait_for("AuditGroup", "group~Aud", absent=["BillingGroup"])
        term.keys("c")
        term.wait_for("AuditGroup", "BillingGroup")
        term.keys("t", "O", "r", "d", "Enter")
        term.wait_for("BillingGroup", "topic~Ord", absent=["AuditGroup"])
        term.keys("q")
        assert term.exit_code() == 0
    finally:
        term.close()


def send_now(namesrv: str, topic: str, count: int) -> None:
    """``count`` messages to queue 0 of broker-a at once (one client, one connection)."""
    import asyncio

    from mqadmin.admin import AdminClient
    from mqadmin.admin.messaging import send_message

    async def go() -> None:
        async with AdminClient([namesrv]) as admin:
            for _ in range(count):
                await send_message(admin, topic, b"x", broker="broker-a", queue_id=0)

    asyncio.run(go())


def wait_lag(term: Terminal, group: str, lag: str, deltas: tuple[str, ...]) -> None:
    def shows() -> bool:
        rows = [line.split() for line in term.screen().splitlines() if group in line]
        return any(row[:2] == [group, lag] and row[2] in deltas for row in rows)

    wait_until(shows, 120, 0.1, f"{group} with lag {lag} ({' or '.join(deltas)})")


def test_top_streams_ndjson_and_prints_once_when_not_a_terminal(cluster: EmbeddedCluster) -> None:
    n = cluster.namesrv_addr
    r = mq("--format", "json", "top", "-n", n, "--count", "2", "-i", "0.2", "--sort", "name")
    assert r.returncode == 0, r.stderr
    docs = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(docs) == 2 and {b["broker"] for b in docs[0]["brokers"]} == {"broker-a", "broker-b"}
    assert [g["group"] for g in docs[0]["groups"]] == ["AuditGroup", "BillingGroup"]
    assert docs[0]["groups"][0]["lagDelta"] is None and docs[1]["groups"][0]["lagDelta"] == 0  # known the 2nd time
    assert docs[1]["groups"][0]["topics"] == ["Payments"]

    once = mq("top", "-n", n, "-g", "Billing")  # stdout is a pipe: the tables once, no screen control
    assert once.returncode == 0, once.stderr
    assert "\x1b" not in once.stdout and "broker-a" in once.stdout
    assert "BillingGroup" in once.stdout and "AuditGroup" not in once.stdout

    bad = mq("top", "-n", n, "--sort", "size")
    assert bad.returncode == 2 and "--sort 'size'" in bad.stderr
    unknown = mq("top", "-n", n, "-c", "NoSuchCluster")
    assert unknown.returncode == 2 and "DefaultCluster" in unknown.stderr
