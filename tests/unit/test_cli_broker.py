"""The broker commands through the CLI entry point: broker config against the embedded brokers (UPDATE applies
the keys a running broker reads and refuses blacklisted ones, as Java brokers do); consume stats as a Java broker
writes them, store maintenance, cold-read thresholds and read-ahead over scripted answers."""

from __future__ import annotations

import re
from typing import Any

from mqadmin.model.rpc import brokers, consumers
from mqadmin.model.rpc.spec import Decoded
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode as RC
from tests.embedded import ThreadedCluster
from tests.mock_transport import Answer, ok
from tests.unit.cli_helpers import A, B, Cli, Outcome, assert_one_line_error, codes, scripted

CONSUME_STATS = (
    b'{"brokerAddr":"127.0.0.1:10911","consumeStatsList":[{"G1":[{"consumeTps":0.0,"offsetTable":{'
    b'{"brokerName":"broker-a","queueId":1,"topic":"Orders"}:{"brokerOffset":50,"consumerOffset":45,"lastTimestamp":0},'
    b'{"brokerName":"broker-a","queueId":0,"topic":"Orders"}:{"brokerOffset":100,"consumerOffset":40,'
    b'"lastTimestamp":1700000000000}}}]}],"totalDiff":65,"totalInflightDiff":0}'
)
"""GET_BROKER_CONSUME_STATS as a Java broker writes it (queues as object keys)."""


def sent(r: Outcome, addr: str, request: str) -> int:
    """How many ``request`` (a name) the ``--debug`` trace shows sent to ``addr``."""
    return len(re.findall(rf"^(?:mqadmin: )?> {re.escape(addr)} #\d+ {request}\(", r.err, re.MULTILINE))


def maintained(monkeypatch, capsys) -> Cli:
    """Brokers answering consume stats, store maintenance, read-ahead and cold-read thresholds (kept per broker)."""
    cold: dict[str, dict[str, int]] = {A: {}, B: {}}

    def consume_stats(req: Decoded[consumers.ConsumeStatsInBrokerHeader, None], _addr: str) -> Answer:
        assert req.header.is_order is False
        return ok(consumers.GET_BROKER_CONSUME_STATS.response_body.decode(CONSUME_STATS))

    def cold_info(_req: Decoded[None, None], addr: str) -> Answer:
        return ok(fastjson.dumps_bytes({"configTable": cold[addr], "runtimeTable": {}, "globalAcc": 0}))

    def cold_update(req: Decoded[None, Any], addr: str) -> Answer:
        cold[addr].update({k: int(v) for k, v in req.body.items()})
        return ok()

    def cold_remove(req: Decoded[None, bytes], addr: str) -> Answer:
        cold[addr].pop(req.body.decode(), None)
        return ok()

    def read_ahead(req: Decoded[brokers.ReadAheadHeader, None], _addr: str) -> Answer:
        return Answer(remark=f"set commitlog readahead mode success, mode: {req.header.mode}")

    return scripted(
        monkeypatch,
        capsys,
        {
            consumers.GET_BROKER_CONSUME_STATS: consume_stats,
            brokers.CLEAN_EXPIRED_CONSUMEQUEUE: ok(),
            brokers.CLEAN_UNUSED_TOPIC: ok(),
            brokers.DELETE_EXPIRED_COMMITLOG: ok(),
            brokers.GET_COLD_DATA_FLOW_CTR_INFO: cold_info,
            brokers.UPDATE_COLD_DATA_FLOW_CTR_CONFIG: cold_update,
            brokers.REMOVE_COLD_DATA_FLOW_CTR_CONFIG: cold_remove,
            brokers.SET_COMMITLOG_READ_MODE: read_ahead,
        },
    )


def test_update_broker_config_shows_old_and_new_per_broker(live: Cli, embedded: ThreadedCluster) -> None:
    a = embedded.addr["broker-a"]
    r = live("updateBrokerConfig", "-c", "DefaultCluster", "-k", "maxMessageSize", "-v", "8388608")
    assert r.code == 0, r.err
    assert "maxMessageSize 4194304→8388608" in r.out and r.out.count("updated") == 2
    again = live("--debug", "--format", "json", "updateBrokerConfig", "-b", a, "-k", "maxMessageSize", "-v", "8388608")
    assert [x["status"] for x in again.json()["results"]] == ["unchanged"]
    assert sent(again, a, "UPDATE_BROKER_CONFIG") == 0
    assert embedded.call(lambda: embedded.broker("broker-a").config.max_message_size) == 8388608


def test_update_broker_config_reports_refusals_and_unknown_keys(live: Cli, embedded: ThreadedCluster) -> None:
    a = embedded.addr["broker-a"]
    refused = live("updateBrokerConfig", "-c", "DefaultCluster", "-k", "configBlackList", "-v", "x")
    assert refused.code == 1 and refused.out.count("NO_PERMISSION (16): Can not update config in black list.") == 2
    unknown = live("--debug", "--format", "json", "updateBrokerConfig", "-b", a, "-k", "noSuchKey", "-v", "1")
    assert unknown.code == 1 and "unknown key 'noSuchKey'" in unknown.error_json()["document"]["results"][0]["reason"]
    assert sent(unknown, a, "UPDATE_BROKER_CONFIG") == 0


def test_update_broker_config_usage_errors(monkeypatch, capsys) -> None:
    cli = scripted(monkeypatch, capsys, {})
    kv = ("-k", "maxMessageSize", "-v", "1")
    assert_one_line_error(cli("updateBrokerConfig", "-b", A, "-a", "true", *kv), "-a (slaves too) goes with -c")
    assert_one_line_error(cli("updateBrokerConfig", "-c", "DefaultCluster", "-a", "maybe", *kv), "-a takes true")
    assert_one_line_error(cli("updateBrokerConfig", "-b", A, "-c", "DefaultCluster", *kv), "not both")
    assert codes(cli, A) == []


def test_get_broker_config_one_broker_and_a_cluster(live: Cli, embedded: ThreadedCluster) -> None:
    a, b = embedded.addr["broker-a"], embedded.addr["broker-b"]
    one = live("getBrokerConfig", "-b", a)
    assert one.code == 0 and re.search(r"^brokerName +broker-a$", one.out, re.MULTILINE), one.out
    doc = live("--format", "json", "getBrokerConfig", "-c", "DefaultCluster").json()
    assert {r["addr"]: r["config"]["brokerName"] for r in doc["results"]} == {a: "broker-a", b: "broker-b"}


def test_broker_consume_stats_rows_filter_and_total(monkeypatch, capsys) -> None:
    cli = maintained(monkeypatch, capsys)
    r = cli("brokerConsumeStats", "-b", A, "-l", "10")
    assert r.code == 0, r.err
    assert "Diff Total: 65" in r.out and " 60 " in r.out and " 5 " not in r.out
    doc = cli("--format", "json", "brokerConsumeStats", "-b", A).json()
    assert [(q["queueId"], q["diff"], q["group"]) for q in doc["queues"]] == [(0, 60, "G1"), (1, 5, "G1")]
    assert doc["totalDiff"] == 65


def test_store_maintenance_every_broker_and_dry_run(monkeypatch, capsys) -> None:
    cli = maintained(monkeypatch, capsys)
    dry = cli("--format", "json", "deleteExpiredCommitLog", "--dry-run")
    assert [r["status"] for r in dry.json()["results"]] == ["would delete", "would delete"]
    assert RC.DELETE_EXPIRED_COMMITLOG not in codes(cli, A)
    done = cli("cleanUnusedTopic")  # neither -b nor -c: every broker of every cluster, as Java
    assert done.code == 0 and done.out.count(" ok") == 2
    assert codes(cli, B).count(RC.CLEAN_UNUSED_TOPIC) == 1
    assert_one_line_error(cli("cleanExpiredCQ", "-b", A, "-c", "DefaultCluster"), "not both")


def test_cold_data_threshold_created_updated_removed(monkeypatch, capsys) -> None:
    cli = maintained(monkeypatch, capsys)
    update = ("updateColdDataFlowCtrGroupConfig", "-c", "DefaultCluster", "-g", "Reports")
    assert [r["status"] for r in cli("--format", "json", *update, "-v", "100").json()["results"]] == ["created"] * 2
    r = cli(*update, "-v", "200")
    assert r.code == 0 and r.out.count("Reports 100→200") == 2
    assert [x["status"] for x in cli("--format", "json", *update, "-v", "200").json()["results"]] == ["unchanged"] * 2
    info = cli("--format", "json", "getColdDataFlowCtrInfo", "-b", A).json()
    assert info["results"][0]["info"]["configTable"] == {"Reports": 200}
    remove = ("removeColdDataFlowCtrGroupConfig", "-b", A, "-g", "Reports")
    assert [x["status"] for x in cli("--format", "json", *remove).json()["results"]] == ["deleted"]
    assert [x["status"] for x in cli("--format", "json", *remove).json()["results"]] == ["not found"]
    assert codes(cli, A).count(RC.REMOVE_COLD_DATA_FLOW_CTR_CONFIG) == 1


def test_read_ahead_mode_sent_to_every_broker_and_checked(monkeypatch, capsys) -> None:
    cli = maintained(monkeypatch, capsys)
    assert_one_line_error(cli("setCommitLogReadAheadMode", "-b", A, "-m", "2"), "-m takes 0 or 1")
    assert RC.SET_COMMITLOG_READ_MODE not in codes(cli, A)
    doc = cli("--format", "json", "setCommitLogReadAheadMode", "-c", "DefaultCluster", "-m", "1").json()
    assert doc["mode"] == 1 and [r["status"] for r in doc["results"]] == ["ok", "ok"]
