"""Broker address map: requests for a registered broker address go to the reachable one (every broker request
of every command), never for a name server; rows keep the registered address."""

from __future__ import annotations

import pytest

from mqadmin.cli import runner
from mqadmin.model.route import QueueData, TopicRouteData
from mqadmin.model.rpc import brokers, namesrv, topics
from mqadmin.model.stats import QueueOffsets, TopicStats
from mqadmin.transport.addrmap import BadAddressMap, parse_addr_map
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode
from tests.mock_transport import MockTransport, cluster_info, ok, refuse, routes
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
    info = cluster_info(("broker-a", 0, REGISTERED))
    route = TopicRouteData([info.brokers["broker-a"]], [QueueData("broker-a", 8, 8, 6)])
    answers = {
        namesrv.GET_BROKER_CLUSTER_INFO: ok(info),
        namesrv.GET_ROUTEINFO_BY_TOPIC: ok(route),
        namesrv.GET_ALL_TOPIC_LIST_FROM_NAMESERVER: ok(["Orders"]),
        topics.GET_TOPIC_CONFIG: refuse(ResponseCode.TOPIC_NOT_EXIST, "No topic in this broker."),
        topics.UPDATE_AND_CREATE_TOPIC: ok(),
        topics.GET_TOPIC_STATS_INFO: ok(TopicStats([QueueOffsets("Orders", "broker-a", 0, 0, 3, 1700000000000)])),
        brokers.GET_BROKER_RUNTIME_INFO: ok({"brokerVersionDesc": "V5_3_3", "brokerVersion": "479"}),
    }
    transport = MockTransport(routes(answers), down={REGISTERED})  # only the forwarded port is reachable
    monkeypatch.setattr(runner, "transport_factory", lambda: transport)
    monkeypatch.setenv("NAMESRV_ADDR", "127.0.0.1:9876")
    return transport


def test_every_broker_request_is_mapped(docker_cluster, monkeypatch, capsys) -> None:
    transport = docker_cluster
    r = run(monkeypatch, capsys, "updateTopic", "-c", "DefaultCluster", "-t", "Orders")
    assert r.code == 1 and "refused" in r.out  # unmapped: the registered address cannot be reached
    r = run(monkeypatch, capsys, "updateTopic", "-c", "DefaultCluster", "-t", "Orders",
            "--broker-addr-map", f"{REGISTERED}={REACHABLE}")  # fmt: skip
    assert r.code == 0, r.err
    assert REGISTERED in r.out and "created" in r.out
    assert [c.ext["topic"] for a, c in transport.sent if c.code == RC.UPDATE_AND_CREATE_TOPIC] == ["Orders"]
    assert {a for a, _ in transport.sent if a != "127.0.0.1:9876"} == {REGISTERED, REACHABLE}
    transport.sent.clear()
    monkeypatch.setenv("MQADMIN_BROKER_ADDR_MAP", f"{REGISTERED}={REACHABLE}")
    assert run(monkeypatch, capsys, "brokerStatus", "-b", REGISTERED).code == 0
    assert [a for a, _ in transport.sent] == ["127.0.0.1:9876", REACHABLE]
    monkeypatch.delenv("MQADMIN_BROKER_ADDR_MAP")
    write_config(f'current = "k8s"\n[profiles.k8s.broker_addr_map]\n"{REGISTERED}" = "{REACHABLE}"\n')
    assert run(monkeypatch, capsys, "topicStatus", "-t", "Orders").code == 0


def test_name_servers_are_never_mapped(docker_cluster, monkeypatch, capsys) -> None:
    transport = docker_cluster
    r = run(monkeypatch, capsys, "topicList", "--broker-addr-map", f"127.0.0.1:9876={REACHABLE}")
    assert r.code == 0, r.err
    assert [a for a, _ in transport.sent] == ["127.0.0.1:9876"]
