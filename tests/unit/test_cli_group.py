"""updateSubGroup, updateSubGroupList, deleteSubGroup and getConsumerConfig through the CLI entry point: what a
broker keeps against the embedded servers (``live``); what is sent, version differences and failures over the mock
transport, with brokers that keep groups and topics as each version does."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from mqadmin.model.group import GroupRetryPolicy, GroupWrite, SubscriptionGroupConfig
from mqadmin.model.rpc import groups, topics
from mqadmin.model.rpc.spec import Decoded
from mqadmin.model.static_topic import StaticTopicConfig
from mqadmin.model.topic import TopicConfig, alter_attributes
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode
from tests.embedded import ThreadedCluster
from tests.mock_transport import Answer, MockTransport, Result, by_method, cluster_info, ok, refuse, topic_route
from tests.unit.cli_helpers import A, B, Cli, assert_one_line_error, rows

C = ["-c", "DefaultCluster"]
SLAVE_A = "127.0.0.1:10912"


@dataclass
class GroupBroker:
    """A scripted broker's groups and topics as a broker of ``version`` keeps them (4.9: none of the 5.x
    settings; before 5.1.3 no attributes; the list request from 5.3.1), attribute operations applied to what
    it holds. ``hang``: it never answers."""

    name: str
    addr: str
    version: int = 479
    groups: dict[str, SubscriptionGroupConfig] = field(default_factory=dict)
    topics: dict[str, TopicConfig] = field(default_factory=dict)
    hang: bool = False

    def handle(self, req: Decoded[Any, Any]) -> Result:
        return _never() if self.hang else by_method(self, req)

    def get_all_subscriptiongroup_config(self, req: Decoded[None, None]) -> Answer:
        return ok(dict(self.groups))

    def update_and_create_subscriptiongroup(self, req: Decoded[None, GroupWrite]) -> Answer:
        return self._write([req.body])

    def update_and_create_subscriptiongroup_list(self, req: Decoded[None, list[GroupWrite]]) -> Result:
        return self._write(req.body) if self.version >= 475 else by_method(None, req)

    def delete_subscriptiongroup(self, req: Decoded[groups.DeleteGroupHeader, None]) -> Answer:
        self.groups.pop(req.header.group_name, None)
        return ok()

    def get_all_topic_config(self, req: Decoded[None, None]) -> Answer:
        return ok(topics.TopicTable(self.topics))

    def get_topic_config(self, req: Decoded[topics.GetTopicConfigHeader, None]) -> Result:
        if self.version < 413:
            return by_method(None, req)
        cfg = self.topics.get(req.header.topic)
        return ok(StaticTopicConfig(cfg)) if cfg else refuse(ResponseCode.TOPIC_NOT_EXIST, "No topic in this broker.")

    def delete_topic_in_broker(self, req: Decoded[topics.TopicHeader, None]) -> Answer:
        self.topics.pop(req.header.topic, None)
        return ok()

    def _write(self, writes: list[GroupWrite]) -> Answer:
        for w in writes:
            old = self.groups.get(w.config.group_name)
            cfg = w.config.with_(attributes=alter_attributes(old.attributes if old else {}, w.attribute_ops))
            if self.version < 439:
                cfg = cfg.with_(attributes={})
            if self.version < 413:
                cfg = cfg.with_(consume_message_orderly=False, group_retry_policy=GroupRetryPolicy(),
                                group_sys_flag=0, consume_timeout_minute=15)  # fmt: skip
            self.groups[w.config.group_name] = cfg
        return ok()


async def _never() -> Answer:
    await asyncio.Event().wait()  # like a SIGSTOPped broker
    raise AssertionError("unreachable")


def serving(*brokers: tuple[GroupBroker, int]) -> MockTransport:
    """A name server knowing these brokers ((broker, id) each) and routing each topic to the masters holding it."""
    by_addr = {b.addr: b for b, _ in brokers}

    def handler(req: Decoded[Any, Any], addr: str) -> Result:
        if addr in by_addr:
            return by_addr[addr].handle(req)
        if req.cmd.code == RC.GET_BROKER_CLUSTER_INFO:
            return ok(cluster_info(*((b.name, bid, b.addr) for b, bid in brokers)))
        if req.cmd.code == RC.GET_ROUTEINFO_BY_TOPIC:
            held = [(b.name, b.addr) for b, bid in brokers if req.header.topic in b.topics and bid == 0]
            return ok(topic_route(*held)) if held else refuse(ResponseCode.TOPIC_NOT_EXIST, "No topic route info")
        if req.cmd.code == RC.DELETE_TOPIC_IN_NAMESRV:
            return ok()
        return by_method(None, req)

    return MockTransport(handler, version=brokers[0][0].version)


def two_brokers(monkeypatch, capsys, version: int = 479) -> tuple[Cli, GroupBroker, GroupBroker]:
    a, b = GroupBroker("broker-a", A, version), GroupBroker("broker-b", B, version)
    return Cli(monkeypatch, capsys, namesrvs=["127.0.0.1:9876"], transport=serving((a, 0), (b, 0))), a, b


@pytest.fixture
def cluster(monkeypatch, capsys) -> tuple[Cli, GroupBroker, GroupBroker]:
    return two_brokers(monkeypatch, capsys)


@pytest.fixture
def cli(cluster) -> Cli:
    return cluster[0]


def _bodies(cli: Cli, code: int) -> list[dict]:
    return [json.loads(c.body) for _, c in cli.transport.sent if c.code == code]


def codes_sent_to(cli: Cli, addr: str) -> list[int]:
    assert isinstance(cli.transport, MockTransport)
    return cli.transport.codes_sent_to(addr)


# --- against the embedded servers (what a broker keeps) ---------------------------------------------


def test_update_sub_group_created_unchanged_then_only_the_given_setting_changes(
    live: Cli, embedded: ThreadedCluster
) -> None:
    a, b = embedded.addr["broker-a"], embedded.addr["broker-b"]
    r = live("updateSubGroup", *C, "-g", "LiveOrders", "-d", "false")
    assert r.code == 0, r.err
    assert rows(r.out) == [
        ["BROKER", "ADDRESS", "RESULT"],
        ["broker-a", a, "created"],
        ["broker-b", b, "created"],
    ]
    want = SubscriptionGroupConfig("LiveOrders", consume_broadcast_enable=False)
    assert embedded.group("broker-a", "LiveOrders") == embedded.group("broker-b", "LiveOrders") == want

    r = live("updateSubGroup", *C, "-g", "LiveOrders", "-d", "false")
    assert (r.code, [row[2] for row in rows(r.out)[1:]]) == (0, ["unchanged", "unchanged"])

    r = live("updateSubGroup", *C, "-g", "LiveOrders", "-r", "3")
    assert r.code == 0, r.err
    assert [row[2:] for row in rows(r.out)[1:]] == [["updated", "retryMaxTimes", "16→3"]] * 2
    # Java's tool would also have reset consumeBroadcastEnable/consumeFromMinEnable to false: ours keeps them.
    assert embedded.group("broker-a", "LiveOrders") == want.with_(retry_max_times=3)


def test_update_sub_group_json_shape(live: Cli, embedded: ThreadedCluster) -> None:
    a = embedded.addr["broker-a"]
    embedded.create_group(
        "broker-a", SubscriptionGroupConfig("LiveShape", extra={"subscriptionDataSet": [{"topic": "T"}]})
    )
    r = live("--format", "json", "updateSubGroup", "-b", a, "-g", "LiveShape", "-r", "2")
    assert r.code == 0, r.err
    doc = r.json()
    (entry,) = doc["results"]
    assert doc["group"] == "LiveShape" and doc["target"] == {"brokerAddr": a} and doc["outcome"] == "ok"
    assert entry["status"] == "updated" and entry["changes"] == {"retryMaxTimes": {"old": 16, "new": 2}}
    assert entry["config"]["retryMaxTimes"] == 2 and entry["config"]["groupRetryPolicy"] == {"type": "CUSTOMIZED"}
    # A key mqadmin does not model is shown and sent back, not dropped.
    assert entry["config"]["subscriptionDataSet"] == [{"topic": "T"}]
    held = embedded.group("broker-a", "LiveShape")
    assert held is not None and held.extra == {"subscriptionDataSet": [{"topic": "T"}]}


def test_a_rerun_removes_retry_topics_a_broker_still_holds(live: Cli, embedded: ThreadedCluster) -> None:
    embedded.create_topic("broker-a", TopicConfig("%DLQ%LiveGone", 1, 1))  # the group itself is gone already
    r = live("deleteSubGroup", *C, "-g", "LiveGone")
    assert r.code == 0, r.err
    assert embedded.topic("broker-a", "%DLQ%LiveGone") is None and "%DLQ%LiveGone" in r.out


def test_get_consumer_config_shows_each_broker_that_has_the_group(live: Cli, embedded: ThreadedCluster) -> None:
    cfg = SubscriptionGroupConfig("LiveRead", retry_max_times=3, attributes={"priority.factor": "1"})
    embedded.request(embedded.addr["broker-a"], groups.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
                     body=GroupWrite(cfg, {"priority.factor": "1"}))  # fmt: skip
    r = live("getConsumerConfig", "-g", "LiveRead")
    assert r.code == 0, r.err
    table = rows(r.out)
    assert table[0] == ["CLUSTER", "BROKER", "SETTING", "VALUE"]
    assert ["DefaultCluster", "broker-a", "retryMaxTimes", "3"] in table
    assert ["DefaultCluster", "broker-a", "groupRetryPolicy", '{"type":"CUSTOMIZED"}'] in table
    assert ["DefaultCluster", "broker-a", "attributes", '{"priority.factor":"1"}'] in table
    assert {row[1] for row in table[1:]} == {"broker-a"}

    doc = live("--format", "json", "getConsumerConfig", "-g", "LiveRead").json()
    assert [(e["name"], e["status"], e["cluster"]) for e in doc["results"]] == [
        ("broker-a", "ok", "DefaultCluster"),
        ("broker-b", "not found", "DefaultCluster"),
    ]
    assert doc["results"][0]["config"]["retryMaxTimes"] == 3 and doc["results"][1]["config"] is None


def test_get_consumer_config_of_a_group_nobody_has(live: Cli) -> None:
    r = live("getConsumerConfig", "-g", "Nope")
    assert r.code == 1 and r.out == ""
    assert_one_line_error(r, "no broker has the group 'Nope'")


# --- updateSubGroup --------------------------------------------------------------------------------


def test_update_sub_group_sends_every_option(cli: Cli, cluster) -> None:
    _, a, _ = cluster
    policy = '{"type":"exponential","exponentialRetryPolicy":{"initial":1000}}'
    args = ["-s", "false", "-m", "false", "-d", "false", "-o", "true", "-q", "2", "-r", "5", "-i", "1", "-w", "2"]
    r = cli("updateSubGroup", "-b", a.addr, "-g", "All", *args, "-a", "false", "-p", policy, "--attributes", "+k=v")
    assert r.code == 0, r.err
    assert a.groups["All"] == SubscriptionGroupConfig(
        "All",
        consume_enable=False,
        consume_from_min_enable=False,
        consume_broadcast_enable=False,
        consume_message_orderly=True,
        retry_queue_nums=2,
        retry_max_times=5,
        broker_id=1,
        which_broker_when_consume_slowly=2,
        notify_consumer_ids_changed_enable=False,
        group_retry_policy=GroupRetryPolicy("EXPONENTIAL", (1000, 7_200_000, 2)),
        attributes={"k": "v"},
    )
    (body,) = _bodies(cli, RC.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP)
    assert body["attributes"] == {"+k": "v"}  # a create sends attributes as + operations


def test_if_not_exists_leaves_an_existing_group_as_it_is(cli: Cli, cluster) -> None:
    _, a, b = cluster
    a.groups["G"] = SubscriptionGroupConfig("G", retry_max_times=9)
    r = cli("updateSubGroup", *C, "-g", "G", "-r", "3", "--if-not-exists")
    assert r.code == 0, r.err
    assert [row[2] for row in rows(r.out)[1:]] == ["unchanged", "created"]
    assert a.groups["G"].retry_max_times == 9 and b.groups["G"].retry_max_times == 3
    assert RC.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP not in codes_sent_to(cli, a.addr)


def test_attribute_changes_send_only_operations_the_broker_accepts(cli: Cli, cluster) -> None:
    _, a, _ = cluster
    a.groups["G"] = SubscriptionGroupConfig("G", attributes={"priority.factor": "5", "lite.sub.model": "Shared"})
    r = cli("updateSubGroup", "-b", a.addr, "-g", "G", "--attributes", "+priority.factor=7,-lite.sub.model,-absent")
    assert r.code == 0, r.err
    (body,) = _bodies(cli, RC.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP)
    assert body["attributes"] == {"+priority.factor": "7", "-lite.sub.model": ""}  # no "-absent": brokers refuse it
    assert a.groups["G"].attributes == {"priority.factor": "7"}


def test_the_group_is_read_with_get_all_never_with_the_single_read_that_creates_it(cli: Cli, cluster) -> None:
    _, a, _ = cluster
    assert cli("updateSubGroup", "-b", a.addr, "-g", "G").code == 0
    assert cli("deleteSubGroup", "-b", a.addr, "-g", "G").code == 0
    assert cli("getConsumerConfig", "-g", "G").code == 1
    codes = codes_sent_to(cli, a.addr)
    assert RC.GET_ALL_SUBSCRIPTIONGROUP_CONFIG in codes and RC.GET_SUBSCRIPTIONGROUP_CONFIG not in codes


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["-g", "bad group"], ["illegal characters", "'bad group'"]),
        (["-g", "G" * 121], ["121 characters", "at most 120"]),
        (["-g", "G", "-s", "maybe"], ["-s takes true or false", "'maybe'"]),
        (["-g", "G", "-p", "{not json"], ["-p: bad retry policy"]),
        (["-g", "G", "-p", '{"type":"LINEAR"}'], ["'LINEAR' is not one of EXPONENTIAL, CUSTOMIZED"]),
        (["-g", "G", "-p", '{"customizedRetryPolicy":{"next":[-1]}}'], ["customizedRetryPolicy.next=-1"]),
        (["-g", "G", "--attributes", "+priority.factor=500"], ["priority.factor='500' must be an integer in 0..100"]),
        (["-g", "G", "--attributes", "k=v"], ["+key=value"]),
    ],
)
def test_update_sub_group_refuses_bad_input_before_sending(cli: Cli, cluster, args, fragments) -> None:
    r = cli("updateSubGroup", *C, *args)
    assert r.code == 2 and r.out == ""
    assert_one_line_error(r, *fragments)
    assert not [c for _, c in cli.transport.sent if c.code == RC.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP]


def test_a_slave_address_is_refused_and_the_master_named(monkeypatch, capsys) -> None:
    a, b, slave = GroupBroker("broker-a", A), GroupBroker("broker-b", B), GroupBroker("broker-a", SLAVE_A)
    cli = Cli(monkeypatch, capsys, namesrvs=["127.0.0.1:9876"], transport=serving((a, 0), (b, 0), (slave, 1)))
    r = cli("updateSubGroup", "-b", slave.addr, "-g", "G")
    assert r.code == 2
    assert_one_line_error(r, "is a slave (id 1) of broker-a", f"-b {a.addr}")


def test_older_brokers_are_told_apart_settings_they_do_not_keep_are_warned_about(monkeypatch, capsys) -> None:
    cli, _, _ = two_brokers(monkeypatch, capsys, version=409)  # 4.9.8: no consumeMessageOrderly, no attributes
    r = cli("updateSubGroup", *C, "-g", "G", "-o", "true", "-r", "2")
    assert r.code == 0, r.err
    assert "broker-a does not keep consumeMessageOrderly" in r.err
    again = cli("updateSubGroup", *C, "-g", "G", "-o", "true", "-r", "2")
    assert [row[2] for row in rows(again.out)[1:]] == ["unchanged", "unchanged"], again.out


def test_a_hanging_broker_is_a_partial_failure(cli: Cli, cluster) -> None:
    _, _, b = cluster
    b.hang = True
    r = cli("--timeout", "0.2", "--format", "json", "updateSubGroup", *C, "-g", "G")
    assert r.code == 3
    assert [(e["status"], e["config"] is None) for e in r.json()["results"]] == [("created", False), ("failed", True)]
    assert r.json()["outcome"] == "partial"


# --- updateSubGroupList ----------------------------------------------------------------------------


def _file(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_update_sub_group_list_one_request_per_broker_with_only_the_groups_that_change(
    cli: Cli, cluster, tmp_path
) -> None:
    _, a, b = cluster
    a.groups["Same"] = b.groups["Same"] = SubscriptionGroupConfig("Same", retry_max_times=2)
    doc = [
        {"groupName": "Same", "retryMaxTimes": 2},
        {"groupName": "New", "consumeEnable": False, "attributes": {"+priority.factor": "3", "lite.bind.topic": "T"}},
    ]
    path = _file(tmp_path, "groups.json", json.dumps(doc))
    r = cli("updateSubGroupList", *C, "-f", path)
    assert r.code == 0, r.err
    assert rows(r.out) == [
        ["GROUP", "BROKER", "ADDRESS", "RESULT"],
        ["New", "broker-a", a.addr, "created"],
        ["New", "broker-b", b.addr, "created"],
        ["Same", "broker-a", a.addr, "unchanged"],
        ["Same", "broker-b", b.addr, "unchanged"],
    ]
    lists = _bodies(cli, RC.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST)
    assert [[g["groupName"] for g in body["groupConfigList"]] for body in lists] == [["New"], ["New"]]
    assert a.groups["New"].attributes == {"priority.factor": "3", "lite.bind.topic": "T"}
    assert not a.groups["New"].consume_enable


def test_update_sub_group_list_from_toml_on_a_broker_without_the_list_request(monkeypatch, capsys, tmp_path) -> None:
    cli, a, _ = two_brokers(monkeypatch, capsys, version=473)  # 5.3.0: no UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST
    a.groups["Old"] = SubscriptionGroupConfig("Old")
    toml = """
[[group]]
groupName = "Old"
retryMaxTimes = 4

[[group]]
groupName = "Fresh"
groupRetryPolicy = { type = "CUSTOMIZED", customizedRetryPolicy = { next = [1000, 2000] } }
"""
    r = cli("--format", "json", "updateSubGroupList", "-b", a.addr, "-f", _file(tmp_path, "g.toml", toml))
    assert r.code == 0, r.err
    results = {e["group"]: e for e in r.json()["results"]}
    assert results["Old"]["changes"] == {"retryMaxTimes": {"old": 16, "new": 4}}
    assert results["Fresh"]["status"] == "created"
    assert a.groups["Fresh"].group_retry_policy == GroupRetryPolicy("CUSTOMIZED", customized=(1000, 2000))
    assert codes_sent_to(cli, a.addr).count(RC.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP) == 2
    assert not _bodies(cli, RC.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST)  # 473 < 475: not even tried


def test_update_sub_group_list_rows_per_group_when_a_broker_fails(cli: Cli, cluster, tmp_path) -> None:
    _, _, b = cluster
    b.hang = True
    path = _file(tmp_path, "g.json", '[{"groupName":"G1"},{"groupName":"G2"}]')
    r = cli("--timeout", "0.2", "--format", "json", "updateSubGroupList", *C, "-f", path)
    assert r.code == 3
    assert sorted((e["group"], e["name"], e["status"]) for e in r.json()["results"]) == [
        ("G1", "broker-a", "created"),
        ("G1", "broker-b", "failed"),
        ("G2", "broker-a", "created"),
        ("G2", "broker-b", "failed"),
    ]


class NoListBroker(GroupBroker):
    """A 5.3.1+ broker that does not support the list request after all, and refuses to create G2."""

    def update_and_create_subscriptiongroup_list(self, req: Decoded[None, list[GroupWrite]]) -> Result:
        return by_method(None, req)

    def update_and_create_subscriptiongroup(self, req: Decoded[None, GroupWrite]) -> Answer:
        if req.body.config.group_name == "G2":
            return refuse(ResponseCode.NO_PERMISSION, "no permission to create G2")
        return super().update_and_create_subscriptiongroup(req)


def test_update_sub_group_list_falls_back_when_the_list_request_is_not_supported(monkeypatch, capsys, tmp_path) -> None:
    a, b = NoListBroker("broker-a", A), GroupBroker("broker-b", B)
    cli = Cli(monkeypatch, capsys, namesrvs=["127.0.0.1:9876"], transport=serving((a, 0), (b, 0)))
    path = _file(tmp_path, "g.json", '[{"groupName":"G1"},{"groupName":"G2"}]')
    r = cli("--format", "json", "updateSubGroupList", *C, "-f", path)
    assert r.code == 3
    by = {(e["group"], e["name"]): (e["status"], e["reason"]) for e in r.json()["results"]}
    assert by[("G1", "broker-a")] == ("created", None) and by[("G1", "broker-b")] == ("created", None)
    assert by[("G2", "broker-a")] == ("failed", "NO_PERMISSION (16): no permission to create G2")
    assert "G1" in a.groups and "G2" not in a.groups and "G2" in b.groups


@pytest.mark.parametrize(
    ("name", "text", "fragments"),
    [
        ("g.json", "{not json", ["is not valid JSON"]),
        ("g.json", '{"groupName":"G"}', ["must hold a JSON list of group objects"]),
        ("g.json", "[]", ["lists no groups"]),
        ("g.json", '[{"retryMaxTimes":1}]', ["group 1 has no groupName"]),
        ("g.json", '[{"groupName":"G","retryMaxTime":1}]', ["group 1 (G): unknown key 'retryMaxTime'"]),
        ("g.json", '[{"groupName":"G","consumeEnable":"yes"}]', ["consumeEnable='yes' must be true or false"]),
        ("g.json", '[{"groupName":"G"},{"groupName":"G"}]', ["group 'G' is listed twice"]),
        ("g.json", '[{"groupName":"bad name"}]', ["illegal characters"]),
        ("g.toml", "[[group]]\ngroupName = 'G'\nretryMaxTimes = -1\n", ["retryMaxTimes=-1 must be a non-negative"]),
        ("g.toml", "group = 3", ["must hold [[group]] tables"]),
    ],
)
def test_update_sub_group_list_checks_the_whole_file_first(cli: Cli, tmp_path, name, text, fragments) -> None:
    r = cli("updateSubGroupList", *C, "-f", _file(tmp_path, name, text))
    assert r.code == 2 and r.out == ""
    assert_one_line_error(r, *fragments)
    assert not cli.transport.sent


def test_update_sub_group_list_missing_file(cli: Cli, tmp_path) -> None:
    r = cli("updateSubGroupList", *C, "-f", str(tmp_path / "absent.json"))
    assert r.code == 2
    assert_one_line_error(r, "cannot read", "absent.json")


# --- deleteSubGroup --------------------------------------------------------------------------------


def test_delete_sub_group_dry_run_changes_nothing(cli: Cli, cluster) -> None:
    _, a, b = cluster
    a.groups["G"] = SubscriptionGroupConfig("G")
    a.topics["%RETRY%G"] = TopicConfig("%RETRY%G", 1, 1)
    r = cli("deleteSubGroup", *C, "-g", "G", "--dry-run")
    assert r.code == 0, r.err
    assert rows(r.out) == [
        ["BROKER", "ADDRESS", "RESULT"],
        ["broker-a", a.addr, "would", "delete"],
        ["broker-b", b.addr, "not", "found"],
        [],
        ["%RETRY%G"],
        ["TARGET", "ADDRESS", "RESULT"],
        ["broker-a", a.addr, "would", "delete"],
        ["broker-b", b.addr, "not", "found"],
    ]  # %DLQ%G exists nowhere: not shown
    assert "dry run: nothing was changed" in r.err
    sent = {c.code for _, c in cli.transport.sent}
    assert not sent & {RC.DELETE_SUBSCRIPTIONGROUP, RC.DELETE_TOPIC_IN_BROKER, RC.DELETE_TOPIC_IN_NAMESRV}
    assert "G" in a.groups


def test_delete_sub_group_on_a_cluster_with_offsets_and_its_retry_topics(cli: Cli, cluster) -> None:
    _, a, b = cluster
    a.groups["G"] = b.groups["G"] = SubscriptionGroupConfig("G")
    a.topics["%RETRY%G"] = TopicConfig("%RETRY%G", 1, 1)
    r = cli("--format", "json", "deleteSubGroup", *C, "-g", "G", "-r", "true")
    assert r.code == 0, r.err
    doc = r.json()
    assert [e["status"] for e in doc["results"]] == ["deleted", "deleted"] and doc["removeOffset"] is True
    retry, dlq = doc["topics"]
    assert retry["topic"] == "%RETRY%G" and [e["status"] for e in retry["results"]] == [
        "deleted",
        "not found",
        "deleted",
    ]  # broker-a, broker-b, the name server
    assert dlq["topic"] == "%DLQ%G" and {e["status"] for e in dlq["results"]} == {"not found"}
    assert not a.groups and not b.groups and "%RETRY%G" not in a.topics
    headers = [c.ext for _, c in cli.transport.sent if c.code == RC.DELETE_SUBSCRIPTIONGROUP]
    assert headers == [{"groupName": "G", "cleanOffset": "true"}] * 2
    reads = [c for _, c in cli.transport.sent if c.code == RC.GET_BROKER_CLUSTER_INFO]
    assert len(reads) == 1  # the group and its two topics are deleted from the cluster as read once


def test_delete_sub_group_with_b_or_keep_topics_leaves_the_topics(cli: Cli, cluster) -> None:
    _, a, b = cluster
    a.groups["G"] = b.groups["G"] = SubscriptionGroupConfig("G")
    a.topics["%RETRY%G"] = TopicConfig("%RETRY%G", 1, 1)
    assert cli("deleteSubGroup", "-b", a.addr, "-g", "G").code == 0
    assert cli("deleteSubGroup", *C, "-g", "G", "--keep-topics").code == 0
    assert not a.groups and not b.groups and "%RETRY%G" in a.topics
    headers = [c.ext for _, c in cli.transport.sent if c.code == RC.DELETE_SUBSCRIPTIONGROUP]
    assert headers == [{"groupName": "G", "cleanOffset": "false"}] * 2


def test_a_failed_broker_keeps_the_retry_topics(cli: Cli, cluster) -> None:
    _, a, b = cluster
    a.groups["G"] = b.groups["G"] = SubscriptionGroupConfig("G")
    a.topics["%RETRY%G"] = TopicConfig("%RETRY%G", 1, 1)
    b.hang = True
    r = cli("--timeout", "0.2", "--format", "json", "deleteSubGroup", *C, "-g", "G")
    assert r.code == 3
    doc = r.json()
    assert [e["status"] for e in doc["results"]] == ["deleted", "failed"]
    assert (doc["topics"], doc["outcome"]) == ([], "partial")
    assert "%RETRY%G" in a.topics


def test_delete_of_a_group_no_broker_has(cli: Cli) -> None:
    r = cli("deleteSubGroup", *C, "-g", "Nope")
    assert r.code == 1
    assert [row[2:] for row in rows(r.out)[1:]] == [["not", "found"]] * 2
    assert_one_line_error(r, "group 'Nope' does not exist on cluster 'DefaultCluster'", "--if-exists")
    assert cli("deleteSubGroup", *C, "-g", "Nope", "--if-exists").code == 0
    assert not [c for _, c in cli.transport.sent if c.code == RC.DELETE_SUBSCRIPTIONGROUP]


def test_delete_can_name_a_long_group_an_old_broker_holds(cli: Cli, cluster) -> None:
    _, a, _ = cluster
    name = "G" * 200  # over 5.5's 120 for creation, under the clients' 255
    a.groups[name] = SubscriptionGroupConfig(name)
    cli("deleteSubGroup", "-b", a.addr, "-g", name)
    # The CLI sends it (the broker decides): the declaration, as mqadmin's own broker, refuses it past 120.
    assert [c.ext["groupName"] for _, c in cli.transport.sent if c.code == RC.DELETE_SUBSCRIPTIONGROUP] == [name]


# --- getConsumerConfig -----------------------------------------------------------------------------


def test_get_consumer_config_reads_a_broker_without_master_from_its_slave(monkeypatch, capsys) -> None:
    slave = GroupBroker("broker-c", "127.0.0.1:10932")
    slave.groups["G"] = SubscriptionGroupConfig("G")
    cli = Cli(monkeypatch, capsys, namesrvs=["127.0.0.1:9876"], transport=serving((slave, 1)))
    r = cli("--format", "json", "getConsumerConfig", "-g", "G")
    assert r.code == 0, r.err
    assert [(e["addr"], e["status"]) for e in r.json()["results"]] == [(slave.addr, "ok")]


def test_group_table_read_from_a_broker_keeps_unknown_keys() -> None:
    body = {"subscriptionGroupTable": {"G": {"groupName": "G", "newer5xField": 1, "retryMaxTimes": 2}}}
    from mqadmin.model.rpc.groups import GROUP_TABLE

    (cfg,) = GROUP_TABLE.decode(fastjson.dumps_bytes(body)).values()
    assert cfg.retry_max_times == 2 and cfg.extra == {"newer5xField": 1}
    assert cfg.to_json()["newer5xField"] == 1
