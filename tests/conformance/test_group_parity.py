"""Subscription-group commands against real clusters (Apache RocketMQ 5.3.x, 4.9.x and the embedded one), each
effect confirmed by the real Java mqadmin of the same version (``getConsumerConfig -g``, which reads every
broker's group table as the broker holds it)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conformance.backends import Backend
from tests.conformance.test_cli_commands import mq, new_topic, on_cluster, rows, wait_for_route

pytestmark = pytest.mark.conformance


def java_groups(b: Backend, group: str) -> dict[str, dict[str, str]]:
    """Java ``getConsumerConfig -g``: broker name -> field -> value as Java prints it (``true``, ``7``, toString)."""
    assert b.java_mqadmin is not None
    out = b.java_mqadmin(["getConsumerConfig", "-g", group])
    configs: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for line in out.splitlines():
        header = re.fullmatch(r"=+([^=:]*):([^=]*)=+", line.strip())
        if header:
            current = configs.setdefault(header.group(2), {})
        elif current is not None and "=" in line:
            key, _, value = line.partition("=")
            current[key.strip()] = value.strip()
    return configs


def version(b: Backend) -> tuple[int, ...]:
    """``V5_3_3`` -> (5, 3, 3)."""
    return tuple(int(p) for p in b.version_desc.lstrip("V").split("_"))


def is_49(b: Backend) -> bool:
    return version(b) < (5,)


def results(r) -> list[str]:
    return [row[2] for row in rows(r.out)[1:]]


def test_update_sub_group_changes_only_what_is_given_and_java_sees_it(backend: Backend) -> None:
    group = new_topic("Sub")
    g = [*on_cluster(backend), "-g", group]
    created = mq("updateSubGroup", *g, "-r", "3", "-q", "2", "-d", "false")
    assert created.code == 0, created.err
    assert rows(created.out) == [
        ["BROKER", "ADDRESS", "RESULT"],
        *[[name, addr, "created"] for name, addr in sorted(backend.brokers.items())],
    ]
    again = mq("updateSubGroup", *g, "-r", "3", "-q", "2", "-d", "false")
    assert (again.code, results(again)) == (0, ["unchanged", "unchanged"]), again.out + again.err
    changed = mq("updateSubGroup", *g, "-r", "5")
    assert changed.code == 0, changed.err
    assert [row[2:] for row in rows(changed.out)[1:]] == [["updated", "retryMaxTimes", "3→5"]] * 2

    java = java_groups(backend, group)
    assert sorted(java) == sorted(backend.brokers)
    for cfg in java.values():  # Java's own updateSubGroup -r 5 would have reset broadcast (and fromMin) to false
        seen = (cfg["retryMaxTimes"], cfg["retryQueueNums"], cfg["consumeBroadcastEnable"], cfg["consumeFromMinEnable"])
        assert seen == ("5", "2", "false", "true"), cfg


def test_5x_settings_reach_the_broker_or_are_warned_about(backend: Backend) -> None:
    group = new_topic("Policy")
    policy = '{"type":"EXPONENTIAL","exponentialRetryPolicy":{"initial":1000,"max":60000,"multiplier":3}}'
    args = ["updateSubGroup", *on_cluster(backend), "-g", group, "-o", "true", "-p", policy, "-s", "false"]
    first = mq(*args)
    assert first.code == 0, first.err
    if is_49(backend):
        assert "broker-a does not keep consumeMessageOrderly, groupRetryPolicy" in first.err
        assert all(cfg["consumeEnable"] == "false" for cfg in java_groups(backend, group).values())
    else:
        assert "does not keep" not in first.err
        for cfg in java_groups(backend, group).values():
            assert (cfg["consumeMessageOrderly"], cfg["consumeEnable"]) == ("true", "false")
            assert "type=EXPONENTIAL" in cfg["groupRetryPolicy"]
            assert all(f"{k}={v}" in cfg["groupRetryPolicy"] for k, v in (("initial", 1000), ("max", 60000)))
    again = mq(*args)
    assert (again.code, results(again)) == (0, ["unchanged", "unchanged"]), again.out + again.err


def test_a_group_java_created_reads_the_same_and_repeats_as_unchanged(backend: Backend) -> None:
    group = new_topic("JavaMade")
    assert backend.java_mqadmin is not None
    out = backend.java_mqadmin(["updateSubGroup", "-c", backend.cluster, "-g", group, "-r", "7", "-q", "3"])
    assert out.count("create subscription group to") == 2, out

    ours = mq("--format", "json", "getConsumerConfig", "-n", backend.namesrv_addr, "-g", group)
    assert ours.code == 0, ours.err
    java = java_groups(backend, group)
    configs = {e["name"]: e["config"] for e in ours.json()["results"] if e["status"] == "ok"}
    assert sorted(configs) == sorted(java) == sorted(backend.brokers)
    for name, cfg in configs.items():
        for key, value in cfg.items():
            if isinstance(value, bool | int) and key in java[name]:
                assert json.dumps(value) == java[name][key], (name, key, value, java[name][key])
        # Java's tool sets these two to false when -d/-m are not given
        assert (cfg["retryMaxTimes"], cfg["consumeBroadcastEnable"], cfg["consumeFromMinEnable"]) == (7, False, False)

    same = mq("updateSubGroup", *on_cluster(backend), "-g", group, "-r", "7", "-q", "3", "-d", "false", "-m", "false")
    assert (same.code, results(same)) == (0, ["unchanged", "unchanged"]), same.out
    kept = mq("updateSubGroup", *on_cluster(backend), "-g", group, "-r", "1", "--if-not-exists")
    assert (kept.code, results(kept)) == (0, ["unchanged", "unchanged"]), kept.out
    assert {cfg["retryMaxTimes"] for cfg in java_groups(backend, group).values()} == {"7"}


def test_update_sub_group_list_java_sees_every_group(backend: Backend, tmp_path: Path) -> None:
    one, two = new_topic("ListA"), new_topic("ListB")
    entries = [
        {"groupName": one, "retryMaxTimes": 4, "consumeBroadcastEnable": False},
        {"groupName": two, "consumeEnable": False},
    ]
    path = tmp_path / "groups.json"
    path.write_text(json.dumps(entries))
    r = mq("--debug", "updateSubGroupList", *on_cluster(backend), "-f", str(path))
    assert r.code == 0, r.err
    assert [row[3] for row in rows(r.out)[1:]] == ["created"] * 4
    # 5.3.1+ brokers (and the embedded one) take the whole list in one request; 4.9 one request per group
    assert ("UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST(225)" in r.err) != is_49(backend), r.err

    for cfg in java_groups(backend, one).values():
        assert (cfg["retryMaxTimes"], cfg["consumeBroadcastEnable"], cfg["consumeEnable"]) == ("4", "false", "true")
    assert {cfg["consumeEnable"] for cfg in java_groups(backend, two).values()} == {"false"}
    again = mq("updateSubGroupList", *on_cluster(backend), "-f", str(path))
    assert (again.code, [row[3] for row in rows(again.out)[1:]]) == (0, ["unchanged"] * 4), again.out


def test_group_attributes_where_the_broker_has_them(backend: Backend) -> None:
    group = new_topic("Attr")
    addr = backend.brokers["broker-a"]
    r = mq("updateSubGroup", "-n", backend.namesrv_addr, "-b", addr, "-g", group, "--attributes", "+priority.factor=5")
    if backend.name == "embedded" or version(backend) >= (5, 5):  # 5.5's group attributes (the embedded broker too)
        assert r.code == 0, r.err
        assert java_groups(backend, group)["broker-a"]["attributes"] == "{priority.factor=5}"
    elif is_49(backend):  # no attributes at all: stored without them, and said so
        assert r.code == 0 and "broker-a does not keep attributes" in r.err, r.err
    else:  # 5.1.3 to 5.4 store attributes but know no group attribute key
        assert r.code == 1 and "unsupported key" in r.out, r.out + r.err
        assert java_groups(backend, group) == {}


def test_delete_sub_group_java_no_longer_finds_it(backend: Backend) -> None:
    group = new_topic("Gone")
    g = [*on_cluster(backend), "-g", group]
    assert mq("updateSubGroup", *g).code == 0
    retry = f"%RETRY%{group}"
    made = mq(
        "updateTopic", "-n", backend.namesrv_addr, "-b", backend.brokers["broker-a"], "-t", retry, "-r", "1", "-w", "1"
    )
    assert made.code == 0, made.err
    wait_for_route(backend, retry, lambda d: len(d["queues"]) == 1)

    dry = mq("--format", "json", "deleteSubGroup", *g, "--dry-run")
    assert dry.code == 0, dry.err
    doc = dry.json()
    assert [e["status"] for e in doc["results"]] == ["would delete"] * 2
    assert [e["status"] for e in doc["topics"][0]["results"]] == ["would delete", "not found"]
    assert sorted(java_groups(backend, group)) == sorted(backend.brokers)  # the dry run changed nothing

    gone = mq("--format", "json", "deleteSubGroup", *g, "-r", "true")
    assert gone.code == 0, gone.err
    doc = gone.json()
    assert [e["status"] for e in doc["results"]] == ["deleted"] * 2
    assert [e["status"] for e in doc["topics"][0]["results"]] == ["deleted", "not found", "deleted"]
    assert java_groups(backend, group) == {}
    assert mq("topicRoute", "-n", backend.namesrv_addr, "-t", retry).code == 1

    again = mq("--format", "json", "deleteSubGroup", *g)
    assert again.code == 1 and "does not exist" in again.err
    assert [e["status"] for e in again.json()["results"]] == ["not found"] * 2
    assert mq("deleteSubGroup", *g, "--if-exists").code == 0
    assert mq("getConsumerConfig", "-n", backend.namesrv_addr, "-g", group).code == 1
    assert java_groups(backend, group) == {}  # reading it (ours and Java's) did not create it
