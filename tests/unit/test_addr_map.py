"""Broker address map: requests for a registered broker address go to the reachable one (every broker request
of every command), never for a name server; rows keep the registered address."""

from __future__ import annotations

import pytest

from mqadmin.cli import runner
from mqadmin.transport.addrmap import BadAddressMap, parse_addr_map
from tests.unit.fake_remoting import FakeBroker, FakeNamesrv, FakeTransport
from tests.unit.test_settings import run, write_config

REGISTERED, REACHABLE = "10.0.0.5:10911", "127.0.0.1:30911"


def test_parse() -> None:
    assert parse_addr_map([f"{REGISTERED}={REACHABLE}", " 10.0.0.6:10911 = 127.0.0.1:30921 ,"]) == {
        REGISTERED: REACHABLE,
        "10.0.0.6:10911": "127.0.0.1:30921",
    }
    for bad, fragment in [
        ("10.0.0.5:10911", "is not REGISTERED=REACHABLE"),
        ("10.0.0.5=127.0.0.1:1", "bad address '10.0.0.5'"),
        ("10.0.0.5:10911=127.0.0.1:70000", "outside 1..65535"),
    ]:
        with pytest.raises(BadAddressMap, match=fragment):
            parse_addr_map([bad])
    with pytest.raises(BadAddressMap, match="mapped twice"):
        parse_addr_map([f"{REGISTERED}={REACHABLE}", f"{REGISTERED}=127.0.0.1:1"])


@pytest.fixture
def docker_cluster(monkeypatch):
    """A broker registered at an address only its container network has; reachable at a forwarded port."""
    broker = FakeBroker("broker-a", REGISTERED)
    ns = FakeNamesrv("127.0.0.1:9876", [broker])
    transport = FakeTransport(ns)
    transport.servers[REACHABLE] = broker
    monkeypatch.setattr(runner, "transport_factory", lambda: transport)
    monkeypatch.setenv("NAMESRV_ADDR", ns.addr)
    return transport, broker


def test_every_broker_request_is_mapped(docker_cluster, monkeypatch, capsys) -> None:
    transport, broker = docker_cluster
    r = run(monkeypatch, capsys, "updateTopic", "-c", "DefaultCluster", "-t", "Orders")
    assert r.code == 1 and "refused" in r.out  # unmapped: the registered address cannot be reached
    r = run(monkeypatch, capsys, "updateTopic", "-c", "DefaultCluster", "-t", "Orders",
            "--broker-addr-map", f"{REGISTERED}={REACHABLE}")  # fmt: skip
    assert r.code == 0, r.err
    assert REGISTERED in r.out and "created" in r.out and "Orders" in broker.topics
    assert {a for a, _ in transport.sent if a != "127.0.0.1:9876"} == {REGISTERED, REACHABLE}
    transport.sent.clear()
    monkeypatch.setenv("MQADMIN_BROKER_ADDR_MAP", f"{REGISTERED}={REACHABLE}")
    assert run(monkeypatch, capsys, "brokerStatus", "-b", REGISTERED).code == 0
    assert [a for a, _ in transport.sent] == ["127.0.0.1:9876", REACHABLE]
    monkeypatch.delenv("MQADMIN_BROKER_ADDR_MAP")
    write_config(f'current = "k8s"\n[profiles.k8s.broker_addr_map]\n"{REGISTERED}" = "{REACHABLE}"\n')
    assert run(monkeypatch, capsys, "topicStatus", "-t", "Orders").code == 0


def test_name_servers_are_never_mapped(docker_cluster, monkeypatch, capsys) -> None:
    transport, _ = docker_cluster
    r = run(monkeypatch, capsys, "topicList", "--broker-addr-map", f"127.0.0.1:9876={REACHABLE}")
    assert r.code == 0, r.err
    assert [a for a, _ in transport.sent] == ["127.0.0.1:9876"]
