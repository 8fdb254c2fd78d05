"""Our CLI, as a process, against real clusters (Apache RocketMQ 5.3.x and 4.9.x), cross-checked with the
real Java mqadmin where it can see what we did."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from dataclasses import dataclass
from typing import Any

import pytest

from mqadmin.admin import AdminClient
from mqadmin.model.rpc.namesrv import ROUTE
from tests.applicability import not_applicable
from tests.cli_output import document
from tests.conformance.backends import Backend
from tests.conftest import free_port, wait_until

pytestmark = pytest.mark.conformance


@dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return document(self.code, self.out, self.err)


def mq(*args: str, timeout: float = 120) -> Run:
    env = {k: v for k, v in os.environ.items() if k not in ("NAMESRV_ADDR", "NO_COLOR")}
    done = subprocess.run(
        [sys.executable, "-m", "mqadmin", *args], capture_output=True, text=True, env=env, timeout=timeout
    )
    return Run(done.returncode, done.stdout, done.stderr)


def on_cluster(b: Backend) -> list[str]:
    """``-n <name server> -c <cluster>``."""
    return ["-n", b.namesrv_addr, "-c", b.cluster]


def new_topic(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def rows(out: str) -> list[list[str]]:
    return [line.split() for line in out.strip().splitlines()]


def route_json(b: Backend, topic: str) -> dict[str, Any] | None:
    r = mq("--format", "json", "topicRoute", "-n", b.namesrv_addr, "-t", topic)
    return r.json() if r.code == 0 else None


def wait_for_route(b: Backend, topic: str, predicate) -> dict[str, Any]:
    """Brokers re-register asynchronously after a change: poll the route (bounded) until it shows it."""
    return wait_until(
        lambda: (doc := route_json(b, topic)) is not None and predicate(doc) and doc,
        timeout=60,
        interval=0.5,
        what=f"the route of {topic} on {b.name}",
    )


def both_brokers(doc: dict[str, Any]) -> bool:
    return sorted(q["broker"] for q in doc["queues"]) == ["broker-a", "broker-b"]


def test_update_topic_on_the_cluster_created_unchanged_updated(backend: Backend) -> None:
    topic = new_topic("Orders")
    n = ["-n", backend.namesrv_addr]
    first = mq("updateTopic", *n, "-c", backend.cluster, "-t", topic)
    assert first.code == 0, first.err
    assert rows(first.out) == [
        ["BROKER", "ADDRESS", "RESULT"],
        ["broker-a", backend.brokers["broker-a"], "created"],
        ["broker-b", backend.brokers["broker-b"], "created"],
    ]
    again = mq("updateTopic", *n, "-c", backend.cluster, "-t", topic)
    assert (again.code, [r[2] for r in rows(again.out)[1:]]) == (0, ["unchanged", "unchanged"]), again.out
    changed = mq("updateTopic", *n, "-c", backend.cluster, "-t", topic, "-w", "4")
    assert (changed.code, [r[2:] for r in rows(changed.out)[1:]]) == (0, [["updated", "writeQueueNums", "8→4"]] * 2)

    doc = wait_for_route(
        backend, topic, lambda d: both_brokers(d) and all(q["writeQueueNums"] == 4 for q in d["queues"])
    )
    assert [(q["readQueueNums"], q["writeQueueNums"], q["permString"]) for q in doc["queues"]] == [(8, 4, "RW-")] * 2


def test_update_keeps_what_it_was_not_told_to_change(backend: Backend) -> None:
    topic = new_topic("Keep")
    n = ["-n", backend.namesrv_addr, "-c", backend.cluster, "-t", topic]
    created = mq("updateTopic", *n, "-r", "16", "-w", "16", "-a", "+message.type=FIFO")
    assert created.code == 0, created.err
    perm = mq("--format", "json", "updateTopic", *n, "-p", "4")
    assert perm.code == 0, perm.err
    assert [r["changes"] for r in perm.json()["results"]] == [{"perm": {"old": 6, "new": 4}}] * 2
    again = mq("updateTopic", *n, "-p", "4")
    assert [r[2] for r in rows(again.out)[1:]] == ["unchanged", "unchanged"], again.out

    async def read() -> list:
        async with AdminClient([backend.namesrv_addr]) as admin:
            return [await admin.read_topic_config(addr, topic) for addr in sorted(backend.brokers.values())]

    for cfg, version in asyncio.run(read()):
        assert (cfg.read_queue_nums, cfg.write_queue_nums, cfg.perm) == (16, 16, 4)
        if version >= 413:  # 5.x brokers keep attributes; 4.9 has none
            assert cfg.attributes == {"message.type": "FIFO"}


def test_delete_refuses_system_topics_and_reports_missing_ones(backend: Backend) -> None:
    n = ["-n", backend.namesrv_addr, "-c", backend.cluster]
    system = mq("deleteTopic", *n, "-t", "SELF_TEST_TOPIC")
    assert system.code == 2 and "system topic" in system.err
    assert "SELF_TEST_TOPIC" in mq("topicList", "-n", backend.namesrv_addr).out.split()
    missing = mq("--format", "json", "deleteTopic", *n, "-t", new_topic("Missing"))
    assert missing.code == 1 and "does not exist" in missing.err
    assert {x["status"] for x in missing.json()["results"]} == {"not found"}


def test_update_topic_json_shape(backend: Backend) -> None:
    topic = new_topic("Json")
    r = mq("--format", "json", "updateTopic", *on_cluster(backend), "-t", topic, "-r", "4", "-w", "4")
    assert r.code == 0, r.err
    doc = r.json()
    assert set(doc) == {"topic", "target", "results", "orderConf", "outcome"}
    assert doc["target"] == {"cluster": backend.cluster}
    assert [r["config"]["readQueueNums"] for r in doc["results"]] == [4, 4]
    assert [{k: v for k, v in r.items() if k != "config"} for r in doc["results"]] == [
        {"name": name, "addr": addr, "status": "created", "reason": None, "changes": {}}
        for name, addr in sorted(backend.brokers.items())
    ]
    assert (doc["orderConf"], doc["outcome"]) == (None, "ok")


def test_topic_route_shows_both_brokers_and_java_mqadmin_sees_our_queues(backend: Backend) -> None:
    topic = new_topic("Route")
    assert mq("updateTopic", *on_cluster(backend), "-t", topic, "-r", "3", "-w", "3").code == 0
    doc = wait_for_route(backend, topic, both_brokers)
    assert [(b["broker"], b["addrs"]) for b in doc["brokers"]] == [
        (name, {"0": addr}) for name, addr in sorted(backend.brokers.items())
    ]
    table = mq("topicRoute", "-n", backend.namesrv_addr, "-t", topic)
    assert ["broker-a", "3", "3", "RW-", "0"] in rows(table.out)
    assert [backend.cluster, "broker-b", "0", "master", backend.brokers["broker-b"]] in rows(table.out)
    listed = mq("topicRoute", "-n", backend.namesrv_addr, "-t", topic, "-l")
    assert rows(listed.out)[-1] == ["Total:", "2", "6", "6"]

    assert backend.java_mqadmin is not None
    out = backend.java_mqadmin(["topicRoute", "-t", topic])
    java_route = ROUTE.decode(out[out.index("{") : out.rindex("}") + 1].encode())
    assert sorted((q.broker_name, q.read_queue_nums, q.write_queue_nums, q.perm) for q in java_route.queue_datas) == [
        ("broker-a", 3, 3, 6),
        ("broker-b", 3, 3, 6),
    ]


def test_cluster_list_shows_both_brokers_with_versions(backend: Backend) -> None:
    r = mq("clusterList", "-n", backend.namesrv_addr)
    assert r.code == 0, r.err
    for name, addr in backend.brokers.items():
        assert [backend.cluster, name, "0", "master", addr, backend.version_desc] == rows(r.out)[
            [row[4] if len(row) > 4 else "" for row in rows(r.out)].index(addr)
        ][:6]
    doc = mq("--format", "json", "clusterList", "-n", backend.namesrv_addr, "-m", "-c", backend.cluster).json()
    masters = {x["broker"]: x for x in doc["brokers"] if x["role"] == "master"}
    assert set(masters) == set(backend.brokers)
    for x in masters.values():
        assert x["version"] == backend.version_desc and x["error"] is None
        assert isinstance(x["inTotalToday"], int)
    unknown = mq("clusterList", "-n", backend.namesrv_addr, "-c", "NoSuchCluster")
    assert unknown.code == 2 and backend.cluster in unknown.err


def test_ordered_topic_writes_order_conf_seen_in_the_route(backend: Backend) -> None:
    topic = new_topic("Fifo")
    n = ["-n", backend.namesrv_addr]
    r = mq(
        "--format", "json", "updateTopic", *n, "-c", backend.cluster, "-t", topic, "-o", "true", "-w", "4", "-r", "4"
    )
    assert r.code == 0, r.err
    assert r.json()["orderConf"]["value"] == "broker-a:4;broker-b:4"
    got = mq("updateOrderConf", *n, "-t", topic, "-m", "get")
    assert got.out.strip() == "broker-a:4;broker-b:4"
    doc = wait_for_route(backend, topic, lambda d: both_brokers(d) and d["orderTopicConf"])
    assert doc["orderTopicConf"] == "broker-a:4;broker-b:4"
    assert "orderTopicConf: broker-a:4;broker-b:4" in mq("topicRoute", *n, "-t", topic).out


def test_a_paused_broker_is_a_partial_failure_with_the_other_broker_done(backend: Backend) -> None:
    topic = new_topic("Partial")
    with backend.pause("broker-b"):
        r = mq("--timeout", "2", "--format", "json", "updateTopic", *on_cluster(backend), "-t", topic)
    assert r.code == 3, r.err
    doc = r.json()
    assert [(x["name"], x["status"]) for x in doc["results"]] == [("broker-a", "created"), ("broker-b", "failed")]
    assert "no answer within 2s" in doc["results"][1]["reason"]
    assert doc["outcome"] == "partial"
    [line] = r.err.strip().splitlines()  # with --format json, the error is one JSON document on stderr
    error = json.loads(line)["error"]
    assert (error["code"], error["exitCode"]) == ("PARTIAL", 3) and "1 of 2" in error["message"] and error["hint"]
    wait_for_route(backend, topic, lambda d: [q["broker"] for q in d["queues"]] == ["broker-a"])
    # Run again once the broker is back: the done broker is unchanged, the other one created.
    again = mq("--format", "json", "updateTopic", *on_cluster(backend), "-t", topic)
    assert [x["status"] for x in again.json()["results"]] == ["unchanged", "created"]


def test_dead_name_server_exits_4_and_a_live_one_in_the_list_is_used(backend: Backend) -> None:
    dead = f"127.0.0.1:{free_port()}"
    r = mq("clusterList", "-n", dead)
    assert (r.code, r.out) == (4, "")
    assert r.err.splitlines() == [
        r.err.splitlines()[0],
        "  hint: is a name server running there? pass -n host:9876 or set NAMESRV_ADDR",
    ]
    assert r.err.startswith("mqadmin: error: no name server answered") and dead in r.err
    for order in ([dead, backend.namesrv_addr], [backend.namesrv_addr, dead]):
        ok = mq("--format", "json", "clusterList", "-n", ";".join(order))
        assert ok.code == 0, ok.err
        assert {x["broker"] for x in ok.json()["brokers"]} == set(backend.brokers)


def test_slave_address_is_refused(backend: Backend) -> None:
    if backend.start_slave is None:
        not_applicable(f"{backend.name} cannot start a slave")
    topic = new_topic("Slave")
    with backend.start_slave("broker-a") as slave_addr:
        r = mq("updateTopic", "-n", backend.namesrv_addr, "-b", slave_addr, "-t", topic)
        listing = mq("--format", "json", "clusterList", "-n", backend.namesrv_addr).json()
    assert r.code == 2
    assert "is a slave" in r.err and f"-b {backend.brokers['broker-a']}" in r.err
    assert {"broker": "broker-a", "role": "slave", "addr": slave_addr}.items() <= next(
        x for x in listing["brokers"] if x["role"] == "slave"
    ).items()
    assert mq("topicRoute", "-n", backend.namesrv_addr, "-t", topic).code == 1


def test_one_broker_list_status_and_delete(backend: Backend) -> None:
    topic = new_topic("Single")
    n = ["-n", backend.namesrv_addr]
    r = mq("updateTopic", *n, "-b", backend.brokers["broker-b"], "-t", topic, "-w", "2", "-r", "2")
    assert r.code == 0 and rows(r.out)[1] == ["broker-b", backend.brokers["broker-b"], "created"], r.out + r.err
    wait_for_route(backend, topic, lambda d: [q["broker"] for q in d["queues"]] == ["broker-b"])
    assert topic in mq("topicList", *n).out.split()
    status = mq("--format", "json", "topicStatus", *n, "-t", topic)
    assert status.code == 0, status.err
    assert [(q["broker"], q["queueId"]) for q in status.json()["queues"]] == [("broker-b", 0), ("broker-b", 1)]
    brokers = mq("--format", "json", "brokerStatus", *n, "-b", backend.brokers["broker-b"]).json()["brokers"]
    assert brokers[0]["info"]["brokerVersionDesc"] == backend.version_desc

    deleted = mq("--format", "json", "deleteTopic", *n, "-t", topic, "-c", backend.cluster)
    assert deleted.code == 0, deleted.err
    statuses = [(x["name"], x["status"]) for x in deleted.json()["results"]]
    assert statuses == [("broker-a", "not found"), ("broker-b", "deleted"), ("namesrv", "deleted")]
    wait_until(lambda: route_json(backend, topic) is None, timeout=60, interval=0.5, what="the route to go")
    gone = mq("topicRoute", *n, "-t", topic)
    assert gone.code == 1 and "TOPIC_NOT_EXIST (17)" in gone.err


def test_attributes_and_reading_one_topic_config(backend: Backend) -> None:
    topic = new_topic("Attr")
    addr = backend.brokers["broker-a"]
    r = mq("updateTopic", "-n", backend.namesrv_addr, "-b", addr, "-t", topic, "-a", "+message.type=fifo", "-p", "4")
    assert r.code == 0, r.err

    async def read() -> tuple:
        async with AdminClient([backend.namesrv_addr]) as admin:
            return await admin.read_topic_config(addr, topic)

    cfg, version = asyncio.run(read())
    assert (cfg.topic_name, cfg.perm, cfg.write_queue_nums) == (topic, 4, 8)
    if version >= 413:  # 5.x brokers keep attributes; 4.9 has none
        assert cfg.attributes == {"message.type": "FIFO"}
    again = mq(
        "updateTopic", "-n", backend.namesrv_addr, "-b", addr, "-t", topic, "-a", "+message.type=FIFO", "-p", "4"
    )
    assert rows(again.out)[1][2] == "unchanged"
