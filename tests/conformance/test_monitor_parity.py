"""startMonitoring against real clusters with a live Java push consumer: the unconsumed messages it reports
are those Java mqadmin's consumerProgress shows for the group (Java's own monitor only writes to its log)."""

from __future__ import annotations

import uuid

import pytest

from tests.conformance.backends import Backend
from tests.conformance.test_consumer_parity import (
    _java_live_command,
    java_rows,
    lag_settles,
    live,
    make_topic,
    ours,
    produce,
    shape_ok,
)
from tests.conftest import wait_until
from tests.peers.harness import PeerUnavailable

pytestmark = pytest.mark.conformance


@pytest.fixture(scope="module")
def java_live() -> list[str]:
    try:
        return _java_live_command()
    except PeerUnavailable as e:
        pytest.skip(f"Java client unavailable: {e.reason}")


def test_monitor_reports_what_the_live_consumer_left_unconsumed(backend: Backend, java_live: list[str]) -> None:
    topic, group = make_topic(backend, "Monitor"), f"CG_MON_{uuid.uuid4().hex[:8]}"
    with live([*java_live, backend.namesrv_addr, topic, group]) as consumer:
        first = produce("java", backend, topic, 4)
        consumer.got(first, "the first messages")
        consumer.send("suspend")
        consumer.wait(lambda ev: ev[-1].get("event") == "suspended", "the consumer to suspend")
        second = produce("java", backend, topic, 12)
        lag_settles(backend, group, lambda: len(set(second) - set(consumer.received())), topic)
        java_diff = java_rows(backend, group, topic)

        def reported() -> dict[str, object] | None:
            doc = ours(backend, "startMonitoring", "--count", "1")
            shape_ok("startMonitoring", doc)
            # the group's retry topic is reported too, as Java's monitor does (the consume stats hold both)
            return next((u for u in doc["undoneMsgs"] if (u["consumerGroup"], u["topic"]) == (group, topic)), None)

        undone = wait_until(reported, 60, 1.0, f"startMonitoring to report {group} on {topic}")
        assert undone["undoneMsgsTotal"] == sum(d for _, _, d in java_diff.values() if d > 0)
        assert undone["undoneMsgsSingleMQ"] == max(d for _, _, d in java_diff.values())
        assert undone["undoneMsgsDelayTimeMills"] >= 0
        consumer.send("resume")
        consumer.got(second, "the rest")
