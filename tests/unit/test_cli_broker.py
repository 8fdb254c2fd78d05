"""The broker commands through the CLI entry point, against fake brokers that keep a config (UPDATE applies
the keys they have and refuses blacklisted ones, as Java brokers do), answer consume stats as a Java broker
writes them and count store-maintenance requests."""

from __future__ import annotations

from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand
from mqadmin.wire.properties import format_properties, parse_properties
from tests.unit.cli_helpers import Cli, assert_one_line_error
from tests.unit.fake_remoting import FakeBroker, FakeNamesrv, two_broker_cluster

MAINTENANCE = (RC.CLEAN_EXPIRED_CONSUMEQUEUE, RC.CLEAN_UNUSED_TOPIC, RC.DELETE_EXPIRED_COMMITLOG)

CONSUME_STATS = (
    b'{"brokerAddr":"127.0.0.1:10911","consumeStatsList":[{"G1":[{"consumeTps":0.0,"offsetTable":{'
    b'{"brokerName":"broker-a","queueId":1,"topic":"Orders"}:{"brokerOffset":50,"consumerOffset":45,"lastTimestamp":0},'
    b'{"brokerName":"broker-a","queueId":0,"topic":"Orders"}:{"brokerOffset":100,"consumerOffset":40,'
    b'"lastTimestamp":1700000000000}}}]}],"totalDiff":65,"totalInflightDiff":0}'
)


def configured(broker: FakeBroker, config: dict[str, str]) -> FakeBroker:
    """Give ``broker`` a config, consume stats, store-maintenance answers and a cold-read config table."""
    cold: dict[str, int] = {}

    async def answer(cmd: RemotingCommand) -> RemotingCommand | None:
        if cmd.code == RC.GET_COLD_DATA_FLOW_CTR_INFO:
            return cmd.response(body=fastjson.dumps_bytes({"configTable": cold, "runtimeTable": {}, "globalAcc": 0}))
        if cmd.code == RC.UPDATE_COLD_DATA_FLOW_CTR_CONFIG:
            cold.update({k: int(v) for k, v in parse_properties(cmd.body.decode()).items()})
            return cmd.response()
        if cmd.code == RC.REMOVE_COLD_DATA_FLOW_CTR_CONFIG:
            cold.pop(cmd.body.decode(), None)
            return cmd.response()
        if cmd.code == RC.SET_COMMITLOG_READ_MODE:
            return cmd.response(remark=f"set commitlog readahead mode success, mode: {cmd.ext['READ_AHEAD_MODE']}")
        if cmd.code == RC.GET_BROKER_CONFIG:
            return cmd.response(body=format_properties(config).encode())
        if cmd.code == RC.UPDATE_BROKER_CONFIG:
            props = parse_properties(cmd.body.decode())
            if "brokerConfigPath" in props:
                return cmd.response(ResponseCode.NO_PERMISSION, "Can not update config in black list.")
            config.update({k: v for k, v in props.items() if k in config})
            return cmd.response()
        if cmd.code == RC.GET_BROKER_CONSUME_STATS:
            assert cmd.ext["isOrder"] == "false"
            return cmd.response(body=CONSUME_STATS)
        if cmd.code in MAINTENANCE:
            return cmd.response()
        return None

    broker.before = answer
    return broker


def cluster() -> tuple[FakeNamesrv, FakeBroker, FakeBroker]:
    ns, a, b = two_broker_cluster()
    configured(a, {"maxMessageSize": "4194304", "brokerConfigPath": "/a"})
    configured(b, {"maxMessageSize": "4194304", "brokerConfigPath": "/b"})
    return ns, a, b


def test_update_broker_config_shows_old_and_new_per_broker(monkeypatch, capsys) -> None:
    ns, a, b = cluster()
    cli = Cli(monkeypatch, capsys, ns, a, b)
    r = cli("updateBrokerConfig", "-c", "DefaultCluster", "-k", "maxMessageSize", "-v", "8388608")
    assert r.code == 0, r.err
    assert "maxMessageSize 4194304→8388608" in r.out and r.out.count("updated") == 2
    again = cli("--format", "json", "updateBrokerConfig", "-b", a.addr, "-k", "maxMessageSize", "-v", "8388608")
    assert [x["status"] for x in again.json()["results"]] == ["unchanged"]
    assert cli.transport.codes_sent_to(a.addr).count(RC.UPDATE_BROKER_CONFIG) == 1


def test_update_broker_config_reports_refusals_and_unknown_keys(monkeypatch, capsys) -> None:
    ns, a, b = cluster()
    cli = Cli(monkeypatch, capsys, ns, a, b)
    refused = cli("updateBrokerConfig", "-c", "DefaultCluster", "-k", "brokerConfigPath", "-v", "/x")
    assert refused.code == 1 and refused.out.count("NO_PERMISSION (16): Can not update config in black list.") == 2
    unknown = cli("--format", "json", "updateBrokerConfig", "-b", a.addr, "-k", "noSuchKey", "-v", "1")
    assert unknown.code == 1 and "unknown key 'noSuchKey'" in unknown.json()["results"][0]["reason"]
    assert cli.transport.codes_sent_to(a.addr).count(RC.UPDATE_BROKER_CONFIG) == 1  # the refused one only


def test_update_broker_config_usage_errors(monkeypatch, capsys) -> None:
    ns, a, b = cluster()
    cli = Cli(monkeypatch, capsys, ns, a, b)
    kv = ("-k", "maxMessageSize", "-v", "1")
    assert_one_line_error(cli("updateBrokerConfig", "-b", a.addr, "-a", "true", *kv), "-a (slaves too) goes with -c")
    assert_one_line_error(cli("updateBrokerConfig", "-c", "DefaultCluster", "-a", "maybe", *kv), "-a takes true")
    assert_one_line_error(cli("updateBrokerConfig", "-b", a.addr, "-c", "DefaultCluster", *kv), "not both")
    assert RC.UPDATE_BROKER_CONFIG not in cli.transport.codes_sent_to(a.addr)


def test_get_broker_config_one_broker_and_a_cluster(monkeypatch, capsys) -> None:
    ns, a, b = cluster()
    cli = Cli(monkeypatch, capsys, ns, a, b)
    one = cli("getBrokerConfig", "-b", a.addr)
    assert one.code == 0 and "brokerConfigPath  /a" in one.out
    doc = cli("--format", "json", "getBrokerConfig", "-c", "DefaultCluster").json()
    assert {r["addr"]: r["config"]["brokerConfigPath"] for r in doc["results"]} == {a.addr: "/a", b.addr: "/b"}


def test_broker_consume_stats_rows_filter_and_total(monkeypatch, capsys) -> None:
    ns, a, b = cluster()
    cli = Cli(monkeypatch, capsys, ns, a, b)
    r = cli("brokerConsumeStats", "-b", a.addr, "-l", "10")
    assert r.code == 0, r.err
    assert "Diff Total: 65" in r.out and " 60 " in r.out and " 5 " not in r.out
    doc = cli("--format", "json", "brokerConsumeStats", "-b", a.addr).json()
    assert [(q["queueId"], q["diff"], q["group"]) for q in doc["queues"]] == [(0, 60, "G1"), (1, 5, "G1")]
    assert doc["totalDiff"] == 65


def test_store_maintenance_every_broker_and_dry_run(monkeypatch, capsys) -> None:
    ns, a, b = cluster()
    cli = Cli(monkeypatch, capsys, ns, a, b)
    dry = cli("--format", "json", "deleteExpiredCommitLog", "--dry-run")
    assert [r["status"] for r in dry.json()["results"]] == ["would delete", "would delete"]
    assert RC.DELETE_EXPIRED_COMMITLOG not in cli.transport.codes_sent_to(a.addr)
    done = cli("cleanUnusedTopic")  # neither -b nor -c: every broker of every cluster, as Java
    assert done.code == 0 and done.out.count(" ok") == 2
    assert cli.transport.codes_sent_to(b.addr).count(RC.CLEAN_UNUSED_TOPIC) == 1
    assert_one_line_error(cli("cleanExpiredCQ", "-b", a.addr, "-c", "DefaultCluster"), "not both")


def test_cold_data_threshold_created_updated_removed(monkeypatch, capsys) -> None:
    ns, a, b = cluster()
    cli = Cli(monkeypatch, capsys, ns, a, b)
    update = ("updateColdDataFlowCtrGroupConfig", "-c", "DefaultCluster", "-g", "Reports")
    assert [r["status"] for r in cli("--format", "json", *update, "-v", "100").json()["results"]] == ["created"] * 2
    r = cli(*update, "-v", "200")
    assert r.code == 0 and r.out.count("Reports 100→200") == 2
    assert [x["status"] for x in cli("--format", "json", *update, "-v", "200").json()["results"]] == ["unchanged"] * 2
    info = cli("--format", "json", "getColdDataFlowCtrInfo", "-b", a.addr).json()
    assert info["results"][0]["info"]["configTable"] == {"Reports": 200}
    remove = ("removeColdDataFlowCtrGroupConfig", "-b", a.addr, "-g", "Reports")
    assert [x["status"] for x in cli("--format", "json", *remove).json()["results"]] == ["deleted"]
    assert [x["status"] for x in cli("--format", "json", *remove).json()["results"]] == ["not found"]
    assert cli.transport.codes_sent_to(a.addr).count(RC.REMOVE_COLD_DATA_FLOW_CTR_CONFIG) == 1


def test_read_ahead_mode_sent_to_every_broker_and_checked(monkeypatch, capsys) -> None:
    ns, a, b = cluster()
    cli = Cli(monkeypatch, capsys, ns, a, b)
    assert_one_line_error(cli("setCommitLogReadAheadMode", "-b", a.addr, "-m", "2"), "-m takes 0 or 1")
    assert RC.SET_COMMITLOG_READ_MODE not in cli.transport.codes_sent_to(a.addr)
    doc = cli("--format", "json", "setCommitLogReadAheadMode", "-c", "DefaultCluster", "-m", "1").json()
    assert doc["mode"] == 1 and [r["status"] for r in doc["results"]] == ["ok", "ok"]
