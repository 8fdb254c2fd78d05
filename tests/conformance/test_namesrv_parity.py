"""Name-server, cluster and export commands against real clusters (Apache RocketMQ 5.3 and 4.9, and the embedded
one), each effect confirmed by the real Java mqadmin of the same version: it sees the config we set, the KV
entries agree both ways, its topicRoute shows the write permission we wiped and restored, and its export files
hold what ours hold."""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest

from mqadmin.admin import AdminClient
from mqadmin.model.rpc.namesrv import ROUTE
from mqadmin.wire.codes import RequestCode
from mqadmin.wire.frame import RemotingCommand
from tests.cli.test_json_contract import assert_contract
from tests.conformance.backends import Backend
from tests.conformance.test_cli_commands import mq, new_topic, wait_for_route
from tests.conftest import wait_until

pytestmark = pytest.mark.conformance


def java(b: Backend, *args: str) -> str:
    assert b.java_mqadmin is not None
    return b.java_mqadmin(list(args))


def ns(b: Backend) -> list[str]:
    return ["-n", b.namesrv_addr]


def ours_json(*args: str) -> Any:
    r = mq("--format", "json", *args)
    assert r.code == 0, r.err
    return r.json()


def check_documented(name: str, doc: Any) -> None:
    assert_contract(name, doc)


# --- config ------------------------------------------------------------------------------------------


def test_java_get_namesrv_config_shows_what_we_set(backend: Backend) -> None:
    (before,) = ours_json("getNamesrvConfig", *ns(backend))["results"]
    old = before["config"]["productEnvName"]
    value = f"env-{uuid.uuid4().hex[:8]}"
    try:
        doc = ours_json("updateNamesrvConfig", *ns(backend), "-k", "productEnvName", "-v", value)
        assert [(r["status"], r["changes"]) for r in doc["results"]] == [
            ("updated", {"productEnvName": {"old": old, "new": value}})
        ]
        shown = re.search(r"^productEnvName\s+=\s+(\S+)", java(backend, "getNamesrvConfig"), re.M)
        assert shown is not None and shown.group(1) == value
        again = ours_json("updateNamesrvConfig", *ns(backend), "-k", "productEnvName", "-v", value)
        assert [r["status"] for r in again["results"]] == ["unchanged"]
    finally:
        assert mq("updateNamesrvConfig", *ns(backend), "-k", "productEnvName", "-v", old).code == 0

    refused = mq("--format", "json", "updateNamesrvConfig", *ns(backend), "-k", "kvConfigPath", "-v", "/tmp/kv.json")
    (entry,) = refused.json()["results"]
    # the name server's own words: "Can not update config in black list." (5.x), "Can not update config path" (4.9)
    assert refused.code == 1 and entry["reason"].startswith("NO_PERMISSION (16): Can not update config")
    unknown = mq("updateNamesrvConfig", *ns(backend), "-k", "noSuchConfigKey", "-v", "1")
    assert unknown.code == 1 and "unknown key 'noSuchConfigKey'" in unknown.out


# --- KV ----------------------------------------------------------------------------------------------


def test_kv_entries_agree_with_java_both_ways(backend: Backend) -> None:
    namespace, key = f"MQADMIN_{uuid.uuid4().hex[:8]}", "k1"
    assert "success" in java(backend, "updateKvConfig", "-s", namespace, "-k", key, "-v", "from-java")
    assert ours_json("getKvConfig", *ns(backend), "-s", namespace) == {
        "namespace": namespace,
        "entries": {key: "from-java"},
    }
    doc = ours_json("updateKvConfig", *ns(backend), "-s", namespace, "-k", key, "-v", "from-us")
    check_documented("updateKvConfig", doc)
    assert [(r["status"], r["changes"]) for r in doc["results"]] == [
        ("updated", {key: {"old": "from-java", "new": "from-us"}})
    ]
    assert ours_json("getKvConfig", *ns(backend), "-s", namespace, "-k", key)["entries"] == {key: "from-us"}

    assert "success" in java(backend, "deleteKvConfig", "-s", namespace, "-k", key)
    assert mq("getKvConfig", *ns(backend), "-s", namespace, "-k", key).code == 1
    assert mq("deleteKvConfig", *ns(backend), "-s", namespace, "-k", key).code == 1

    assert mq("updateKvConfig", *ns(backend), "-s", namespace, "-k", "k2", "-v", "v2").code == 0
    deleted = ours_json("deleteKvConfig", *ns(backend), "-s", namespace, "-k", "k2")
    assert [(r["status"], r["value"]) for r in deleted["results"]] == [("deleted", "v2")]
    assert ours_json("getKvConfig", *ns(backend), "-s", namespace)["entries"] == {}


# --- write permission --------------------------------------------------------------------------------


def java_perms(b: Backend, topic: str) -> dict[str, int]:
    out = java(b, "topicRoute", "-t", topic)
    route = ROUTE.decode(out[out.index("{") : out.rindex("}") + 1].encode())
    return {q.broker_name: q.perm for q in route.queue_datas}


def broker_topics(b: Backend, broker: str) -> set[str]:
    async def read() -> set[str]:
        async with AdminClient([b.namesrv_addr]) as admin:
            return set((await admin.all_topic_config(b.brokers[broker]))[0])

    return asyncio.run(read())


def test_wipe_write_perm_seen_by_java_topic_route_and_add_restores_it(backend: Backend) -> None:
    # A wipe lasts until the broker registers a changed topic table. A 4.9 broker creates its transaction
    # half topic about a minute after it starts (5.x brokers at start), which would undo a wipe made before.
    wait_until(lambda: "RMQ_SYS_TRANS_HALF_TOPIC" in broker_topics(backend, "broker-b"), timeout=120, interval=2,
               what="broker-b's start-up topics")  # fmt: skip
    topic = new_topic("Drain")
    assert mq("updateTopic", *ns(backend), "-c", backend.cluster, "-t", topic).code == 0
    wait_for_route(backend, topic, lambda d: len(d["queues"]) == 2)

    plan = ours_json("wipeWritePerm", *ns(backend), "-b", "broker-b", "--dry-run")
    (entry,) = plan["results"]
    assert {"topic": topic, "perm": {"old": 6, "new": 4}} in entry["topics"]
    assert java_perms(backend, topic) == {"broker-a": 6, "broker-b": 6}  # the dry run changed nothing
    try:
        wiped = ours_json("wipeWritePerm", *ns(backend), "-b", "broker-b")
        (entry,) = wiped["results"]
        assert entry["status"] == "ok" and entry["topicCount"] >= plan["results"][0]["topicCount"] - 1
        assert java_perms(backend, topic) == {"broker-a": 6, "broker-b": 4}
    finally:
        added = ours_json("addWritePerm", *ns(backend), "-b", "broker-b")
    assert added["results"][0]["topicCount"] >= 1
    assert java_perms(backend, topic) == {"broker-a": 6, "broker-b": 6}


# --- statsAll and clusterRT --------------------------------------------------------------------------


async def commit_offset(b: Backend, group: str, topic: str, offset: int) -> None:
    async with AdminClient([b.namesrv_addr]) as admin:
        ext = {"consumerGroup": group, "topic": topic, "queueId": "0", "commitOffset": str(offset)}
        resp = await admin.transport.request(
            b.brokers["broker-a"], RemotingCommand(code=RequestCode.UPDATE_CONSUMER_OFFSET, ext=ext), 10
        )
        assert resp.code == 0, resp.remark


def test_stats_all_counts_puts_and_accumulation_as_java_does(backend: Backend) -> None:
    topic, group = new_topic("Stats"), f"G_{uuid.uuid4().hex[:8]}"
    on_a = ["-b", backend.brokers["broker-a"]]
    assert mq("updateTopic", *ns(backend), *on_a, "-t", topic).code == 0
    wait_for_route(backend, topic, lambda d: len(d["queues"]) == 1)
    asyncio.run(create_group(backend, group))  # 5.x brokers refuse offsets of an unknown group
    # Java 4.9 finds a group's offsets through the route of its retry topic, which a consumer would create
    retry = f"%RETRY%{group}"
    assert mq("updateTopic", *ns(backend), *on_a, "-t", retry, "-r", "1", "-w", "1").code == 0
    wait_for_route(backend, retry, lambda d: len(d["queues"]) == 1)
    for i in range(5):
        assert mq("sendMessage", *ns(backend), "-t", topic, "-p", f"m{i}", "-b", "broker-a", "-i", "0").code == 0
    asyncio.run(commit_offset(backend, group, topic, 2))
    seen: list[int] = []

    def counted() -> dict[str, Any] | None:
        doc = ours_json("statsAll", *ns(backend), "-t", topic)
        rows = doc["stats"]
        seen.append(rows[0]["inMsg24Hour"] if rows else -1)
        return doc if seen[-1] == 5 else None

    # A Java broker samples a new topic's counts every 10 s, and for about a minute after its first put the
    # 24-hour count is the minute's (its hour and day samples come every 10 min and every hour): the count shows
    # after the next sample and stays 5 for that minute, so the puts come last, right before the polling.
    try:
        doc = wait_until(counted, timeout=60, interval=1, what=f"statsAll to count the 5 puts into {topic}")
    except AssertionError as e:
        raise AssertionError(f"{e}; inMsg24Hour seen: {seen}") from None
    check_documented("statsAll", doc)
    assert [(r["group"], r["accumulation"]) for r in doc["stats"]] == [(group, 3)]
    assert doc["outcome"] == "ok"

    line = next(ln.split() for ln in java(backend, "statsAll", "-t", topic).splitlines() if ln.startswith(topic))
    assert (line[0], line[1], int(line[2])) == (topic, group, 3)


def broker_topic_offsets(b: Backend) -> dict[str, int]:
    async def read() -> dict[str, int]:
        async with AdminClient([b.namesrv_addr]) as admin:
            return {
                name: sum(q.max_offset for q in await admin.topic_stats(addr, name)) for name, addr in b.brokers.items()
            }

    return asyncio.run(read())


def test_cluster_rt_sends_to_every_broker(backend: Backend) -> None:
    before = broker_topic_offsets(backend)
    r = mq("--format", "json", "clusterRT", *ns(backend), "-c", backend.cluster, "-a", "3", "-s", "64", "--count", "1")
    assert r.code == 0, r.err
    (line,) = r.out.splitlines()
    doc = json.loads(line)
    check_documented("clusterRT", doc)
    assert [(x["broker"], x["successCount"], x["failCount"]) for x in doc["brokers"]] == [
        ("broker-a", 3, 0),
        ("broker-b", 3, 0),
    ]
    assert all(x["rt"] > 0 for x in doc["brokers"])
    after = broker_topic_offsets(backend)
    assert {name: after[name] - before[name] for name in after} == {"broker-a": 3, "broker-b": 3}


# --- exports -----------------------------------------------------------------------------------------


def run_both(b: Backend, tmp: Path, *args: str) -> tuple[Path, Path, dict[str, Any], str]:
    """Our export into tmp/ours, Java's into tmp/java; (our dir, Java's dir, our printed document, Java's output)."""
    ours, theirs = tmp / "ours", tmp / "java"
    doc = ours_json(*args[:1], *ns(b), *args[1:], "-f", str(ours))
    out = java(b, *args, "-f", str(theirs))
    return ours, theirs, doc, out


def test_export_configs_matches_java(backend: Backend, tmp_path: Path) -> None:
    ours, theirs, doc, out = run_both(backend, tmp_path, "exportConfigs", "-c", backend.cluster)
    check_documented("exportConfigs", doc)
    assert doc["file"] == str(ours / "configs.json") and doc["outcome"] == "ok"
    mine = json.loads((ours / "configs.json").read_text())
    assert mine["clusterScale"] == {"namesrvSize": 1, "masterBrokerSize": 2, "slaveBrokerSize": 0}
    assert sorted(mine["brokerConfigs"]) == ["broker-a", "broker-b"]
    assert "success" in out, out
    assert json.loads((theirs / "configs.json").read_text()) == mine


def test_export_metrics_matches_java(backend: Backend, tmp_path: Path) -> None:
    ours, theirs, doc, out = run_both(backend, tmp_path, "exportMetrics", "-c", backend.cluster)
    check_documented("exportMetrics", doc)
    mine = json.loads((ours / "metrics.json").read_text())
    assert "success" in out, out
    javas = json.loads((theirs / "metrics.json").read_text())
    assert shape(mine) == shape(javas)
    for name in ("broker-a", "broker-b"):
        m, j = mine["evaluateReport"][name], javas["evaluateReport"][name]
        assert m["runtimeEnv"] == j["runtimeEnv"]
        for key in ("topicSize", "groupSize"):
            assert m["runtimeQuota"][key] == j["runtimeQuota"][key], (name, key)
        assert m["runtimeVersion"]["rocketmqVersion"] == j["runtimeVersion"]["rocketmqVersion"]


def shape(doc: Any) -> Any:
    """Keys all the way down (values replaced by their kind), to compare documents whose figures move."""
    if isinstance(doc, dict):
        return {k: shape(v) for k, v in doc.items()}
    return "number" if isinstance(doc, int | float) and not isinstance(doc, bool) else type(doc).__name__


def test_export_metadata_cluster_form_matches_java(backend: Backend, tmp_path: Path) -> None:
    topic, group = new_topic("Export"), f"G_{uuid.uuid4().hex[:8]}"
    assert mq("updateTopic", *ns(backend), "-c", backend.cluster, "-t", topic, "-w", "4").code == 0
    wait_for_route(backend, topic, lambda d: len(d["queues"]) == 2)
    asyncio.run(create_group(backend, group))

    ours, theirs, doc, out = run_both(backend, tmp_path, "exportMetadata", "-c", backend.cluster)
    check_documented("exportMetadata", doc)
    mine = json.loads((ours / "metadata.json").read_text())
    assert "success" in out, out
    javas = json.loads((theirs / "metadata.json").read_text())
    assert set(mine) == set(javas) == {"topicConfigTable", "subscriptionGroupTable", "exportTime"}
    fields = ("topicName", "readQueueNums", "writeQueueNums", "perm", "topicFilterType", "topicSysFlag", "order")
    assert {n: [t[f] for f in fields] for n, t in mine["topicConfigTable"].items()} == {
        n: [t[f] for f in fields] for n, t in javas["topicConfigTable"].items()
    }
    assert mine["topicConfigTable"][topic]["writeQueueNums"] == 8  # 4 on each master
    assert {n: g["retryQueueNums"] for n, g in mine["subscriptionGroupTable"].items()} == {
        n: g["retryQueueNums"] for n, g in javas["subscriptionGroupTable"].items()
    }
    assert group in mine["subscriptionGroupTable"]


async def create_group(b: Backend, group: str) -> None:
    async with AdminClient([b.namesrv_addr]) as admin:
        body = json.dumps({"groupName": group, "retryQueueNums": 1, "consumeEnable": True}).encode()
        for addr in b.brokers.values():
            cmd = RemotingCommand(code=RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, body=body)
            resp = await admin.transport.request(addr, cmd, 10)
            assert resp.code == 0, resp.remark
