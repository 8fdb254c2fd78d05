"""A group of three standalone Apache controllers (ControllerStartup, one DLedger group) beside a plain name
server, and a broker group of a master and a slave whose controllerAddr lists the three: the controller commands
against each peer and against the group, beside Java mqadmin 5.5.0, and with a peer stopped."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conformance.test_cli_commands import mq
from tests.conformance.test_ha_parity import java_fields, ours_json
from tests.conftest import wait_until
from tests.realrmq.apache import java_mqadmin
from tests.realrmq.controller import CONTROLLER_GROUP, ControllerCluster

pytestmark = pytest.mark.conformance

VERSION = "5.5.0"
BROKER = "broker-a"
SLOW = 240


@pytest.fixture(scope="module")
def group() -> Iterator[ControllerCluster]:
    from tests.realrmq.apache import skip_reason

    reason = skip_reason(VERSION)
    if reason:
        pytest.skip(reason)
    with ControllerCluster(VERSION, replicas=2, peers=3) as c:
        in_sync(c)
        yield c


def ours(c: ControllerCluster, *args: str, code: int = 0) -> Any:
    return ours_json(args[0], "-n", c.namesrv_addr, *args[1:], code=code)


def java(c: ControllerCluster, *args: str, expect: str) -> str:
    """Java mqadmin's stdout, run again while it lacks ``expect`` (a 3-second request can time out under load)."""

    def run() -> str | None:
        out = java_mqadmin(VERSION, list(args), c.namesrv_addr).stdout
        return out if expect in out else None

    return wait_until(run, timeout=SLOW, interval=1, what=f"Java mqadmin {args[0]} printing {expect!r}")


def in_sync(c: ControllerCluster) -> dict[str, Any]:
    """broker-a once its master and slave are both in the sync state set (asked through the whole group)."""

    def ready() -> dict[str, Any] | None:
        (s,) = ours(c, "getSyncStateSet", "-a", c.controller, "-b", BROKER)["brokers"] or [None]
        return s if s and s["masterAddress"] and len(s["inSyncReplicas"]) == 2 else None

    return wait_until(ready, timeout=SLOW, interval=0.5, what=f"both replicas of {BROKER} in sync")


def test_every_peer_reports_the_leader_as_java_does(group: ControllerCluster) -> None:
    peers = [f"n{i}:{addr}" for i, addr in enumerate(group.controller_addrs)]
    docs = {addr: ours(group, "getControllerMetaData", "-a", addr) for addr in group.controller_addrs}
    (leader,) = {d["controllerLeaderAddress"] for d in docs.values()}
    assert leader in group.controller_addrs
    for addr, doc in docs.items():
        assert doc["group"] == CONTROLLER_GROUP and doc["peers"] == peers
        assert doc["isLeader"] is (addr == leader)
        out = java(group, "getControllerMetaData", "-a", addr, expect="#ControllerLeaderAddress")
        assert java_fields(out, "ControllerLeaderAddress") == [leader], out
        assert java_fields(out, "ControllerLeaderId") == [doc["controllerLeaderId"]]
        assert java_fields(out, "Peer:") == peers


def test_config_of_every_peer_and_an_update_of_all(group: ControllerCluster) -> None:
    out = java(group, "getControllerConfig", "-a", group.controller, expect="=====")
    sections = re.split(r"^=+(\S+?)=+$", out, flags=re.M)[1:]
    java_configs = {
        addr: {m.group(1): m.group(2).strip() for m in re.finditer(r"^(\S+)\s*=  (.*)$", body, re.M)}
        for addr, body in zip(sections[::2], sections[1::2], strict=True)
    }
    doc = ours(group, "getControllerConfig", "-a", group.controller)
    assert {r["addr"]: r["config"] for r in doc["results"]} == java_configs
    assert sorted(java_configs) == sorted(group.controller_addrs)

    key = "electMasterMaxRetryCount"
    old = java_configs[group.controller_addrs[0]][key]
    try:
        updated = ours(group, "updateControllerConfig", "-a", group.controller, "-k", key, "-v", str(int(old) + 1))
        assert [(r["addr"], r["status"]) for r in updated["results"]] == [
            (a, "updated") for a in group.controller_addrs
        ]
        out = java(group, "getControllerConfig", "-a", group.controller, expect="=====")
        assert re.findall(rf"^{key}\s*=  (\S+)$", out, re.M) == [str(int(old) + 1)] * 3, out
    finally:
        assert (
            mq("updateControllerConfig", "-n", group.namesrv_addr, "-a", group.controller, "-k", key, "-v", old).code
            == 0
        )


def test_a_stopped_peer_is_passed_over(group: ControllerCluster) -> None:
    """The first peer stops: ours still reaches the group through -a (all three) and through -n; Java mqadmin,
    given the stopped peer, fails. Runs last: the group keeps two peers."""
    first = group.controllers[0]
    first.stop()

    def answered() -> dict[str, Any] | None:  # a new leader, if the stopped peer led
        r = mq("--format", "json", "getSyncStateSet", "-n", group.namesrv_addr, "-a", group.controller, "-b", BROKER)
        return r.json() if r.code == 0 and r.json()["brokers"] else None

    doc = wait_until(answered, timeout=SLOW, what="the group answering without its first peer")
    assert doc["controller"] == group.controller_addrs[1]
    found = mq("--format", "json", "getSyncStateSet", "-n", group.namesrv_addr, "-b", BROKER)
    assert found.code == 0 and f"controller {first.addr} not reachable; asked " in found.err, found.err
    assert found.json()["brokers"][0]["masterAddress"] == doc["brokers"][0]["masterAddress"]
    meta = mq("--format", "json", "getControllerMetaData", "-n", group.namesrv_addr)
    assert meta.code == 0 and meta.json()["controller"] == group.controller_addrs[1], meta.err
    dry = mq("electMaster", "-n", group.namesrv_addr, "-c", "DefaultCluster", "-bn", BROKER, "-b", "1", "--dry-run")
    assert dry.code == 0, dry.err

    java_dead = java_mqadmin(VERSION, ["getSyncStateSet", "-a", first.addr, "-b", BROKER], group.namesrv_addr)
    assert "#MasterAddr" not in java_dead.stdout and f"connect to {first.addr} failed" in java_dead.stderr
    out = java(group, "getSyncStateSet", "-a", group.controller_addrs[1], "-b", BROKER, expect="#MasterAddr")
    assert java_fields(out, "MasterAddr") == [doc["brokers"][0]["masterAddress"]]
