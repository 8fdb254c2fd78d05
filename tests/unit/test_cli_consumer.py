"""The consumer, producer and offset commands through the CLI entry point, against fake brokers that answer
as Apache 5.x (and 4.9) brokers do."""

from __future__ import annotations

import pytest

from mqadmin.model.queue import MessageQueue
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode as R
from tests.unit.cli_helpers import Cli, assert_one_line_error
from tests.unit.fake_consumers import MINUTE, T0, Client, ConsumerSide, running_info
from tests.unit.fake_remoting import FakeNamesrv, two_broker_cluster

G, T = "OrdersConsumer", "Orders"


def _world(version: int = 479) -> tuple[FakeNamesrv, ConsumerSide, ConsumerSide]:
    ns, a, b = two_broker_cluster(version)
    sa, sb = ConsumerSide(a), ConsumerSide(b)
    sa.add_topic(T, [10, 4])
    sb.add_topic(T, [6, 0])
    sa.add_group(G, T, [7, 4])  # lag 3 + 0
    sb.add_group(G, T, [1, 0])  # lag 5 + 0
    return ns, sa, sb


@pytest.fixture
def world() -> tuple[FakeNamesrv, ConsumerSide, ConsumerSide]:
    return _world()


@pytest.fixture
def cli(monkeypatch, capsys, world) -> Cli:
    ns, sa, sb = world
    return Cli(monkeypatch, capsys, ns, sa.broker, sb.broker)


def rows(out: str) -> list[list[str]]:
    return [line.split() for line in out.strip().splitlines()]


# --- consumerProgress -----------------------------------------------------------------------------


def test_progress_of_one_group_per_queue_with_totals(cli: Cli, world) -> None:
    _, sa, _ = world
    sa.online[G] = [Client("10.0.0.1@1")]
    r = cli("consumerProgress", "-g", G)
    assert r.code == 0, r.err
    table = rows(r.out)
    assert table[0] == ["TOPIC", "BROKER", "QID", "BROKER", "OFFSET", "CONSUMER", "OFFSET", "LAG", "INFLIGHT", "LAST",
                        "CONSUMED"]  # fmt: skip
    assert [row[:6] for row in table[1:5]] == [
        [T, "broker-a", "0", "10", "7", "3"],
        [T, "broker-a", "1", "4", "4", "0"],
        [T, "broker-b", "0", "6", "1", "5"],
        [T, "broker-b", "1", "0", "0", "0"],
    ]
    assert "Lag total: 8" in r.out and "Consume TPS: 3.00" in r.out
    assert "Consumers: 1 online (PUSH, CLUSTERING)" in r.out
    assert "Dead letters (%DLQ%OrdersConsumer): 0" in r.out


def test_progress_of_a_group_that_only_has_offsets_and_in_the_group_list(cli: Cli, world) -> None:
    """Offsets set before any consumer ran: no %RETRY% route; the masters' offset tables know the group."""
    _, sa, sb = world
    sa.offsets[("Fresh", T)] = {0: 2, 1: 4}
    sa.offsets[("Fresh", "%RETRY%Fresh")] = {0: 0}
    sb.offsets[("SystemOnly", "RMQ_SYS_TRANS_HALF_TOPIC")] = {0: 0}  # not a consumer group of a user topic
    r = cli("--format", "json", "consumerProgress", "-g", "Fresh")
    assert r.code == 0, r.err
    doc = r.json()
    assert [(q["brokerName"], q["queueId"], q["lag"]) for q in doc["queues"]] == [
        ("broker-a", 0, 8),
        ("broker-a", 1, 0),
    ]
    assert doc["online"] is False and doc["lagTotal"] == 8
    assert sb.codes().count(208) == 0  # only the master holding the group is asked for its progress

    listed = cli("--format", "json", "consumerProgress").json()
    assert [(g["group"], g["lag"]) for g in listed["groups"]] == [("Fresh", 8), ("OrdersConsumer", 8)]
    table = cli("consumerProgress")
    assert ["Fresh", "0", "OFFLINE", "1", "8", "-", "0"] in rows(table.out)

    assert cli("consumerProgress", "-g", "NoSuchGroup").code != 0  # no route and no offsets: still not found


def test_group_list_names_a_master_whose_offset_table_cannot_be_read(cli: Cli, world) -> None:
    _, sa, sb = world
    sb.fail[43] = (R.SYSTEM_ERROR, "No consumer offset in this broker")
    r = cli("consumerProgress")
    assert r.code == 3
    assert "offset table of broker-b" in r.err and "No consumer offset in this broker" in r.err
    assert rows(r.out)[1][0] == G


def test_progress_json_sorted_by_lag_with_retry_and_dead_letters(cli: Cli, world) -> None:
    _, sa, sb = world
    sa.add_topic("%RETRY%" + G, [2])
    sa.offsets[(G, "%RETRY%" + G)] = {0: 1}
    sb.add_topic("%DLQ%" + G, [4])
    r = cli("--format", "json", "consumerProgress", "-g", G, "--sort", "lag")
    assert r.code == 0, r.err
    doc = r.json()
    assert [(q["brokerName"], q["topic"], q["lag"]) for q in doc["queues"][:2]] == [("broker-b", T, 5),
                                                                                  ("broker-a", T, 3)]  # fmt: skip
    assert doc["lagTotal"] == 9 and doc["online"] is False and doc["clients"] == 0
    assert doc["retry"] == {"topic": "%RETRY%" + G, "depth": 1}
    assert doc["dlq"] == {"topic": "%DLQ%" + G, "depth": 4}
    assert doc["queues"][0]["lastTimestamp"] == T0 and doc["outcome"] == "ok"


def test_progress_reports_a_failed_broker_and_exits_3(cli: Cli, world) -> None:
    _, _, sb = world
    sb.fail[RC.GET_CONSUME_STATS] = (R.SYSTEM_ERROR, "store is busy")
    r = cli("consumerProgress", "-g", G)
    assert r.code == 3
    assert "broker-b" in r.out and "store is busy" in r.out and "Lag total: 3" in r.out
    assert "failed on 1 of 2 targets" in r.err


def test_progress_usage_errors_and_unknown_group(cli: Cli) -> None:
    assert_one_line_error(cli("consumerProgress", "-t", T), "-t and -s need -g")
    assert cli("consumerProgress", "-t", T).code == 2
    assert cli("consumerProgress", "-g", "bad/name").code == 2
    assert cli("consumerProgress", "-g", G, "--sort", "size").code == 2
    r = cli("consumerProgress", "-g", "NoSuchGroup")
    assert r.code == 1 and r.out == ""
    assert_one_line_error(r, "consumer group 'NoSuchGroup' not found", "%RETRY%NoSuchGroup")


def test_progress_of_every_group_largest_lag_first(cli: Cli, world) -> None:
    _, sa, sb = world
    sa.add_group("SmallLag", T, [10, 3])  # the group's retry topic is on broker-a only: broker-b is not asked
    sb.offsets[("SmallLag", T)] = {0: 5}
    sa.online["SmallLag"] = [Client("10.0.0.1@1", version=479)]
    r = cli("consumerProgress")
    assert r.code == 0, r.err
    table = rows(r.out)
    assert table[0] == ["GROUP", "CLIENTS", "VERSION", "TYPE", "MODEL", "TPS", "LAG", "RETRY", "DLQ"]
    assert table[1][:3] == [G, "0", "OFFLINE"] and table[1][-3] == "8"
    assert table[2] == ["SmallLag", "1", "V5_3_3", "PUSH", "CLUSTERING", "1", "1", "-", "0"]  # never read its retry
    doc = cli("--format", "json", "consumerProgress").json()
    assert doc["lagTotal"] == 9 and doc["groups"][1]["version"] == "V5_3_3" and doc["groups"][1]["consumeTps"] == 1.5


# --- connections ----------------------------------------------------------------------------------


def test_consumer_connection_merges_what_each_broker_sees(cli: Cli, world) -> None:
    _, sa, sb = world
    sa.online[G] = [Client("10.0.0.1@1")]
    sb.online[G] = [Client("10.0.0.1@1"), Client("10.0.0.2@2", "CPP", 479)]
    sa.subscriptions[G] = [T]
    r = cli("consumerConnection", "-g", G)
    assert r.code == 0, r.err
    table = rows(r.out)
    assert table[1] == ["10.0.0.1@1", "10.0.0.0:5000", "JAVA", "V4_9_8"]
    assert table[2] == ["10.0.0.2@2", "10.0.0.1:5000", "CPP", "V5_3_3"]
    assert ["Orders", "*"] in table and ["ConsumeType:", "CONSUME_PASSIVELY"] in table
    doc = cli("--format", "json", "consumerConnection", "-g", G, "-b", sa.broker.addr).json()
    assert [c["clientId"] for c in doc["connections"]] == ["10.0.0.1@1"]
    assert doc["subscriptions"] == [{"topic": T, "subExpression": "*", "expressionType": "TAG", "subVersion": 1}]


def test_consumer_connection_of_an_offline_group_is_an_error(cli: Cli) -> None:
    r = cli("consumerConnection", "-g", G)
    assert r.code == 1 and r.out == ""
    assert_one_line_error(r, f"consumer group '{G}' is not online")


def test_producer_connection_and_producer(cli: Cli, world) -> None:
    _, sa, sb = world
    sa.producers["PG"] = [Client("10.0.0.9@7")]
    sb.producers["PG"] = [Client("10.0.0.9@7"), Client("10.0.0.8@3", "NODE", 479)]
    r = cli("producerConnection", "-g", "PG", "-t", T)
    assert r.code == 0, r.err
    assert [row[0] for row in rows(r.out)[1:]] == ["10.0.0.8@3", "10.0.0.9@7"]
    assert_one_line_error(cli("producerConnection", "-g", "Nobody", "-t", T), "no producer of group 'Nobody'")
    r = cli("producer", "-b", sb.broker.addr)
    assert r.code == 0, r.err
    assert [row[:3] for row in rows(r.out)[1:]] == [["PG", "10.0.0.9@7", "10.0.0.9:6000"],
                                                    ["PG", "10.0.0.8@3", "10.0.0.9:6000"]]  # fmt: skip
    doc = cli("--format", "json", "producer", "-b", sb.broker.addr).json()
    assert doc["groups"]["PG"][1]["versionDesc"] == "V5_3_3" and doc["groups"]["PG"][1]["lastUpdateTimestamp"] == T0


# --- consumerStatus, getConsumerStatus ------------------------------------------------------------


def test_consumer_status_lists_clients_and_flags_blocked_queues(cli: Cli, world) -> None:
    _, sa, _ = world
    sa.online[G] = [
        Client("10.0.0.1@1", info=running_info(T, "broker-a", cached=5, last_consume=T0)),
        Client("10.0.0.2@2", info=None),
    ]
    r = cli("consumerStatus", "-g", G)
    assert r.code == 3
    assert rows(r.out)[1][:6] == ["10.0.0.1@1", "V4_9_8", "PUSH", "no", "1", "5"]
    assert "10.0.0.2@2" in r.out and "not online" in r.out  # the client that did not answer
    assert "can't consume for a while, maybe blocked" in r.out
    doc = cli("--format", "json", "consumerStatus", "-g", G).json()
    assert doc["sameSubscription"] is True and doc["outcome"] == "partial"
    assert doc["clients"][0]["info"]["queues"][0]["processQueue"]["cachedMsgCount"] == 5


def test_consumer_status_names_a_queue_two_clients_hold(cli: Cli, world) -> None:
    _, sa, _ = world
    sa.online[G] = [Client("10.0.0.1@1", info=running_info(T, "broker-a")),
                    Client("10.0.0.2@2", info=running_info(T, "broker-a"))]  # fmt: skip
    r = cli("consumerStatus", "-g", G)
    assert r.code == 0, r.err  # an analysis, as Java's: not a failed request
    assert "Rebalance FAILED" in r.out
    assert f"{T} broker-a queue 0 is held by 2 clients: 10.0.0.1@1, 10.0.0.2@2" in r.out
    doc = cli("--format", "json", "consumerStatus", "-g", G).json()
    assert doc["rebalanceOk"] is False
    assert doc["duplicateQueues"] == [
        {"topic": T, "brokerName": "broker-a", "queueId": 0, "clients": ["10.0.0.1@1", "10.0.0.2@2"]}
    ]

    dropping = running_info(T, "broker-a")
    next(iter(dropping["mqTable"].values()))["droped"] = True  # being released by its old holder
    broadcast = [running_info(T, "broker-a"), running_info(T, "broker-a")]
    for info in broadcast:
        info["properties"]["messageModel"] = "BROADCASTING"  # every client reads every queue, by design
    for infos in ([running_info(T, "broker-a"), dropping], broadcast):
        sa.online[G] = [Client(f"10.0.0.{i}@{i}", info=info) for i, info in enumerate(infos, 1)]
        doc = cli("--format", "json", "consumerStatus", "-g", G).json()
        assert (doc["rebalanceOk"], doc["duplicateQueues"]) == (True, [])
        assert "Rebalance OK" in cli("consumerStatus", "-g", G).out


def test_consumer_status_of_one_client_with_thread_dump(cli: Cli, world) -> None:
    _, sa, _ = world
    sa.online[G] = [Client("10.0.0.1@1", info=running_info(T, "broker-a")),
                    Client("10.0.0.3@3", "CPP", info=running_info(T, "broker-a"))]  # fmt: skip
    r = cli("consumerStatus", "-g", G, "-i", "10.0.0.1@1", "-s")
    assert r.code == 0, r.err
    assert "PROP_CONSUME_TYPE" in r.out and "Thread dump" in r.out and "    at Foo.bar(Foo.java:1)" in r.out
    r = cli("consumerStatus", "-g", G, "-i", "10.0.0.3@3", "-s")
    assert r.code == 0 and "sent no thread dump" in r.err


def test_get_consumer_status(cli: Cli, world) -> None:
    _, sa, _ = world
    sa.online[G] = [Client("10.0.0.1@1", holds={MessageQueue(T, "broker-a", 0): 9})]
    r = cli("getConsumerStatus", "-g", G, "-t", T)
    assert r.code == 0, r.err
    assert rows(r.out)[1] == ["10.0.0.1@1", "broker-a", "0", "9"]
    doc = cli("--format", "json", "getConsumerStatus", "-g", G, "-t", T, "-i", "10.0.0.1@1").json()
    assert doc["clients"] == {"10.0.0.1@1": [{"topic": T, "brokerName": "broker-a", "queueId": 0, "offset": 9}]}


# --- setConsumeMode -------------------------------------------------------------------------------


def test_set_consume_mode_updates_then_reports_unchanged(cli: Cli, world) -> None:
    _, sa, sb = world
    r = cli("setConsumeMode", "-c", "DefaultCluster", "-t", T, "-g", G, "-m", "pop", "-q", "2")
    assert r.code == 0, r.err
    assert [row[2] for row in rows(r.out)[1:]] == ["updated", "updated"] and "mode PULL→POP" in r.out
    assert sa.modes[(T, G)] == {"consumerGroup": G, "mode": "POP", "popShareQueueNum": 2, "topic": T}
    r = cli("setConsumeMode", "-b", sb.broker.addr, "-t", T, "-g", G, "-m", "POP", "-q", "2")
    assert rows(r.out)[1][2] == "unchanged" and sb.codes().count(RC.SET_MESSAGE_REQUEST_MODE) == 1
    assert_one_line_error(cli("setConsumeMode", "-c", "DefaultCluster", "-t", T, "-g", G, "-m", "PUSH"), "PUSH")


def test_set_consume_mode_on_4_9_brokers_fails_per_broker(monkeypatch, capsys) -> None:
    ns, sa, sb = _world(409)
    r = Cli(monkeypatch, capsys, ns, sa.broker, sb.broker)("setConsumeMode", "-c", "DefaultCluster", "-t", T,
                                                           "-g", G, "-m", "POP")  # fmt: skip
    assert r.code == 1 and r.out.count("REQUEST_CODE_NOT_SUPPORTED") == 2


# --- resetOffsetByTime, skipAccumulatedMessage, cloneGroupOffset ----------------------------------


def test_reset_by_time_through_a_5x_broker_prints_old_and_new(cli: Cli, world) -> None:
    _, sa, sb = world
    r = cli("resetOffsetByTime", "-g", G, "-t", T, "-s", str(T0 + 2 * MINUTE))
    assert r.code == 0, r.err
    assert rows(r.out)[1:] == [
        ["broker-a", "0", "7", "2", "-5", "updated"],
        ["broker-a", "1", "4", "2", "-2", "updated"],
        ["broker-b", "0", "1", "2", "+1", "updated"],
        ["broker-b", "1", "0", "0", "+0", "unchanged"],
    ]
    assert sa.offsets[(G, T)] == {0: 2, 1: 2} and RC.UPDATE_CONSUMER_OFFSET not in sa.codes()


def test_reset_dry_run_changes_nothing(cli: Cli, world) -> None:
    _, sa, sb = world
    r = cli("--format", "json", "resetOffsetByTime", "-g", G, "-t", T, "-s", "0", "--dry-run")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["dryRun"] is True and doc["timestamp"] == 0
    assert doc["results"][0]["status"] == "would update" and doc["results"][0]["how"] == "planned"
    assert doc["results"][0]["queues"][0] == {"topic": T, "brokerName": "broker-a", "queueId": 0, "oldOffset": 7,
                                              "newOffset": 0, "moved": True, "done": False}  # fmt: skip
    assert "dry run: nothing was changed" in r.err
    sent = sa.codes() + sb.codes()
    assert RC.INVOKE_BROKER_TO_RESET_OFFSET not in sent and RC.UPDATE_CONSUMER_OFFSET not in sent
    assert sa.offsets[(G, T)] == {0: 7, 1: 4}


def test_reset_of_an_offline_group_on_4_9_commits_each_queue(monkeypatch, capsys) -> None:
    ns, sa, sb = _world(409)
    cli = Cli(monkeypatch, capsys, ns, sa.broker, sb.broker)
    r = cli("resetOffsetByTime", "-g", G, "-t", T, "-s", "0")
    assert r.code == 0, r.err
    assert sa.offsets[(G, T)] == {0: 0, 1: 0} and sb.offsets[(G, T)] == {0: 0, 1: 0}
    assert "no consumer of OrdersConsumer online: offsets committed directly" in r.err
    assert sb.codes().count(RC.UPDATE_CONSUMER_OFFSET) == 1  # queue 1 was already at 0


def test_reset_that_stops_part_way_says_which_queues_moved(monkeypatch, capsys) -> None:
    ns, sa, sb = _world(409)
    sa.add_topic(T, [10, 4, 6])
    sa.offsets[(G, T)] = {0: 7, 1: 4, 2: 6}
    sa.commits_before_failing = 1
    r = Cli(monkeypatch, capsys, ns, sa.broker, sb.broker)("resetOffsetByTime", "-g", G, "-t", T, "-s", "0")
    assert r.code == 3
    table = rows(r.out)
    assert ["broker-a", "0", "7", "0", "-7", "updated"] in table
    assert ["broker-a", "1", "4", "0", "-4", "not", "moved"] in table
    assert ["broker-a", "2", "6", "0", "-6", "not", "moved"] in table
    assert "stopped at queue 1: SYSTEM_ERROR (1): disk full (queues moved before: 0)" in r.out
    assert sa.offsets[(G, T)] == {0: 0, 1: 4, 2: 6}


def test_reset_of_one_queue_checks_the_offset(cli: Cli, world) -> None:
    _, sa, _ = world
    r = cli("resetOffsetByTime", "-g", G, "-t", T, "-s", "now", "-b", sa.broker.addr, "-q", "0", "-o", "3")
    assert r.code == 0, r.err
    assert rows(r.out)[1] == ["broker-a", "0", "7", "3", "-4", "updated"]
    assert sa.offsets[(G, T)] == {0: 3, 1: 4}
    r = cli("resetOffsetByTime", "-g", G, "-t", T, "-s", "now", "-b", sa.broker.addr, "-q", "0", "-o", "99")
    assert_one_line_error(r, "offset 99 is outside queue 0's range [0, 10]")
    assert r.code == 2


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["-s", "yesterday"], "'yesterday' is not a time"),
        (["-s", "1700000000"], "looks like seconds"),
        (["-s", "now", "-q", "1"], "-q needs -b"),
        (["-s", "now", "-o", "1"], "-o needs -b and -q"),
        (["-s", "now", "-f", "maybe"], "-f takes true or false"),
    ],
)
def test_reset_usage_errors(cli: Cli, args: list[str], fragment: str) -> None:
    r = cli("resetOffsetByTime", "-g", G, "-t", T, *args)
    assert r.code == 2 and r.out == ""
    assert_one_line_error(r, fragment)


def test_skip_moves_every_queue_to_its_end(cli: Cli, world) -> None:
    _, sa, sb = world
    r = cli("skipAccumulatedMessage", "-g", G, "-t", T)
    assert r.code == 0, r.err
    assert ["broker-b", "0", "1", "6", "+5", "updated"] in rows(r.out)
    assert sa.offsets[(G, T)] == {0: 10, 1: 4} and sb.offsets[(G, T)] == {0: 6, 1: 0}
    reset = next(c for c in sa.requests if c.code == RC.INVOKE_BROKER_TO_RESET_OFFSET)
    assert reset.ext["timestamp"] == "-1" and reset.ext["isForce"] == "true"


def test_clone_copies_one_topic(cli: Cli, world) -> None:
    _, sa, sb = world
    sa.offsets[(G, "Other")] = {0: 1}
    r = cli("cloneGroupOffset", "-s", G, "-d", "NewGroup", "-t", T)
    assert r.code == 0, r.err
    assert sa.offsets[("NewGroup", T)] == {0: 7, 1: 4} and sb.offsets[("NewGroup", T)] == {0: 1, 1: 0}
    assert ("NewGroup", "Other") not in sa.offsets
    r = cli("cloneGroupOffset", "-s", G, "-d", "Dry", "-t", T, "--dry-run")
    assert r.code == 0 and ("Dry", T) not in sa.offsets and "would update" in r.out
