"""Broker commands against real clusters (Apache RocketMQ 5.5, 5.3 and 4.9, and the embedded one), each effect
confirmed by the real Java mqadmin of the same version: its getBrokerConfig shows the value our
updateBrokerConfig set, its brokerConsumeStats totals what ours does, its topicStatus counts the messages our
sendMsgStatus sent; the store-maintenance requests are answered by Apache brokers and the embedded one alike."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest

from tests.applicability import not_applicable
from tests.cli.test_json_contract import assert_contract
from tests.conformance.backends import Backend
from tests.conformance.test_cli_commands import mq

pytestmark = pytest.mark.conformance


def java(b: Backend, *args: str) -> str:
    assert b.java_mqadmin is not None
    return b.java_mqadmin(list(args))


def ours_json(*args: str, code: int = 0) -> Any:
    r = mq("--format", "json", *args)
    assert r.code == code, r.out + r.err
    return r.json()


def check_documented(name: str, doc: Any) -> None:
    assert_contract(name, doc)


def java_config(b: Backend, addr: str) -> dict[str, str]:
    """Java getBrokerConfig -b: ``key   =  value`` lines."""
    out = java(b, "getBrokerConfig", "-b", addr)
    return {m.group(1): m.group(2).strip() for m in re.finditer(r"^(\w+)\s+=\s*(.*)$", out, re.M)}


def test_config_agrees_with_java_and_java_sees_what_we_set(backend: Backend) -> None:
    n = ["-n", backend.namesrv_addr]
    addr = backend.brokers["broker-a"]
    doc = ours_json("getBrokerConfig", *n, "-c", backend.cluster)
    check_documented("getBrokerConfig", doc)
    configs = {r["addr"]: r["config"] for r in doc["results"]}
    assert set(configs) == set(backend.brokers.values())
    theirs = java_config(backend, addr)
    for key in ("brokerName", "brokerClusterName", "brokerIP1", "maxMessageSize"):
        assert configs[addr][key] == theirs[key], key

    old = configs[addr]["maxMessageSize"]
    new = str(int(old) + 1024)
    try:
        changed = ours_json("updateBrokerConfig", *n, "-c", backend.cluster, "-k", "maxMessageSize", "-v", new)
        check_documented("updateBrokerConfig", changed)
        assert {r["addr"]: (r["status"], r["changes"]) for r in changed["results"]} == {
            a: ("updated", {"maxMessageSize": {"old": configs[a]["maxMessageSize"], "new": new}})
            for a in backend.brokers.values()
        }
        for a in backend.brokers.values():
            assert java_config(backend, a)["maxMessageSize"] == new
        again = ours_json("updateBrokerConfig", *n, "-b", addr, "-k", "maxMessageSize", "-v", new)
        assert [r["status"] for r in again["results"]] == ["unchanged"]
    finally:
        for a in backend.brokers.values():
            assert (
                mq("updateBrokerConfig", *n, "-b", a, "-k", "maxMessageSize", "-v", configs[a]["maxMessageSize"]).code
                == 0
            )

    unknown = mq("updateBrokerConfig", *n, "-b", addr, "-k", "noSuchBrokerKey", "-v", "1")
    assert unknown.code == 1 and "unknown key 'noSuchBrokerKey'" in unknown.out


def test_apache_settings_reported_and_flush_interval_changed_as_java_sees(backend: Backend) -> None:
    """Every setting Apache 5.5 reports is reported by an Apache 5.5 broker and the embedded one alike (the table
    the embedded broker reports is read from the 5.5 jars); flushIntervalCommitLog, which an operator changes at
    run time, is changed as Java's getBrokerConfig sees."""
    from mqadmin.server.broker.config import APACHE_DEFAULTS

    n = ["-n", backend.namesrv_addr]
    addr = backend.brokers["broker-a"]
    config = ours_json("getBrokerConfig", *n, "-b", addr)["results"][0]["config"]
    if backend.name in ("apache-5.5", "embedded"):
        assert set(APACHE_DEFAULTS) <= set(config), sorted(set(APACHE_DEFAULTS) - set(config))
    if backend.name == "apache-5.5":
        host = {"brokerName", "brokerIP1", "brokerIP2", "namesrvAddr", "storePathCommitLog"}
        assert set(config) == set(APACHE_DEFAULTS) | host
        assert config["fileReservedTime"] == APACHE_DEFAULTS["fileReservedTime"]
    old = config["flushIntervalCommitLog"]
    try:
        done = ours_json("updateBrokerConfig", *n, "-b", addr, "-k", "flushIntervalCommitLog", "-v", "1000")
        assert [(r["status"], r["changes"]) for r in done["results"]] == [
            ("updated", {"flushIntervalCommitLog": {"old": old, "new": "1000"}})
        ]
        assert java_config(backend, addr)["flushIntervalCommitLog"] == "1000"
    finally:
        assert mq("updateBrokerConfig", *n, "-b", addr, "-k", "flushIntervalCommitLog", "-v", old).code == 0


def test_broker_consume_stats_totals_as_java(backend: Backend) -> None:
    n = ["-n", backend.namesrv_addr]
    addr = backend.brokers["broker-a"]
    suffix = uuid.uuid4().hex[:8]
    topic, group = f"BrokerStats{suffix}", f"BrokerStatsGroup{suffix}"
    assert mq("updateTopic", *n, "-b", addr, "-t", topic, "-w", "2", "-r", "2").code == 0
    assert mq("updateSubGroup", *n, "-b", addr, "-g", group).code == 0
    for _ in range(3):
        assert mq("sendMessage", *n, "-t", topic, "-p", "x", "-b", "broker-a", "-i", "0").code == 0
    moved = mq("skipAccumulatedMessage", *n, "-g", group, "-t", topic)  # commits offsets at the end
    assert moved.code == 0, moved.out + moved.err
    for _ in range(2):
        assert mq("sendMessage", *n, "-t", topic, "-p", "x", "-b", "broker-a", "-i", "0").code == 0
    doc = ours_json("brokerConsumeStats", *n, "-b", addr)
    check_documented("brokerConsumeStats", doc)
    mine = [(r["queueId"], r["consumerOffset"], r["diff"]) for r in doc["queues"] if r["group"] == group]
    assert (0, 3, 2) in mine  # a 4.9 broker has no row for queue 1, which had nothing to commit
    total = re.search(r"Diff Total:\s*(\d+)", java(backend, "brokerConsumeStats", "-b", addr))
    assert total is not None and int(total.group(1)) == doc["totalDiff"]
    assert sum(r["diff"] for r in doc["queues"]) == doc["totalDiff"]


def java_max_offsets(b: Backend, topic: str) -> int:
    """The sum of the Max Offset column of Java topicStatus."""
    out = java(b, "topicStatus", "-t", topic)
    rows = [line.split() for line in out.splitlines() if line and not line.startswith("#")]
    return sum(int(r[3]) for r in rows if len(r) >= 4 and r[1].isdigit())


def test_send_msg_status_messages_reach_the_broker(backend: Backend) -> None:
    before = java_max_offsets(backend, "broker-b")
    doc = ours_json("sendMsgStatus", "-n", backend.namesrv_addr, "-b", "broker-b", "-c", "3", "-s", "64")
    check_documented("sendMsgStatus", doc)
    assert [s["result"]["status"] for s in doc["sends"]] == ["SEND_OK"] * 3
    assert {s["result"]["brokerAddr"] for s in doc["sends"]} == {backend.brokers["broker-b"]}
    assert java_max_offsets(backend, "broker-b") == before + 4  # the warm-up message, then 3


@pytest.mark.parametrize("name", ["cleanExpiredCQ", "cleanUnusedTopic", "deleteExpiredCommitLog"])
def test_store_maintenance_answered_per_broker(backend: Backend, name: str) -> None:
    n = ["-n", backend.namesrv_addr]
    dry = ours_json(name, *n, "-c", backend.cluster, "--dry-run")
    assert {(r["addr"], r["status"]) for r in dry["results"]} == {(a, "would delete") for a in backend.brokers.values()}
    doc = ours_json(name, *n, "-c", backend.cluster)
    assert {(r["addr"], r["status"]) for r in doc["results"]} == {(a, "ok") for a in backend.brokers.values()}
    assert java(backend, name, "-b", backend.brokers["broker-a"]).strip().endswith("success")
    check_documented(name, doc)


def test_reset_master_flush_offset_on_a_slave(backend: Backend) -> None:
    n = ["-n", backend.namesrv_addr]
    if backend.name == "apache-4.9":  # no RESET_MASTER_FLUSH_OFFSET: refused with the reason
        doc = ours_json("resetMasterFlushOffset", *n, "-b", backend.brokers["broker-a"], "-o", "0", code=1)
        assert refused_as_unsupported(doc)
        return
    if backend.start_slave is None:
        not_applicable(f"{backend.name} cannot start a slave")
    with backend.start_slave("broker-a") as slave:
        if backend.name == "embedded":  # a slave without replication has no master flush offset: refused
            doc = ours_json("resetMasterFlushOffset", *n, "-b", slave, "-o", "0", code=1)
            assert refused_as_unsupported(doc)
            assert "replicates nothing" in doc["results"][0]["reason"]
            return
        doc = ours_json("resetMasterFlushOffset", *n, "-b", slave, "-o", "0")
    check_documented("resetMasterFlushOffset", doc)
    assert [(r["addr"], r["status"]) for r in doc["results"]] == [(slave, "ok")]


def test_reset_master_flush_offset_on_a_master_is_answered_as_apache_does(backend: Backend) -> None:
    """Apache 5.x's master answers SUCCESS and changes nothing (the offset is a slave's), and so does ours."""
    if backend.name == "apache-4.9":
        not_applicable("4.9 has no RESET_MASTER_FLUSH_OFFSET (refused in the test above)")
    master = backend.brokers["broker-a"]
    doc = ours_json("resetMasterFlushOffset", "-n", backend.namesrv_addr, "-b", master, "-o", "12345")
    assert [(r["addr"], r["status"]) for r in doc["results"]] == [(master, "ok")]
    assert java(backend, "resetMasterFlushOffset", "-b", master, "-o", "12345").strip().endswith("success")


def refused_as_unsupported(doc: Any) -> bool:
    return all((r["reason"] or "").startswith("REQUEST_CODE_NOT_SUPPORTED (3)") for r in doc["results"])


def test_read_ahead_mode_shows_in_java_get_broker_config(backend: Backend) -> None:
    n = ["-n", backend.namesrv_addr]
    addr = backend.brokers["broker-a"]
    if backend.name == "apache-4.9":  # no SET_COMMITLOG_READ_MODE: refused with the reason
        assert refused_as_unsupported(ours_json("setCommitLogReadAheadMode", *n, "-b", addr, "-m", "1", code=1))
        return
    try:
        doc = ours_json("setCommitLogReadAheadMode", *n, "-c", backend.cluster, "-m", "1")
        check_documented("setCommitLogReadAheadMode", doc)
        assert {(r["addr"], r["status"]) for r in doc["results"]} == {(a, "ok") for a in backend.brokers.values()}
        assert java_config(backend, addr)["dataReadAheadEnable"] == "false"
    finally:
        assert mq("setCommitLogReadAheadMode", *n, "-c", backend.cluster, "-m", "0").code == 0
    assert java_config(backend, addr)["dataReadAheadEnable"] == "true"


def test_cold_data_group_threshold_seen_by_java(backend: Backend) -> None:
    n = ["-n", backend.namesrv_addr]
    addr = backend.brokers["broker-a"]
    group = f"ColdGroup{uuid.uuid4().hex[:8]}"
    if backend.name == "apache-4.9":  # no cold-read flow control: refused with the reason
        assert refused_as_unsupported(ours_json("getColdDataFlowCtrInfo", *n, "-b", addr, code=1))
        assert refused_as_unsupported(
            ours_json("updateColdDataFlowCtrGroupConfig", *n, "-b", addr, "-g", group, "-v", "1", code=1)
        )
        return
    created = ours_json("updateColdDataFlowCtrGroupConfig", *n, "-c", backend.cluster, "-g", group, "-v", "4096")
    check_documented("updateColdDataFlowCtrGroupConfig", created)
    assert [r["status"] for r in created["results"]] == ["created"] * len(backend.brokers)
    assert re.search(rf'"{group}"\s*:\s*4096', java(backend, "getColdDataFlowCtrInfo", "-b", addr))
    changed = ours_json("updateColdDataFlowCtrGroupConfig", *n, "-b", addr, "-g", group, "-v", "8192")
    assert [(r["status"], r["changes"]) for r in changed["results"]] == [
        ("updated", {group: {"old": 4096, "new": 8192}})
    ]
    info = ours_json("getColdDataFlowCtrInfo", *n, "-c", backend.cluster)
    check_documented("getColdDataFlowCtrInfo", info)
    assert {r["addr"]: r["info"]["configTable"][group] for r in info["results"]} == {
        a: 8192 if a == addr else 4096 for a in backend.brokers.values()
    }
    removed = ours_json("removeColdDataFlowCtrGroupConfig", *n, "-c", backend.cluster, "-g", group)
    check_documented("removeColdDataFlowCtrGroupConfig", removed)
    assert [r["status"] for r in removed["results"]] == ["deleted"] * len(backend.brokers)
    assert group not in java(backend, "getColdDataFlowCtrInfo", "-b", addr)


def test_switch_timer_engine(backend: Backend) -> None:
    n = ["-n", backend.namesrv_addr]
    addr = backend.brokers["broker-a"]
    if backend.name == "embedded":  # no timer-message store: refused as Apache 5.5 refuses it without one
        doc = ours_json("switchTimerEngine", *n, "-b", addr, "-e", "F", code=1)
        assert doc["results"][0]["reason"] == "INVALID_PARAMETER (29): broker timerWheelEnable is false"
        assert java_config(backend, addr)["timerWheelEnable"] == "false"
        return
    if backend.name != "apache-5.5":  # SWITCH_TIMER_ENGINE is new in 5.5: refused with the reason
        assert refused_as_unsupported(ours_json("switchTimerEngine", *n, "-b", addr, "-e", "F", code=1))
        return
    doc = ours_json("switchTimerEngine", *n, "-c", backend.cluster, "-e", "F")
    check_documented("switchTimerEngine", doc)
    assert {(r["addr"], r["status"]) for r in doc["results"]} == {(a, "ok") for a in backend.brokers.values()}
    config = java_config(backend, addr)
    assert (config["timerStopEnqueue"], config["timerRocksDBStopScan"]) == ("false", "true")
    # the RocksDB timeline needs timerRocksDBEnable at start (off here): the broker's refusal is the reason
    refused = ours_json("switchTimerEngine", *n, "-b", addr, "-e", "R", code=1)
    assert "timerRocksDBEnable" in refused["results"][0]["reason"]
