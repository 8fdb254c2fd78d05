"""A group whose offsets were set before any consumer of it ran (no %RETRY% route): consumerProgress -g finds
it in the masters' offset tables, and the group list includes it, on real brokers; Java mqadmin of the same
version cannot find it."""

from __future__ import annotations

import uuid

from tests.conformance.backends import Backend
from tests.conformance.test_broker_parity import check_documented, ours_json
from tests.conformance.test_cli_commands import mq
from tests.conformance.test_consumer_parity import make_topic


def test_progress_of_a_group_with_offsets_but_no_consumer_ever(backend: Backend) -> None:
    n = ["-n", backend.namesrv_addr]
    topic = make_topic(backend, "Fresh", queues=2)
    group = f"CG_FRESH_{uuid.uuid4().hex[:8]}"
    assert mq("updateSubGroup", *n, "-c", backend.cluster, "-g", group).code == 0  # created, then offsets set
    a = ["-t", topic, "-p", "x", "-b", "broker-a", "-i", "0"]
    for broker in backend.brokers:
        assert mq("sendMessage", *n, "-t", topic, "-p", "x", "-b", broker, "-i", "0").code == 0
    for addr in backend.brokers.values():  # past the message on queue 0, as an operator skipping it would
        moved = mq("resetOffsetByTime", *n, "-g", group, "-t", topic, "-s", "now", "-b", addr, "-q", "0", "-o", "1")
        assert moved.code == 0, moved.out + moved.err
    for _ in range(2):  # then two messages arrive: the group's lag
        assert mq("sendMessage", *n, *a).code == 0
    assert mq("topicRoute", *n, "-t", f"%RETRY%{group}").code != 0  # no consumer ever: no retry topic

    doc = ours_json("consumerProgress", *n, "-g", group)
    check_documented("consumerProgress", doc)
    assert doc["online"] is False and doc["lagTotal"] == 2
    offsets = {(q["brokerName"], q["queueId"]): (q["brokerOffset"], q["consumerOffset"]) for q in doc["queues"]}
    assert offsets == {("broker-a", 0): (3, 1), ("broker-a", 1): (0, 0), ("broker-b", 0): (1, 1),
                       ("broker-b", 1): (0, 0)}  # fmt: skip
    assert {q["topic"] for q in doc["queues"]} == {topic}

    listed = ours_json("consumerProgress", *n)
    check_documented("consumerProgress", listed)
    (mine,) = [g for g in listed["groups"] if g["group"] == group]
    assert (mine["lag"], mine["clients"], mine["error"]) == (2, 0, None)

    assert backend.java_mqadmin is not None
    java = backend.java_mqadmin(["consumerProgress", "-g", group])
    assert topic not in java  # Java looks for the retry topic's route only
    unknown = mq("consumerProgress", *n, "-g", f"CG_NONE_{uuid.uuid4().hex[:8]}")
    assert unknown.code == 1 and "not found" in unknown.err
