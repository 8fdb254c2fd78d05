"""The name-server commands through the CLI entry point, against fake name servers that keep a config, a KV
store and write permissions as Java name servers do."""

from __future__ import annotations

from dataclasses import dataclass, field

from mqadmin.model.topic import TopicConfig
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand
from mqadmin.wire.properties import format_properties, parse_properties
from tests.unit.cli_helpers import Cli, assert_one_line_error
from tests.unit.fake_remoting import FakeBroker, FakeNamesrv, two_broker_cluster

BLACKLIST = {"configBlackList", "configStorePath", "kvConfigPath"}


@dataclass
class Namesrv(FakeNamesrv):
    """A fake name server with a config (UPDATE applies known keys and ignores others, as Java's does), the
    KV list, the per-cluster topic list and write permission wiped per broker name."""

    config: dict[str, str] = field(
        default_factory=lambda: {"orderMessageEnable": "false", "productEnvName": "center", "listenPort": "9876"}
    )
    start_up_only: frozenset[str] = frozenset({"listenPort"})
    wiped: set[str] = field(default_factory=set)

    async def handle(self, cmd: RemotingCommand) -> RemotingCommand:
        if cmd.code == RC.GET_NAMESRV_CONFIG:
            return cmd.response(body=format_properties(self.config).encode())
        if cmd.code == RC.UPDATE_NAMESRV_CONFIG:
            props = parse_properties(cmd.body.decode())
            if BLACKLIST & props.keys():
                return cmd.response(ResponseCode.NO_PERMISSION, "Can not update config in black list.")
            self.config.update({k: v for k, v in props.items() if k in self.config and k not in self.start_up_only})
            return cmd.response()
        if cmd.code == RC.GET_KVLIST_BY_NAMESPACE:
            table = {k: v for (ns, k), v in self.kv.items() if ns == cmd.ext["namespace"]}
            if not table:
                return cmd.response(ResponseCode.QUERY_NOT_FOUND, "No config item")
            return cmd.response(body=fastjson.dumps_bytes({"table": table}))
        if cmd.code == RC.GET_TOPICS_BY_CLUSTER:
            topics = sorted({t for b in self.brokers if b.cluster == cmd.ext["cluster"] for t in b.topics})
            return cmd.response(body=fastjson.dumps_bytes({"topicList": topics}))
        if cmd.code in (RC.WIPE_WRITE_PERM_OF_BROKER, RC.ADD_WRITE_PERM_OF_BROKER):
            name = cmd.ext["brokerName"]
            (self.wiped.add if cmd.code == RC.WIPE_WRITE_PERM_OF_BROKER else self.wiped.discard)(name)
            count = sum(len(b.topics) for b in self.brokers if b.name == name and b.broker_id == 0)
            key = "wipeTopicCount" if cmd.code == RC.WIPE_WRITE_PERM_OF_BROKER else "addTopicCount"
            return cmd.response(ext={key: str(count)})
        resp = await super().handle(cmd)
        if cmd.code == RC.GET_ROUTEINFO_BY_TOPIC and resp.code == ResponseCode.SUCCESS:
            route = fastjson.loads(resp.body)
            for qd in route["queueDatas"]:
                if qd["brokerName"] in self.wiped:
                    qd["perm"] &= ~2
            resp.body = fastjson.dumps_bytes(route)
        return resp


def two_namesrvs() -> tuple[Namesrv, Namesrv, FakeBroker, FakeBroker]:
    _, a, b = two_broker_cluster()
    a.topics = {"Orders": TopicConfig("Orders"), "ReadOnly": TopicConfig("ReadOnly", perm=4)}
    b.topics = {"Orders": TopicConfig("Orders")}
    return Namesrv("127.0.0.1:9876", [a, b]), Namesrv("127.0.0.1:9877", [a, b]), a, b


def sent(cli: Cli, addr: str, code: int) -> int:
    return cli.transport.codes_sent_to(addr).count(code)


# --- config ------------------------------------------------------------------------------------------


def test_get_namesrv_config_of_every_name_server(monkeypatch, capsys) -> None:
    ns1, ns2, a, b = two_namesrvs()
    ns2.config["productEnvName"] = "other"
    cli = Cli(monkeypatch, capsys, ns1, ns2, a, b)
    table = cli("getNamesrvConfig")
    assert table.code == 0, table.err
    lines = [line.split() for line in table.out.splitlines()]
    assert lines[0] == ["NAME", "SERVER", "KEY", "VALUE"]
    assert [ns1.addr, "productEnvName", "center"] in lines and [ns2.addr, "productEnvName", "other"] in lines
    doc = cli("--format", "json", "getNamesrvConfig").json()
    assert [(r["addr"], r["config"]["productEnvName"]) for r in doc["results"]] == [
        (ns1.addr, "center"),
        (ns2.addr, "other"),
    ]


def test_update_namesrv_config_shows_old_and_new_on_each_name_server(monkeypatch, capsys) -> None:
    ns1, ns2, a, b = two_namesrvs()
    ns2.config["orderMessageEnable"] = "true"
    cli = Cli(monkeypatch, capsys, ns1, ns2, a, b)
    r = cli("--format", "json", "updateNamesrvConfig", "-k", " orderMessageEnable ", "-v", "true ")
    assert r.code == 0, r.err
    doc = r.json()
    assert (doc["key"], doc["value"], doc["outcome"]) == ("orderMessageEnable", "true", "ok")
    assert [(e["addr"], e["status"], e["changes"]) for e in doc["results"]] == [
        (ns1.addr, "updated", {"orderMessageEnable": {"old": "false", "new": "true"}}),
        (ns2.addr, "unchanged", {}),
    ]
    assert (sent(cli, ns1.addr, RC.UPDATE_NAMESRV_CONFIG), sent(cli, ns2.addr, RC.UPDATE_NAMESRV_CONFIG)) == (1, 0)
    assert ns1.config["orderMessageEnable"] == "true"


def test_update_namesrv_config_refused_unknown_and_ignored_keys_fail(monkeypatch, capsys) -> None:
    ns1, ns2, a, b = two_namesrvs()
    ns1.config["configStorePath"] = "/home/rocketmq/namesrv/namesrv.properties"
    cli = Cli(monkeypatch, capsys, ns1, a, b)

    refused = cli("updateNamesrvConfig", "-k", "configStorePath", "-v", "/tmp/x")
    assert refused.code == 1
    assert "NO_PERMISSION (16): Can not update config in black list." in refused.out
    assert_one_line_error(refused, "failed on every target")

    unknown = cli("updateNamesrvConfig", "-k", "noSuchKey", "-v", "1")
    assert unknown.code == 1 and "unknown key 'noSuchKey'" in unknown.out
    assert sent(cli, ns1.addr, RC.UPDATE_NAMESRV_CONFIG) == 1  # only the refused one was sent

    ignored = cli("--format", "json", "updateNamesrvConfig", "-k", "listenPort", "-v", "9999")
    (entry,) = ignored.json()["results"]
    assert (ignored.code, entry["status"]) == (1, "failed") and entry["reason"].startswith("not applied")


def test_update_namesrv_config_partial_failure_exits_3(monkeypatch, capsys) -> None:
    ns1, ns2, a, b = two_namesrvs()
    ns2.down = True
    r = Cli(monkeypatch, capsys, ns1, ns2, a, b)("updateNamesrvConfig", "-k", "productEnvName", "-v", "prod")
    assert r.code == 3
    rows = [line.split()[:3] for line in r.out.splitlines()[1:]]
    assert rows == [["namesrv", ns1.addr, "updated"], ["namesrv", ns2.addr, "failed"]]
    assert_one_line_error(r, "failed on 1 of 2 targets")


def test_update_namesrv_config_usage_errors_send_nothing(monkeypatch, capsys) -> None:
    ns1, _, a, b = two_namesrvs()
    cli = Cli(monkeypatch, capsys, ns1, a, b)
    for args, fragment in (
        (["-k", "productEnvName", "-v", "a\nconfigStorePath=/tmp"], "line break"),
        (["-k", "a=b", "-v", "1"], "is not a config key"),
        (["-k", "productEnvName", "-v", "  "], "is blank"),
    ):
        r = cli("updateNamesrvConfig", *args)
        assert r.code == 2
        assert_one_line_error(r, fragment)
    assert cli.transport.sent == []


# --- KV ----------------------------------------------------------------------------------------------


def test_update_kv_config_created_updated_unchanged(monkeypatch, capsys) -> None:
    ns1, ns2, a, b = two_namesrvs()
    ns2.kv[("NS", "k")] = "old"
    cli = Cli(monkeypatch, capsys, ns1, ns2, a, b)
    r = cli("updateKvConfig", "-s", "NS", "-k", "k", "-v", "new")
    assert r.code == 0, r.err
    assert [line.split()[2:] for line in r.out.splitlines()[1:]] == [["created"], ["updated", "k", "old→new"]]
    again = cli("--format", "json", "updateKvConfig", "-s", "NS", "-k", "k", "-v", "new")
    assert [e["status"] for e in again.json()["results"]] == ["unchanged", "unchanged"]
    assert ns1.kv[("NS", "k")] == ns2.kv[("NS", "k")] == "new"
    assert sent(cli, ns1.addr, RC.PUT_KV_CONFIG) == sent(cli, ns2.addr, RC.PUT_KV_CONFIG) == 1


def test_get_and_delete_kv_config(monkeypatch, capsys) -> None:
    ns1, ns2, a, b = two_namesrvs()
    ns1.kv.update({("NS", "k"): "v", ("NS", "j"): "w", ("OTHER", "x"): "y"})
    cli = Cli(monkeypatch, capsys, ns1, ns2, a, b)
    monkeypatch.setenv("NAMESRV_ADDR", ns1.addr)
    assert cli("--format", "json", "getKvConfig", "-s", "NS").json() == {
        "namespace": "NS",
        "entries": {"j": "w", "k": "v"},
    }
    assert cli("getKvConfig", "-s", "NS", "-k", "k").out.split() == ["KEY", "VALUE", "k", "v"]
    missing = cli("getKvConfig", "-s", "NS", "-k", "nope")
    assert missing.code == 1 and missing.out == ""
    empty = cli("getKvConfig", "-s", "EMPTY")
    assert (empty.code, empty.out) == (0, "")

    monkeypatch.setenv("NAMESRV_ADDR", f"{ns1.addr};{ns2.addr}")
    deleted = cli("--format", "json", "deleteKvConfig", "-s", "NS", "-k", "k")
    assert deleted.code == 0, deleted.err
    assert [(e["status"], e["value"]) for e in deleted.json()["results"]] == [("deleted", "v"), ("not found", None)]
    assert ("NS", "k") not in ns1.kv and sent(cli, ns2.addr, RC.DELETE_KV_CONFIG) == 0
    gone = cli("deleteKvConfig", "-s", "NS", "-k", "k")
    assert gone.code == 1
    assert_one_line_error(gone, "no name server has 'k' in namespace 'NS'")
    assert cli("deleteKvConfig", "-s", "NS", "-k", "k", "--if-exists").code == 0


# --- write permission ----------------------------------------------------------------------------------


def test_wipe_write_perm_dry_run_lists_the_routes_and_changes_nothing(monkeypatch, capsys) -> None:
    ns1, ns2, a, b = two_namesrvs()
    cli = Cli(monkeypatch, capsys, ns1, ns2, a, b)
    r = cli("wipeWritePerm", "-b", "broker-a", "--dry-run")
    assert r.code == 0, r.err
    assert [line.split() for line in r.out.splitlines()] == [
        ["NAME", "SERVER", "TOPIC", "PERM"],
        [ns1.addr, "Orders", "RW-→R--"],
        [ns2.addr, "Orders", "RW-→R--"],
    ]
    assert "1 of the 2 topics of broker-a would lose write permission" in r.err
    assert all(sent(cli, ns.addr, RC.WIPE_WRITE_PERM_OF_BROKER) == 0 for ns in (ns1, ns2))
    doc = cli("--format", "json", "wipeWritePerm", "-b", "broker-a", "--dry-run").json()
    assert doc["dryRun"] is True
    assert [(e["topicCount"], e["topics"]) for e in doc["results"]] == [
        (2, [{"topic": "Orders", "perm": {"old": 6, "new": 4}}])
    ] * 2


def test_wipe_then_add_write_perm_on_every_name_server(monkeypatch, capsys) -> None:
    ns1, ns2, a, b = two_namesrvs()
    cli = Cli(monkeypatch, capsys, ns1, ns2, a, b)
    wiped = cli("wipeWritePerm", "-b", "broker-a")
    assert wiped.code == 0, wiped.err
    assert [line.split() for line in wiped.out.splitlines()[1:]] == [
        ["namesrv", ns1.addr, "ok", "2"],
        ["namesrv", ns2.addr, "ok", "2"],
    ]
    assert ns1.wiped == ns2.wiped == {"broker-a"}
    after = cli("--format", "json", "wipeWritePerm", "-b", "broker-a", "--dry-run").json()
    assert [e["topics"] for e in after["results"]] == [[], []]
    added = cli("--format", "json", "addWritePerm", "-b", "broker-a").json()
    assert [(e["addr"], e["topicCount"]) for e in added["results"]] == [(ns1.addr, 2), (ns2.addr, 2)]
    assert ns1.wiped == ns2.wiped == set()


def test_write_perm_takes_a_registered_broker_name(monkeypatch, capsys) -> None:
    ns1, _, a, b = two_namesrvs()
    cli = Cli(monkeypatch, capsys, ns1, a, b)
    addr = cli("wipeWritePerm", "-b", a.addr)
    assert addr.code == 2
    assert_one_line_error(addr, "is an address; this command takes a broker name")
    unknown = cli("addWritePerm", "-b", "broker-z")
    assert unknown.code == 2
    assert_one_line_error(unknown, "broker 'broker-z' is not registered", "broker-a, broker-b")
    assert sent(cli, ns1.addr, RC.WIPE_WRITE_PERM_OF_BROKER) == sent(cli, ns1.addr, RC.ADD_WRITE_PERM_OF_BROKER) == 0
