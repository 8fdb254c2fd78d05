"""The name-server commands through the CLI entry point: what a name server does with a config change (refusals,
keys read only at start-up) against the embedded one; the fan-out to every name server, old→new, dry runs and
usage errors over scripted name servers (each keeping a config, KV entries and wiped brokers)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqadmin.model.route import BrokerData, QueueData, TopicRouteData
from mqadmin.model.rpc import namesrv, namesrv_admin
from mqadmin.model.rpc.spec import Decoded
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode
from tests.embedded import ThreadedCluster
from tests.mock_transport import Answer, MockTransport, cluster_info, ok, refuse, routes
from tests.unit.cli_helpers import A, B, Cli, assert_one_line_error

NS1, NS2 = "127.0.0.1:9876", "127.0.0.1:9877"
HELD = {"broker-a": {"Orders": 6, "ReadOnly": 4}, "broker-b": {"Orders": 6}}
"""Topic -> perm of each broker's queue data."""


@dataclass
class Namesrv:
    """What one scripted name server answers: its config, KV entries and the brokers whose write permission
    is wiped (their queue data loses PERM_WRITE in routes)."""

    config: dict[str, str] = field(
        default_factory=lambda: {"orderMessageEnable": "false", "productEnvName": "center", "listenPort": "9876"}
    )
    kv: dict[tuple[str, str], str] = field(default_factory=dict)
    wiped: set[str] = field(default_factory=set)

    def answers(self) -> dict[Any, Any]:
        return {
            namesrv.GET_BROKER_CLUSTER_INFO: ok(cluster_info(("broker-a", 0, A), ("broker-b", 0, B))),
            namesrv.GET_TOPICS_BY_CLUSTER: ok(sorted({t for held in HELD.values() for t in held})),
            namesrv.GET_ROUTEINFO_BY_TOPIC: self._route,
            namesrv.GET_NAMESRV_CONFIG: lambda _req, _addr: ok(dict(self.config)),
            namesrv.UPDATE_NAMESRV_CONFIG: self._update,
            namesrv_admin.PUT_KV_CONFIG: self._put,
            namesrv_admin.GET_KV_CONFIG: self._get,
            namesrv_admin.GET_KVLIST_BY_NAMESPACE: self._list,
            namesrv_admin.DELETE_KV_CONFIG: self._delete,
            namesrv_admin.WIPE_WRITE_PERM_OF_BROKER: self._wipe,
            namesrv_admin.ADD_WRITE_PERM_OF_BROKER: self._wipe,
        }

    def _route(self, req: Decoded[namesrv.RouteHeader, None], _addr: str) -> Answer:
        holders = [(name, held[req.header.topic]) for name, held in HELD.items() if req.header.topic in held]
        addrs = {"broker-a": A, "broker-b": B}
        return ok(
            TopicRouteData(
                [BrokerData("DefaultCluster", name, {0: addrs[name]}) for name, _ in holders],
                [QueueData(name, 8, 8, perm & ~2 if name in self.wiped else perm) for name, perm in holders],
            )
        )

    def _update(self, req: Decoded[None, dict[str, str]], _addr: str) -> Answer:
        self.config.update({k: v for k, v in req.body.items() if k in self.config and k != "listenPort"})
        return ok()

    def _put(self, req: Decoded[namesrv_admin.PutKvHeader, None], _addr: str) -> Answer:
        self.kv[(req.header.namespace, req.header.key)] = req.header.value
        return ok()

    def _get(self, req: Decoded[namesrv_admin.KvHeader, None], _addr: str) -> Answer:
        value = self.kv.get((req.header.namespace, req.header.key))
        if value is None:
            return refuse(ResponseCode.QUERY_NOT_FOUND, "No config item")
        return ok(header=namesrv_admin.KvValueHeader(value=value))

    def _list(self, req: Decoded[namesrv_admin.NamespaceHeader, None], _addr: str) -> Answer:
        table = {k: v for (ns, k), v in self.kv.items() if ns == req.header.namespace}
        return ok(table) if table else refuse(ResponseCode.QUERY_NOT_FOUND, "No config item")

    def _delete(self, req: Decoded[namesrv_admin.KvHeader, None], _addr: str) -> Answer:
        self.kv.pop((req.header.namespace, req.header.key), None)
        return ok()

    def _wipe(self, req: Decoded[namesrv_admin.BrokerNameHeader, None], _addr: str) -> Answer:
        name, count = req.header.broker_name, len(HELD.get(req.header.broker_name, {}))
        if req.cmd.code == RC.WIPE_WRITE_PERM_OF_BROKER:
            self.wiped.add(name)
            return ok(header=namesrv_admin.WipeCountHeader(count=count))
        self.wiped.discard(name)
        return ok(header=namesrv_admin.AddCountHeader(count=count))


def namesrvs(monkeypatch, capsys, *servers: Namesrv, down: frozenset[str] = frozenset()) -> Cli:
    """The CLI over scripted name servers at NS1, NS2, … (in that order)."""
    by_addr = {f"127.0.0.1:{9876 + i}": routes(ns.answers()) for i, ns in enumerate(servers)}
    transport = MockTransport(lambda req, addr: by_addr[addr](req, addr), down=down)
    return Cli(monkeypatch, capsys, namesrvs=list(by_addr), transport=transport)


def sent(cli: Cli, addr: str, code: int) -> int:
    assert isinstance(cli.transport, MockTransport)
    return cli.transport.codes_sent_to(addr).count(code)


# --- config ------------------------------------------------------------------------------------------


def test_get_namesrv_config_of_every_name_server(monkeypatch, capsys) -> None:
    ns2 = Namesrv()
    ns2.config["productEnvName"] = "other"
    cli = namesrvs(monkeypatch, capsys, Namesrv(), ns2)
    table = cli("getNamesrvConfig")
    assert table.code == 0, table.err
    lines = [line.split() for line in table.out.splitlines()]
    assert lines[0] == ["NAME", "SERVER", "KEY", "VALUE"]
    assert [NS1, "productEnvName", "center"] in lines and [NS2, "productEnvName", "other"] in lines
    doc = cli("--format", "json", "getNamesrvConfig").json()
    assert [(r["addr"], r["config"]["productEnvName"]) for r in doc["results"]] == [
        (NS1, "center"),
        (NS2, "other"),
    ]


def test_update_namesrv_config_shows_old_and_new_on_each_name_server(monkeypatch, capsys) -> None:
    ns1, ns2 = Namesrv(), Namesrv()
    ns2.config["orderMessageEnable"] = "true"
    cli = namesrvs(monkeypatch, capsys, ns1, ns2)
    r = cli("--format", "json", "updateNamesrvConfig", "-k", " orderMessageEnable ", "-v", "true ")
    assert r.code == 0, r.err
    doc = r.json()
    assert (doc["key"], doc["value"], doc["outcome"]) == ("orderMessageEnable", "true", "ok")
    assert [(e["addr"], e["status"], e["changes"]) for e in doc["results"]] == [
        (NS1, "updated", {"orderMessageEnable": {"old": "false", "new": "true"}}),
        (NS2, "unchanged", {}),
    ]
    assert (sent(cli, NS1, RC.UPDATE_NAMESRV_CONFIG), sent(cli, NS2, RC.UPDATE_NAMESRV_CONFIG)) == (1, 0)
    assert ns1.config["orderMessageEnable"] == "true"


def test_update_namesrv_config_refused_unknown_and_ignored_keys_fail(live: Cli, embedded: ThreadedCluster) -> None:
    refused = live("updateNamesrvConfig", "-k", "configStorePath", "-v", "/tmp/x")
    assert refused.code == 1
    assert "NO_PERMISSION (16): Can not update config in black list." in refused.out
    assert_one_line_error(refused, "failed on every target")

    unknown = live("--debug", "updateNamesrvConfig", "-k", "noSuchKey", "-v", "1")
    assert unknown.code == 1 and "unknown key 'noSuchKey'" in unknown.out
    assert "UPDATE_NAMESRV_CONFIG(" not in unknown.err  # nothing sent for a key the name server does not have

    start_up = live("--format", "json", "updateNamesrvConfig", "-k", "listenPort", "-v", "9999")
    (entry,) = start_up.error_json()["document"]["results"]
    assert (start_up.code, entry["status"]) == (1, "failed") and "read at start-up only" in entry["reason"]


def test_a_key_the_name_server_ignores_is_reported_not_applied(monkeypatch, capsys) -> None:
    """A name server that answers SUCCESS but keeps the old value (the scripted one ignores listenPort)."""
    ignored = namesrvs(monkeypatch, capsys, Namesrv())(
        "--format", "json", "updateNamesrvConfig", "-k", "listenPort", "-v", "9999"
    )
    (entry,) = ignored.error_json()["document"]["results"]
    assert (ignored.code, entry["status"]) == (1, "failed") and entry["reason"].startswith("not applied")


def test_update_namesrv_config_partial_failure_exits_3(monkeypatch, capsys) -> None:
    cli = namesrvs(monkeypatch, capsys, Namesrv(), Namesrv(), down=frozenset({NS2}))
    r = cli("updateNamesrvConfig", "-k", "productEnvName", "-v", "prod")
    assert r.code == 3
    rows = [line.split()[:3] for line in r.out.splitlines()[1:]]
    assert rows == [["namesrv", NS1, "updated"], ["namesrv", NS2, "failed"]]
    assert_one_line_error(r, "failed on 1 of 2 targets")


def test_update_namesrv_config_usage_errors_send_nothing(monkeypatch, capsys) -> None:
    cli = namesrvs(monkeypatch, capsys, Namesrv())
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
    ns1, ns2 = Namesrv(), Namesrv(kv={("NS", "k"): "old"})
    cli = namesrvs(monkeypatch, capsys, ns1, ns2)
    r = cli("updateKvConfig", "-s", "NS", "-k", "k", "-v", "new")
    assert r.code == 0, r.err
    assert [line.split()[2:] for line in r.out.splitlines()[1:]] == [["created"], ["updated", "k", "old→new"]]
    again = cli("--format", "json", "updateKvConfig", "-s", "NS", "-k", "k", "-v", "new")
    assert [e["status"] for e in again.json()["results"]] == ["unchanged", "unchanged"]
    assert ns1.kv[("NS", "k")] == ns2.kv[("NS", "k")] == "new"
    assert sent(cli, NS1, RC.PUT_KV_CONFIG) == sent(cli, NS2, RC.PUT_KV_CONFIG) == 1


def test_get_and_delete_kv_config(monkeypatch, capsys) -> None:
    ns1 = Namesrv(kv={("NS", "k"): "v", ("NS", "j"): "w", ("OTHER", "x"): "y"})
    cli = namesrvs(monkeypatch, capsys, ns1, Namesrv())
    monkeypatch.setenv("NAMESRV_ADDR", NS1)
    assert cli("--format", "json", "getKvConfig", "-s", "NS").json() == {
        "namespace": "NS",
        "entries": {"j": "w", "k": "v"},
    }
    assert cli("getKvConfig", "-s", "NS", "-k", "k").out.split() == ["KEY", "VALUE", "k", "v"]
    missing = cli("getKvConfig", "-s", "NS", "-k", "nope")
    assert missing.code == 1 and missing.out == ""
    empty = cli("getKvConfig", "-s", "EMPTY")
    assert (empty.code, empty.out) == (0, "")

    monkeypatch.setenv("NAMESRV_ADDR", f"{NS1};{NS2}")
    deleted = cli("--format", "json", "deleteKvConfig", "-s", "NS", "-k", "k")
    assert deleted.code == 0, deleted.err
    assert [(e["status"], e["value"]) for e in deleted.json()["results"]] == [("deleted", "v"), ("not found", None)]
    assert ("NS", "k") not in ns1.kv and sent(cli, NS2, RC.DELETE_KV_CONFIG) == 0
    gone = cli("deleteKvConfig", "-s", "NS", "-k", "k")
    assert gone.code == 1
    assert_one_line_error(gone, "no name server has 'k' in namespace 'NS'")
    assert cli("deleteKvConfig", "-s", "NS", "-k", "k", "--if-exists").code == 0


# --- write permission ----------------------------------------------------------------------------------


def test_wipe_write_perm_dry_run_lists_the_routes_and_changes_nothing(monkeypatch, capsys) -> None:
    cli = namesrvs(monkeypatch, capsys, Namesrv(), Namesrv())
    r = cli("wipeWritePerm", "-b", "broker-a", "--dry-run")
    assert r.code == 0, r.err
    assert [line.split() for line in r.out.splitlines()] == [
        ["NAME", "SERVER", "TOPIC", "PERM"],
        [NS1, "Orders", "RW-→R--"],
        [NS2, "Orders", "RW-→R--"],
    ]
    assert "1 of the 2 topics of broker-a would lose write permission" in r.err
    assert all(sent(cli, ns, RC.WIPE_WRITE_PERM_OF_BROKER) == 0 for ns in (NS1, NS2))
    doc = cli("--format", "json", "wipeWritePerm", "-b", "broker-a", "--dry-run").json()
    assert doc["dryRun"] is True
    assert [(e["topicCount"], e["topics"]) for e in doc["results"]] == [
        (2, [{"topic": "Orders", "perm": {"old": 6, "new": 4}}])
    ] * 2


def test_wipe_then_add_write_perm_on_every_name_server(monkeypatch, capsys) -> None:
    ns1, ns2 = Namesrv(), Namesrv()
    cli = namesrvs(monkeypatch, capsys, ns1, ns2)
    wiped = cli("wipeWritePerm", "-b", "broker-a")
    assert wiped.code == 0, wiped.err
    assert [line.split() for line in wiped.out.splitlines()[1:]] == [
        ["namesrv", NS1, "ok", "2"],
        ["namesrv", NS2, "ok", "2"],
    ]
    assert ns1.wiped == ns2.wiped == {"broker-a"}
    after = cli("--format", "json", "wipeWritePerm", "-b", "broker-a", "--dry-run").json()
    assert [e["topics"] for e in after["results"]] == [[], []]
    added = cli("--format", "json", "addWritePerm", "-b", "broker-a").json()
    assert [(e["addr"], e["topicCount"]) for e in added["results"]] == [(NS1, 2), (NS2, 2)]
    assert ns1.wiped == ns2.wiped == set()


def test_write_perm_takes_a_registered_broker_name(monkeypatch, capsys) -> None:
    cli = namesrvs(monkeypatch, capsys, Namesrv())
    addr = cli("wipeWritePerm", "-b", A)
    assert addr.code == 2
    assert_one_line_error(addr, "is an address; this command takes a broker name")
    unknown = cli("addWritePerm", "-b", "broker-z")
    assert unknown.code == 2
    assert_one_line_error(unknown, "broker 'broker-z' is not registered", "broker-a, broker-b")
    assert sent(cli, NS1, RC.WIPE_WRITE_PERM_OF_BROKER) == sent(cli, NS1, RC.ADD_WRITE_PERM_OF_BROKER) == 0
