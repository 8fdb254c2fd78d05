"""The issue-8 topic commands against real clusters (Apache 5.3 and 4.9, Apache 5.5 once the harness has it)
and the embedded one; every change ours makes is confirmed by the Java mqadmin of the same version."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from mqadmin.admin import AdminClient
from mqadmin.model.route import TopicRouteData
from tests.applicability import not_applicable
from tests.cli.test_json_contract import contract_violations
from tests.conformance.backends import Backend
from tests.conformance.test_cli_commands import both_brokers, mq, on_cluster, rows, wait_for_route
from tests.conftest import wait_until
from tests.realrmq.apache import remoting_request

pytestmark = pytest.mark.conformance

UPDATE_CONSUMER_OFFSET = 15


def new_name(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def version_of(backend: Backend) -> tuple[int, ...]:
    """``V5_3_3`` → (5, 3, 3)."""
    return tuple(int(p) for p in backend.version_desc.lstrip("V").split("_")[:3])


def java(backend: Backend, *args: str) -> str:
    assert backend.java_mqadmin is not None
    return backend.java_mqadmin(list(args))


def java_route(backend: Backend, topic: str) -> dict[str, Any]:
    out = java(backend, "topicRoute", "-t", topic)
    return json.loads(json.dumps(_route_json(out)))


def _route_json(out: str) -> Any:
    from mqadmin.wire import fastjson

    return fastjson.loads(out[out.index("{") : out.rindex("}") + 1].encode())


def ours_route(backend: Backend, topic: str) -> TopicRouteData:
    async def read() -> TopicRouteData:
        async with AdminClient([backend.namesrv_addr]) as admin:
            return await admin.topic_route(topic)

    return asyncio.run(read())


def shape_ok(command: str, doc: Any) -> bool:
    return not contract_violations(command, doc)


# --- updateTopicPerm ---------------------------------------------------------------------------------


def test_update_topic_perm_changes_only_the_perm_and_java_sees_it(backend: Backend) -> None:
    topic = new_name("Perm")
    assert mq("updateTopic", *on_cluster(backend), "-t", topic, "-r", "4", "-w", "4").code == 0
    r = mq("--format", "json", "updateTopicPerm", *on_cluster(backend), "-t", topic, "-p", "4")
    assert r.code == 0, r.err
    assert [(x["status"], x["changes"]) for x in r.json()["results"]] == [
        ("updated", {"perm": {"old": 6, "new": 4}})
    ] * 2
    assert shape_ok("updateTopicPerm", r.json())
    wait_for_route(backend, topic, lambda d: both_brokers(d) and all(q["perm"] == 4 for q in d["queues"]))
    seen = java_route(backend, topic)
    assert sorted(
        (q["brokerName"], q["readQueueNums"], q["writeQueueNums"], q["perm"]) for q in seen["queueDatas"]
    ) == [
        ("broker-a", 4, 4, 4),
        ("broker-b", 4, 4, 4),
    ]
    again = mq("updateTopicPerm", *on_cluster(backend), "-t", topic, "-p", "4")
    assert [row[2] for row in rows(again.out)[1:]] == ["unchanged", "unchanged"]


def test_update_topic_perm_on_one_broker_and_a_missing_topic(backend: Backend) -> None:
    topic = new_name("PermOne")
    addr = backend.brokers["broker-b"]
    assert mq("updateTopic", "-n", backend.namesrv_addr, "-b", addr, "-t", topic).code == 0
    r = mq("updateTopicPerm", "-n", backend.namesrv_addr, "-c", backend.cluster, "-t", topic, "-p", "2")
    assert r.code == 0, r.err
    assert [row[:3] for row in rows(r.out)[1:]] == [
        ["broker-a", backend.brokers["broker-a"], "not"],  # "not found": broker-a never gets the topic
        ["broker-b", addr, "updated"],
    ]
    wait_for_route(backend, topic, lambda d: [q["perm"] for q in d["queues"]] == [2])
    assert [q["perm"] for q in java_route(backend, topic)["queueDatas"]] == [2]
    missing = mq("updateTopicPerm", *on_cluster(backend), "-t", new_name("Missing"), "-p", "4")
    assert missing.code == 1 and "does not exist" in missing.err


# --- updateTopicList -----------------------------------------------------------------------------------


def _write(tmp_path: Path, entries: list[dict[str, Any]]) -> str:
    path = tmp_path / f"{uuid.uuid4().hex[:8]}.json"
    path.write_text(json.dumps(entries))
    return str(path)


def test_update_topic_list_creates_topics_that_java_lists(backend: Backend, tmp_path: Path) -> None:
    names = [new_name("List") for _ in range(3)]
    entries: list[dict[str, Any]] = [
        {"topicName": names[0], "readQueueNums": 4, "writeQueueNums": 4},
        {"topicName": names[1], "perm": 4},
        {"topicName": names[2], "writeQueueNums": 2, "readQueueNums": 2, "attributes": {"+message.type": "FIFO"}},
    ]
    path = _write(tmp_path, entries)
    r = mq("--debug", "--format", "json", "updateTopicList", *on_cluster(backend), "-f", path)
    assert r.code == 0, r.err
    assert {x["status"] for x in r.json()["results"]} == {"created"} and len(r.json()["results"]) == 6
    assert shape_ok("updateTopicList", r.json())
    sent = [line for line in r.err.splitlines() if line.startswith("mqadmin: >")]
    lists = sum("UPDATE_AND_CREATE_TOPIC_LIST(18)" in line for line in sent)
    singles = sum("UPDATE_AND_CREATE_TOPIC(17)" in line for line in sent)
    # 5.3+: one list request per broker does it all; older brokers (their version says so) one request per topic
    assert (lists, singles) == ((2, 0) if version_of(backend) >= (5, 3, 0) else (0, 6))
    for name in names:
        wait_for_route(backend, name, both_brokers)
    listed = set(java(backend, "topicList").split())
    assert set(names) <= listed
    seen = java_route(backend, names[0])
    assert {(q["readQueueNums"], q["writeQueueNums"], q["perm"]) for q in seen["queueDatas"]} == {(4, 4, 6)}
    assert {q["readQueueNums"] for q in java_route(backend, names[1])["queueDatas"]} == {16}  # Java's default

    if version_of(backend) >= (5, 0, 0):

        async def attrs() -> list[dict[str, str]]:
            async with AdminClient([backend.namesrv_addr]) as admin:
                return [(await admin.read_topic_config(a, names[2]))[0].attributes for a in backend.brokers.values()]

        assert asyncio.run(attrs()) == [{"message.type": "FIFO"}] * 2

    again = mq("updateTopicList", *on_cluster(backend), "-f", path)
    assert again.code == 0 and {row[3] for row in rows(again.out)[1:]} == {"unchanged"}


def test_a_file_java_applied_is_unchanged_for_us(backend: Backend, tmp_path: Path) -> None:
    """The same file means the same topics to Java's updateTopicList and to ours (defaults included)."""
    if version_of(backend) < (5, 0, 0):
        not_applicable(
            f"{backend.name}: its Java mqadmin has no updateTopicList (added in 5.x)"
            if backend.name != "embedded"
            else "embedded: Java's updateTopicList needs the broker's list request, checked on Apache 5.3"
        )
    names = [new_name("JavaList") for _ in range(2)]
    path = _write(tmp_path, [{"topicName": names[0], "writeQueueNums": 3, "readQueueNums": 3}, {"topicName": names[1]}])
    out = java(backend, "updateTopicList", "-c", backend.cluster, "-f", path)
    assert "success" in out, out
    for name in names:
        wait_for_route(backend, name, both_brokers)
    r = mq("updateTopicList", *on_cluster(backend), "-f", path)
    assert r.code == 0, r.err
    assert {row[3] for row in rows(r.out)[1:]} == {"unchanged"}


# --- topicClusterList, allocateMQ, topicList -c ----------------------------------------------------------


def test_topic_cluster_list_matches_java(backend: Backend) -> None:
    topic = new_name("Clusters")
    assert mq("updateTopic", *on_cluster(backend), "-t", topic).code == 0
    wait_for_route(backend, topic, both_brokers)
    r = mq("topicClusterList", "-n", backend.namesrv_addr, "-t", topic)
    assert (r.code, r.out.split()) == (0, [backend.cluster])
    assert java(backend, "topicClusterList", "-t", topic).split() == [backend.cluster]


def test_allocate_mq_shares_the_same_queues_as_java(backend: Backend) -> None:
    topic = new_name("Alloc")
    assert mq("updateTopic", *on_cluster(backend), "-t", topic, "-r", "5", "-w", "5").code == 0
    wait_for_route(backend, topic, both_brokers)
    clients = ["10.0.0.3", "10.0.0.1", "10.0.0.2"]
    r = mq("--format", "json", "allocateMQ", "-n", backend.namesrv_addr, "-t", topic, "-i", ",".join(clients))
    assert r.code == 0, r.err
    ours = r.json()["result"]
    out = java(backend, "allocateMQ", "-t", topic, "-i", ",".join(clients))
    theirs = json.loads(out[out.index("{") : out.rindex("}") + 1])["result"]

    def queues(result: dict[str, list[dict[str, Any]]]) -> list[tuple[str, int]]:
        return sorted((q["brokerName"], q["queueId"]) for qs in result.values() for q in qs)

    assert queues(ours) == queues(theirs) and len(queues(ours)) == 10
    assert sorted(len(v) for v in ours.values()) == sorted(len(v) for v in theirs.values()) == [3, 3, 4]
    # ours is what a consumer's rebalance gives: sorted queues in runs, the first (sorted) client the largest
    assert [q["queueId"] for q in ours["10.0.0.1"]] == [0, 1, 2, 3]


def test_topic_list_cluster_model_matches_java(backend: Backend) -> None:
    topic, group = new_name("Usage"), new_name("UsageGroup")
    assert mq("updateTopic", *on_cluster(backend), "-t", topic).code == 0
    wait_for_route(backend, topic, both_brokers)
    java(backend, "updateSubGroup", "-c", backend.cluster, "-g", group)
    header = {"consumerGroup": group, "topic": topic, "queueId": "0", "commitOffset": "0"}
    for addr in backend.brokers.values():  # Java asks one broker of the route (either), mqadmin asks each
        code, _, _ = remoting_request(addr, UPDATE_CONSUMER_OFFSET, header)
        assert code == 0

    def ours() -> list[list[str]]:
        r = mq("topicList", "-n", backend.namesrv_addr, "-c")
        assert r.code == 0, r.err
        return [row for row in rows(r.out)[1:] if topic in row]

    assert wait_until(lambda: ours() == [[backend.cluster, topic, group]], timeout=30, interval=1, what="our row")
    theirs = [line.split() for line in java(backend, "topicList", "-c").splitlines() if topic in line.split()]
    assert theirs == [[backend.cluster, topic, group]]
    doc = mq("--format", "json", "topicList", "-n", backend.namesrv_addr, "-c").json()
    assert shape_ok("topicList", doc)
    assert not any(t["topic"].startswith(("%RETRY%", "%DLQ%")) for t in doc["topics"])


# --- static topics ----------------------------------------------------------------------------------------


def _mapping_leaders(route: TopicRouteData) -> dict[str, list[int]]:
    return {b: sorted(m.curr_id_map) for b, m in sorted(route.queue_mappings.items())}


def test_static_topics_create_expand_and_remap_as_java_sees_them(backend: Backend) -> None:
    topic = new_name("Static")
    n = ["-n", backend.namesrv_addr, "-t", topic]
    r = mq("--format", "json", "updateStaticTopic", *n, "-qn", "4", "-c", backend.cluster)
    if version_of(backend) < (5, 0, 0):
        assert r.code == 1 and r.out == ""
        assert "cannot host static topics" in r.err and "nothing was changed" in r.err
        assert "Static" not in java(backend, "topicList")
        return
    assert r.code == 0, r.err
    try:  # the backend is shared: Java 5.5.0's exportMetrics and exportMetadata fail with a static topic in it
        _create_expand_and_remap(backend, topic, n, r.json())
    finally:
        mq("deleteTopic", "-n", backend.namesrv_addr, "-c", backend.cluster, "-t", topic)


def _create_expand_and_remap(backend: Backend, topic: str, n: list[str], created: dict[str, Any]) -> None:
    assert shape_ok("updateStaticTopic", created)
    route = wait_until(
        lambda: (rt := ours_route(backend, topic)) and sum(len(v) for v in _mapping_leaders(rt).values()) == 4 and rt,
        timeout=60,
        what="the static topic's mapping in the route",
    )
    assert sorted(len(v) for v in _mapping_leaders(route).values()) == [2, 2]
    seen = java_route(backend, topic)["topicQueueMappingByBroker"]
    assert {b: m["totalQueues"] for b, m in seen.items()} == {"broker-a": 4, "broker-b": 4}

    assert mq("updateStaticTopic", *n, "-qn", "6", "-c", backend.cluster).code == 0
    remap = mq("--format", "json", "remappingStaticTopic", *n, "-b", "broker-a")
    assert remap.code == 0, remap.err
    assert shape_ok("remappingStaticTopic", remap.json())
    assert remap.json()["plan"]["brokerToMapIn"] == ["broker-a"]

    def remapped() -> bool:
        got = java_route(backend, topic)["topicQueueMappingByBroker"]
        return (
            sorted(int(k) for k in got["broker-a"]["currIdMap"]) == list(range(6)) and not got["broker-b"]["currIdMap"]
        )

    assert wait_until(remapped, timeout=60, interval=2, what="Java's topicRoute showing broker-a leading all 6 queues")


# --- lite topics -----------------------------------------------------------------------------------------


def test_lite_commands_need_5_5_and_say_so(backend: Backend) -> None:
    if version_of(backend) >= (5, 5, 0) or backend.name == "embedded":
        not_applicable(f"{backend.name} has lite topics: test_lite_topics_on_5_5 covers it")
    r = mq("getBrokerLiteInfo", "-n", backend.namesrv_addr, "-c", backend.cluster)
    assert r.code == 1
    assert r.out.count("REQUEST_CODE_NOT_SUPPORTED (3)") == 2 and "lite topics need RocketMQ 5.5" in r.out


def test_lite_requests_on_what_is_not_lite_answered_as_5_5(backend: Backend) -> None:
    """The embedded broker has no lite topics or groups (it refuses message.type=LITE) and answers the six lite
    requests as Apache 5.5 answers them for a normal topic and group: Apache's codes and remarks."""
    if backend.name not in ("apache-5.5", "embedded"):
        not_applicable(f"{backend.name}: lite topics need 5.5 brokers")
    topic, group = new_name("Plain"), new_name("PlainReaders")
    assert mq("updateTopic", *on_cluster(backend), "-t", topic).code == 0
    wait_for_route(backend, topic, both_brokers)
    assert mq("updateSubGroup", *on_cluster(backend), "-g", group).code == 0
    n = ["-n", backend.namesrv_addr]
    info = mq("--format", "json", "getBrokerLiteInfo", *n, "-b", backend.brokers["broker-a"]).json()["results"][0][
        "info"
    ]
    assert (info["storeType"], info["maxLmqNum"], info["currentLmqNum"], info["liteSubscriptionCount"]) == (
        "default",
        20000,
        0,
        0,
    )
    assert (info["topicMeta"], info["groupMeta"]) == ({}, {})
    not_lite = f"INVALID_PARAMETER (29): Topic [{topic}] type not match."
    for command, args, reason in [
        ("getParentTopicInfo", ["-p", topic], not_lite),
        ("getLiteTopicInfo", ["-p", topic, "-l", "room-1"], not_lite),
        ("getLiteClientInfo", ["-p", topic, "-g", group, "-c", "nobody@1"], not_lite),
        (
            "getLiteGroupInfo",
            ["-p", topic, "-g", group],
            f"INVALID_PARAMETER (29): Group [{group}] is not a LITE group.",
        ),
        (
            "triggerLiteDispatch",
            ["-p", topic, "-g", group],
            f"INVALID_PARAMETER (29): Group [{group}] is not a LITE group.",
        ),
    ]:
        r = mq("--format", "json", command, *n, *args)
        assert r.code == 1, (command, r.out)
        assert [x["reason"] for x in r.json()["results"]] == [reason, reason], command


def test_a_group_bound_to_a_topic_without_lite_topics_has_no_lag(backend: Backend) -> None:
    """lite.bind.topic on a normal topic: Apache 5.5 and the embedded broker (which has no lite topics) answer the
    group's lag as empty and a dispatch as done."""
    if backend.name not in ("apache-5.5", "embedded"):
        not_applicable(f"{backend.name}: lite groups need 5.5 brokers")
    topic, group = new_name("Plain"), new_name("Bound")
    assert mq("updateTopic", *on_cluster(backend), "-t", topic).code == 0
    wait_for_route(backend, topic, both_brokers)
    bound = mq("updateSubGroup", *on_cluster(backend), "-g", group, "--attributes", f"+lite.bind.topic={topic}")
    assert bound.code == 0, bound.out + bound.err
    n = ["-n", backend.namesrv_addr, "-p", topic, "-g", group]
    lag = mq("--format", "json", "getLiteGroupInfo", *n).json()
    assert (lag["totalLagCount"], lag["lagCountTopK"], lag["earliestUnconsumedTimestamp"]) == (0, [], None)
    assert [r["status"] for r in lag["results"]] == ["ok", "ok"]
    one = mq("--format", "json", "getLiteGroupInfo", *n, "-l", "room-1").json()
    assert [r["info"]["totalLagCount"] for r in one["results"]] == [None, None]  # -1: nothing in that queue
    done = mq("--format", "json", "triggerLiteDispatch", *n).json()
    assert [r["status"] for r in done["results"]] == ["ok", "ok"]


def test_lite_topics_on_5_5(backend: Backend) -> None:
    if version_of(backend) < (5, 5, 0):
        not_applicable(f"{backend.name}: lite topics need 5.5 brokers")
    parent, group = new_name("Chats"), new_name("ChatReaders")
    assert mq("updateTopic", *on_cluster(backend), "-t", parent, "-a", "+message.type=LITE").code == 0
    wait_for_route(backend, parent, both_brokers)
    java(backend, "updateSubGroup", "-c", backend.cluster, "-g", group, "--attributes", f"+lite.bind.topic={parent}")
    n = ["-n", backend.namesrv_addr]
    for command, args in {
        "getBrokerLiteInfo": ["-c", backend.cluster, "-d"],
        "getParentTopicInfo": ["-p", parent],
        "getLiteTopicInfo": ["-p", parent, "-l", "room-1"],
        "getLiteGroupInfo": ["-p", parent, "-g", group],
        "getLiteClientInfo": ["-p", parent, "-g", group, "-c", "nobody@1"],
        "triggerLiteDispatch": ["-p", parent, "-g", group],
    }.items():
        r = mq("--format", "json", command, *n, *args)
        assert r.code == 0, (command, r.err, r.out)
        assert shape_ok(command, r.json()), command
        assert [x["name"] for x in r.json()["results"]] == ["broker-a", "broker-b"]
    info = mq("--format", "json", "getParentTopicInfo", *n, "-p", parent).json()
    assert {x["info"]["topic"] for x in info["results"]} == {parent}
    assert {g for x in info["results"] for g in x["info"]["groups"]} <= {group}
    java_out = java(backend, "getParentTopicInfo", "-p", parent)
    assert "broker-a" in java_out and "error" not in java_out
