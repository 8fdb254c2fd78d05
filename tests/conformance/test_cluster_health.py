"""clusterList's health columns against real brokers, with Java mqadmin's clusterList of the same version beside
ours: the thread pools' load, the timer's progress, the page-cache wait, the disk ratio and the activation are
the same figures, read from the same runtime info."""

from __future__ import annotations

import re
from typing import Any

from tests.applicability import not_applicable
from tests.conformance.backends import Backend
from tests.conformance.test_broker_parity import check_documented, ours_json
from tests.conformance.test_cli_commands import mq, new_topic, on_cluster
from tests.conftest import wait_until

JAVA_ROW = re.compile(
    r"^(?P<cluster>\S+)\s+(?P<broker>\S+)\s+(?P<bid>\d+)\s+(?P<addr>\S+)\s+(?P<version>\S+)\s+"
    r"(?P<inTps>[\d.]+)\((?P<sendQueueSize>\S*),(?P<sendQueueWaitMs>\S*)ms\)\s+"
    r"(?P<outTps>[\d.]+)\((?P<pullQueueSize>\S*),(?P<pullQueueWaitMs>\S*)ms\|"
    r"(?P<ackQueueSize>\S*),(?P<ackQueueWaitMs>\S*)ms\)\s+"
    r"(?P<readBehind>-?\d+)-(?P<offsetBehind>-?\d+)\((?P<congest>[\d.]+)w, "
    r"(?P<enqueueTps>[\d.]+), (?P<dequeueTps>[\d.]+)\)\s+"
    r"(?P<pageCacheWaitMs>\S+)\s+(?P<hours>-?[\d.]+)\s+(?P<diskRatio>[\d.]+)\s+(?P<activated>true|false)\s*$"
)


def java_rows(b: Backend) -> dict[str, dict[str, str]]:
    """Java 5.x clusterList's rows by broker address."""
    assert b.java_mqadmin is not None
    out = b.java_mqadmin(["clusterList"])
    assert "#ACTIVATED" in out.splitlines()[0], out
    rows = [m.groupdict() for line in out.splitlines()[1:] if (m := JAVA_ROW.match(line))]
    assert len(rows) == len(out.strip().splitlines()) - 1, out  # every broker row is read
    return {r["addr"]: r for r in rows}


def test_cluster_list_health_columns_are_javas(backend: Backend) -> None:
    n = ["-n", backend.namesrv_addr]
    topic = new_topic("Health")
    assert mq("updateTopic", *on_cluster(backend), "-t", topic).code == 0
    assert mq("sendMessage", *n, "-t", topic, "-p", "x", "-b", "broker-a", "-i", "0").code == 0  # a stored message

    doc = ours_json("clusterList", *n, "-c", backend.cluster)
    check_documented("clusterList", doc)
    ours: dict[str, dict[str, Any]] = {x["addr"]: x for x in doc["brokers"]}
    a = ours[backend.brokers["broker-a"]]
    for x in ours.values():
        assert x["error"] is None
        assert isinstance(x["diskRatio"], float) and 0 < x["diskRatio"] < 1
        assert isinstance(x["sendQueueSize"], int) and isinstance(x["pullQueueWaitMs"], int)
        assert isinstance(x["pageCacheWaitMs"], int)
    if backend.name == "apache-4.9":  # no ack pool, no timer, no brokerActive; Java 4.9 shows none of them
        assert all((x["ackQueueSize"], x["timer"], x["activated"]) == (None, None, None) for x in ours.values())
        assert a["hours"] is None  # 4.9 reports -1 until the commit log holds 2 x maxMessageSize: unknown
        not_applicable("Java 4.9.8's clusterList has no Timer(Progress) or ACTIVATED column to compare")
    assert a["hours"] is not None and a["hours"] >= 0  # broker-a holds a message: it has an earliest one

    java = java_rows(backend)  # read after ours: its HOUR is at least ours
    assert set(java) == set(ours)
    for addr, j in java.items():
        x = ours[addr]
        assert x["activated"] is (j["activated"] == "true") is True, addr  # masters, both acting
        assert x["version"] == j["version"]
        assert x["ackQueueSize"] is not None and x["timer"] is not None
        for key in ("sendQueueSize", "pullQueueSize", "ackQueueSize"):  # idle brokers: nothing queued
            assert x[key] == int(j[key]) == 0, (addr, key)
        timer = x["timer"]  # live figures (the timer wheel moves between the two reads): both there, both numbers
        assert all(isinstance(timer[k], int) for k in ("readBehind", "offsetBehind", "congestNum"))
        assert all(isinstance(timer[k], float) for k in ("enqueueTps", "dequeueTps"))
        assert abs(x["diskRatio"] - float(j["diskRatio"])) <= 0.01  # other writers on the disk between the reads
        if x["hours"] is not None:
            assert float(j["hours"]) + 0.01 >= x["hours"]
    assert float(java[a["addr"]]["hours"]) < 24 * 365  # a real earliest message, not Java's reading of -1

    table = mq("clusterList", *n, "-c", backend.cluster)
    header = table.out.splitlines()[0].split()
    assert (header[6:]) == [
        "IN",
        "TPS(LOAD)",
        "OUT",
        "TPS(LOAD)",
        "TIMER(PROGRESS)",
        "PCWAIT(MS)",
        "HOUR",
        "SPACE",
        "ACTIVATED",
    ]
    line = next(x for x in table.out.splitlines() if a["addr"] in x)
    assert "(0,0ms)" in line and "(0,0ms|0,0ms)" in line and line.split()[-1] == "true"


def test_a_slave_is_not_activated_as_java_shows(backend: Backend) -> None:
    if backend.start_slave is None:
        not_applicable(f"{backend.name} cannot start a slave")
    if backend.name == "apache-4.9":
        not_applicable("4.9 brokers report no brokerActive, Java 4.9.8's clusterList no ACTIVATED column")
    n = ["-n", backend.namesrv_addr]
    with backend.start_slave("broker-a") as slave:

        def with_slave() -> dict[str, Any] | None:
            doc = ours_json("clusterList", *n)
            return doc if any(b["addr"] == slave for b in doc["brokers"]) else None

        doc = wait_until(with_slave, 120, 0.5, "the slave in the cluster")
        ours = {b["addr"]: b for b in doc["brokers"]}
        assert (ours[slave]["role"], ours[slave]["activated"]) == ("slave", False)
        assert ours[backend.brokers["broker-a"]]["activated"] is True
        java = java_rows(backend)
        assert java[slave]["activated"] == "false" and java[slave]["bid"] == "1"


def test_cluster_list_more_stats_are_javas_day_totals(backend: Backend) -> None:
    n = ["-n", backend.namesrv_addr]
    r = mq("clusterList", *n, "-m")
    assert r.code == 0, r.err
    assert r.out.splitlines()[0].split()[5:] == ["IN", "YESTERDAY", "OUT", "YESTERDAY", "IN", "TODAY", "OUT", "TODAY"]
    assert backend.java_mqadmin is not None
    java = backend.java_mqadmin(["clusterList", "-m"])
    assert java.split()[:6] == ["#Cluster", "Name", "#Broker", "Name", "#InTotalYest", "#OutTotalYest"]
    java_yesterday = {tuple(line.split()[:4]) for line in java.splitlines()[1:]}  # day counters move only at midnight
    ours = {
        (x["cluster"], x["broker"], str(x["inTotalYesterday"]), str(x["outTotalYesterday"]))
        for x in ours_json("clusterList", *n, "-m")["brokers"]
    }
    assert ours == java_yesterday
