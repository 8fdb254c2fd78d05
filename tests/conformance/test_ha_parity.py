"""HA, controller and store commands against real servers, each answer compared with the real Java mqadmin of
the same version.

The ``backend`` tests run on every backend (plain Apache brokers and the embedded cluster): haStatus with and
without a slave, getBrokerEpoch refused outside controller mode, and the store requests. The controller tests
start Apache RocketMQ 5.5.0 in controller mode (a name server with ``enableControllerInNamesrv=true`` and a
broker with ``enableControllerMode=true``), the setup Java's controller commands are for.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests.applicability import not_applicable
from tests.cli.test_json_contract import assert_contract
from tests.conformance.backends import Backend
from tests.conformance.test_cli_commands import mq
from tests.conftest import wait_until

pytestmark = pytest.mark.conformance

CONTROLLER_VERSION = "5.5.0"


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


# --- Apache 5.5.0 in controller mode -------------------------------------------------------------------


@dataclass
class ControllerCluster:
    namesrv: str
    controller: str
    broker: str
    version: str

    def java(self, *args: str, expect: str = "") -> str:
        """Java mqadmin's output, run again while it lacks ``expect`` (on a loaded machine Java's 3-second
        controller requests can time out; it then prints the exception instead)."""
        from tests.realrmq.apache import java_mqadmin

        def run() -> str | None:
            out = java_mqadmin(self.version, list(args), self.namesrv).stdout
            return out if expect in out else None

        return wait_until(run, timeout=180, interval=1, what=f"Java mqadmin {args[0]} printing {expect!r}")


@pytest.fixture(scope="module")
def controller_cluster() -> Iterator[ControllerCluster]:
    from tests.realrmq.apache import Broker, NameServer, skip_reason

    reason = skip_reason(CONTROLLER_VERSION)
    if reason:
        pytest.skip(reason)

    class ControllerNameServer(NameServer):
        """A name server running the DLedger controller (one peer) on its port + 1."""

        def _port_offsets(self) -> list[int]:
            return [0, 1]

        def _write_config(self) -> None:
            assert self.workdir is not None
            self.config.update(
                enableControllerInNamesrv="true",
                controllerDLegerGroup="mqadmin",
                controllerDLegerPeers=f"n0-127.0.0.1:{self.port + 1}",
                controllerDLegerSelfId="n0",
                controllerStorePath=self.workdir / "controller",
                mappedFileSize=16 * 1024 * 1024,
            )
            super()._write_config()

    ns = ControllerNameServer(CONTROLLER_VERSION)
    with ns:
        controller = f"127.0.0.1:{ns.port + 1}"
        broker = Broker(
            CONTROLLER_VERSION,
            ns.addr,
            broker_name="broker-a",
            config={"enableControllerMode": "true", "controllerAddr": controller},
        )
        with broker:
            yield ControllerCluster(ns.addr, controller, broker.addr, CONTROLLER_VERSION)


def test_controller_metadata_matches_java(controller_cluster: ControllerCluster) -> None:
    c = controller_cluster
    doc = ours_json("getControllerMetaData", "-a", c.controller)
    check_documented("getControllerMetaData", doc)
    assert doc["group"] == "mqadmin" and doc["isLeader"] is True
    assert doc["controllerLeaderAddress"] == c.controller and doc["peers"] == [f"n0:{c.controller}"]
    out = c.java("getControllerMetaData", "-a", c.controller, expect="#ControllerGroup")
    assert java_fields(out, "ControllerGroup") == ["mqadmin"], out
    assert java_fields(out, "ControllerLeaderId") == [doc["controllerLeaderId"]]
    assert java_fields(out, "ControllerLeaderAddress") == [c.controller]
    assert java_fields(out, "Peer:") == [f"n0:{c.controller}"]


def test_controller_config_agrees_with_java_both_ways(controller_cluster: ControllerCluster) -> None:
    c = controller_cluster

    def java_config() -> dict[str, str]:
        out = c.java("getControllerConfig", "-a", c.controller, expect="=====")
        return {m.group(1): m.group(2).strip() for m in re.finditer(r"^(\S+)\s*=  (.*)$", out, re.M)}

    (entry,) = ours_json("getControllerConfig", "-a", c.controller)["results"]
    assert entry["config"] == java_config()
    key, old = "scanNotActiveBrokerInterval", entry["config"]["scanNotActiveBrokerInterval"]
    new = str(int(old) + 1000)
    try:
        doc = ours_json("updateControllerConfig", "-a", c.controller, "-k", key, "-v", new)
        check_documented("updateControllerConfig", doc)
        assert [(r["status"], r["changes"]) for r in doc["results"]] == [("updated", {key: {"old": old, "new": new}})]
        assert java_config()[key] == new
    finally:
        assert mq("updateControllerConfig", "-a", c.controller, "-k", key, "-v", old).code == 0
    unknown = mq("updateControllerConfig", "-a", c.controller, "-k", "noSuchControllerKey", "-v", "1")
    assert unknown.code == 1 and "unknown key 'noSuchControllerKey'" in unknown.out


def _sync_state(c: ControllerCluster) -> dict[str, Any]:
    doc = ours_json("getSyncStateSet", "-a", c.controller, "-b", "broker-a")
    check_documented("getSyncStateSet", doc)
    (broker,) = doc["brokers"]
    return broker


def test_sync_state_set_matches_java(controller_cluster: ControllerCluster) -> None:
    c = controller_cluster
    ours = _sync_state(c)
    assert ours["masterAddress"] == c.broker
    (replica,) = ours["inSyncReplicas"]
    assert replica["brokerAddress"] == c.broker and replica["alive"] is True
    out = c.java("getSyncStateSet", "-a", c.controller, "-b", "broker-a", expect="#MasterAddr")
    assert java_fields(out, "MasterAddr") == [c.broker]
    assert java_fields(out, "MasterBrokerId") == [str(ours["masterBrokerId"])]
    assert java_fields(out, "MasterEpoch") == [str(ours["masterEpoch"])]
    assert java_fields(out, "SyncStateSetEpoch") == [str(ours["syncStateSetEpoch"])]
    assert java_fields(out, "SyncStateSetNums") == ["1"]
    by_cluster = ours_json("getSyncStateSet", "-a", c.controller, "-c", "DefaultCluster", "-n", c.namesrv)
    assert [b["brokerName"] for b in by_cluster["brokers"]] == ["broker-a"]


def test_broker_epoch_matches_java(controller_cluster: ControllerCluster) -> None:
    c = controller_cluster
    doc = ours_json("getBrokerEpoch", "-n", c.namesrv, "-b", "broker-a")
    check_documented("getBrokerEpoch", doc)
    (entry,) = doc["results"]
    cache = entry["epochCache"]
    assert entry["addr"] == c.broker and cache["brokerName"] == "broker-a" and cache["epochList"]
    out = c.java("getBrokerEpoch", "-b", "broker-a", expect="#Epoch")
    java_epochs = re.findall(r"#Epoch: EpochEntry\{epoch=(\d+), startOffset=(\d+), endOffset=(\d+)\}", out)
    ours = [(str(e["epoch"]), str(e["startOffset"])) for e in cache["epochList"]]
    assert [(e, s) for e, s, _ in java_epochs] == ours, out
    # the current epoch ends at the broker's max offset, which only grows: ours was read first
    assert int(cache["epochList"][-1]["endOffset"]) <= int(java_epochs[-1][2])


def test_elect_master_keeps_a_live_master(controller_cluster: ControllerCluster) -> None:
    c = controller_cluster
    before = _sync_state(c)
    master_id = str(before["masterBrokerId"])
    args = ["electMaster", "-a", c.controller, "-c", "DefaultCluster", "-bn", "broker-a", "-b", master_id]
    dry = ours_json(*args, "--dry-run")
    assert dry["before"]["masterAddress"] == c.broker and dry["after"] is None
    doc = ours_json(*args)
    check_documented("electMaster", doc)
    assert doc["elected"] is False and "still alive" in doc["remark"]
    assert doc["after"]["masterAddress"] == c.broker and doc["after"]["masterEpoch"] == before["masterEpoch"]
    assert _sync_state(c)["masterEpoch"] == before["masterEpoch"]


def test_clean_broker_metadata_keeps_a_live_broker(controller_cluster: ControllerCluster) -> None:
    c = controller_cluster
    master_id = str(_sync_state(c)["masterBrokerId"])
    args = ["cleanBrokerMetadata", "-a", c.controller, "-c", "DefaultCluster", "-bn", "broker-a", "-b", master_id]
    dry = ours_json(*args, "--dry-run")
    check_documented("cleanBrokerMetadata", dry)
    assert [(r["brokerAddress"], r["clean"]) for r in dry["replicas"]] == [(c.broker, True)]
    refused = mq(*args)  # without -l the controller will not forget a live replica
    assert refused.code == 1 and "CONTROLLER_INVALID_CLEAN_BROKER_METADATA (2009)" in refused.err, refused.err
    out = c.java("getSyncStateSet", "-a", c.controller, "-b", "broker-a", expect="#MasterAddr")
    assert java_fields(out, "MasterAddr") == [c.broker]  # nothing was cleaned


def test_controller_commands_find_the_controller_through_n(controller_cluster: ControllerCluster) -> None:
    """Without -a, -n leads to the controller: the controllerAddr of the broker in controller mode."""
    c = controller_cluster
    r = mq("--format", "json", "getControllerMetaData", "-n", c.namesrv)
    assert r.code == 0, r.err
    assert r.json()["controller"] == c.controller and f"controller {c.controller} (found through" in r.err
    with_both = mq("--format", "json", "getControllerConfig", "-n", c.namesrv, "-a", c.controller)
    assert with_both.code == 0 and [x["addr"] for x in with_both.json()["results"]] == [c.controller]
    states = mq("--format", "json", "getSyncStateSet", "-n", c.namesrv, "-b", "broker-a")
    assert states.code == 0, states.err
    assert [b["brokerName"] for b in states.json()["brokers"]] == ["broker-a"]
    assert (
        mq("electMaster", "-n", c.namesrv, "-c", "DefaultCluster", "-bn", "broker-a", "-b", "1", "--dry-run").code == 0
    )
