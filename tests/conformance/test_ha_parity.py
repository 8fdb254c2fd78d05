"""HA, controller and store commands against real servers, each answer compared with the real Java mqadmin of
the same version.

The tests run on every backend (plain Apache brokers and the embedded cluster): haStatus with and without a
slave, getBrokerEpoch refused outside controller mode, and the store requests. The controller commands, and
these in controller mode, are checked in test_controller_parity.py.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.applicability import not_applicable
from tests.cli.test_json_contract import assert_contract
from tests.conformance.backends import Backend
from tests.conformance.test_cli_commands import mq
from tests.conftest import wait_until

pytestmark = pytest.mark.conformance


def ours_json(*args: str, code: int = 0) -> Any:
    r = mq("--format", "json", *args)
    assert r.code == code, (r.code, r.out, r.err)
    return r.json()


def check_documented(name: str, doc: Any) -> None:
    assert_contract(name, doc)


def java(b: Backend, *args: str) -> str:
    assert b.java_mqadmin is not None
    return b.java_mqadmin(list(args))


def java_fields(out: str, key: str) -> list[str]:
    """The values of Java's ``#key<TAB>value`` lines."""
    return re.findall(rf"^#{re.escape(key)}\t(.*)$", out, re.M)


# --- haStatus, getBrokerEpoch, store requests on every backend ----------------------------------------


NO_HA_STATUS = "Apache 4.9 brokers have no GET_BROKER_HA_STATUS (907, added in 5.0) and its mqadmin no haStatus"


def test_ha_status_of_masters_matches_java(backend: Backend) -> None:
    if backend.name == "apache-4.9":
        doc = ours_json("haStatus", "-n", backend.namesrv_addr, "-c", backend.cluster, code=1)
        assert all(r["reason"].startswith("REQUEST_CODE_NOT_SUPPORTED (3)") for r in doc["results"]), doc
        return
    doc = ours_json("haStatus", "-n", backend.namesrv_addr, "-c", backend.cluster)
    check_documented("haStatus", doc)
    ours = {r["addr"]: r["haStatus"] for r in doc["results"]}
    assert set(ours) == set(backend.brokers.values())
    assert all(s["master"] and s["haConnectionInfo"] == [] and s["inSyncSlaveNums"] == 0 for s in ours.values())
    out = java(backend, "haStatus", "-c", backend.cluster)
    assert sorted(java_fields(out, "MasterAddr")) == sorted(ours), out
    assert java_fields(out, "SlaveNum") == ["0"] * len(ours), out
    # the max offset only grows: ours, read first, is at most what Java read after it
    for addr, offset in zip(java_fields(out, "MasterAddr"), java_fields(out, "MasterCommitLogMaxOffset"), strict=True):
        assert ours[addr]["masterCommitLogMaxOffset"] <= int(offset)


def test_ha_status_with_a_slave_matches_java(backend: Backend) -> None:
    if backend.name == "apache-4.9":
        not_applicable(NO_HA_STATUS)
    assert backend.start_slave is not None
    master = backend.brokers["broker-a"]
    with backend.start_slave("broker-a") as slave:
        (entry,) = ours_json("haStatus", "-n", backend.namesrv_addr, "-b", slave)["results"]
        assert entry["haStatus"]["master"] is False
        java_slave = java(backend, "haStatus", "-b", slave)
        master_addr = entry["haStatus"]["haClientRuntimeInfo"]["masterAddr"]
        assert java_fields(java_slave, "MasterAddr") == [master_addr or "null"]  # Java prints null as "null"
        if backend.name == "embedded":
            return  # the embedded slave replicates nothing: no link to its master (masterAddr null, as checked)

        def slave_connected() -> dict[str, Any] | None:
            (r,) = ours_json("haStatus", "-n", backend.namesrv_addr, "-b", master)["results"]
            return r["haStatus"] if r["haStatus"]["haConnectionInfo"] else None

        status = wait_until(slave_connected, timeout=60, what="the slave's HA connection on the master")
        (conn,) = status["haConnectionInfo"]
        out = java(backend, "haStatus", "-b", master)
        assert java_fields(out, "SlaveNum") == ["1"], out
        java_row = next(line.split() for line in out.splitlines() if line.startswith(conn["addr"]))
        assert java_row[0] == conn["addr"]
        table = mq("haStatus", "-n", backend.namesrv_addr, "-b", master)
        assert table.code == 0 and conn["addr"] in table.out


def test_broker_epoch_is_refused_outside_controller_mode(backend: Backend) -> None:
    doc = ours_json("getBrokerEpoch", "-n", backend.namesrv_addr, "-b", "broker-a", code=1)
    (entry,) = doc["results"]
    assert entry["status"] == "failed" and entry["epochCache"] is None
    if backend.name == "apache-4.9":
        assert entry["reason"].startswith("REQUEST_CODE_NOT_SUPPORTED (3)")
    else:  # Apache 5.x and the embedded broker: a broker with enableControllerMode=false (Java mqadmin prints
        # the same remark in an exception on stderr, which the reference tool's stdout does not hold)
        assert entry["reason"] == "SYSTEM_ERROR (1): this request only for controllerMode"


def test_store_requests(backend: Backend) -> None:
    """The RocksDB check, export and POP transfer are answered by every Apache 5.x master; 4.9 has none of them,
    and the embedded broker, which keeps nothing in RocksDB, refuses each with its reason instead of a success
    that did nothing."""
    on = ["-n", backend.namesrv_addr, "-c", backend.cluster]
    check = mq("--format", "json", "checkRocksdbCqWriteProgress", *on)
    export = mq("--format", "json", "rocksDBConfigToJson", *on)
    pop = mq("--format", "json", "exportPopRecord", *on)
    if backend.name in ("apache-4.9", "embedded"):
        for r, why in ((check, "no RocksDB consume queue"), (export, "no RocksDB metadata"), (pop, "no POP records")):
            reasons = [e["reason"] for e in r.json()["results"]]
            assert r.code == 1 and len(reasons) == len(backend.brokers), r.out
            assert all(e.startswith("REQUEST_CODE_NOT_SUPPORTED") for e in reasons), reasons
            assert backend.name != "embedded" or all(why in e for e in reasons), reasons
        return
    assert check.code == 0, check.out
    # Apache starts the check and reports in its log
    assert {e["checkStatus"] for e in check.json()["results"]} == {"CHECK_IN_PROGRESS"}
    java_check = java(backend, "checkRocksdbCqWriteProgress", "-c", backend.cluster)
    assert java_check.count("check doing") == len(backend.brokers), java_check
    assert export.code == 0 and {e["status"] for e in export.json()["results"]} == {"written"}, export.out
    assert pop.code == 0 and {e["status"] for e in pop.json()["results"]} == {"written"}, pop.out
    java_pop = java(backend, "exportPopRecord", "-c", backend.cluster)
    assert java_pop.count("Export broker records, brokerName=") == len(backend.brokers), java_pop
