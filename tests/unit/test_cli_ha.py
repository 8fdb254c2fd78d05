"""The HA, controller and store commands through the CLI entry point, over scripted brokers and controllers that
answer as Apache 5.x does (bodies in Java's field names, the leader found by metadata); the embedded servers have
no controller mode."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqadmin.model.ha import (
    BrokerMemberGroup,
    ElectMasterBody,
    EpochCache,
    EpochEntry,
    HaClient,
    HaConnection,
    HaRuntimeInfo,
    ReplicaIdentity,
    ReplicasInfo,
)
from mqadmin.model.rpc import brokers, namesrv, store
from mqadmin.model.rpc import ha as rpc
from mqadmin.model.rpc.spec import Decoded
from mqadmin.wire.codes import ResponseCode
from tests.mock_transport import Answer, MockTransport, cluster_info, ok, routes, unsupported
from tests.unit.cli_helpers import Cli, assert_one_line_error

MASTER, SLAVE, OTHER = "127.0.0.1:10911", "127.0.0.1:10912", "127.0.0.1:10921"
CTL, LEADER = "127.0.0.1:9878", "127.0.0.1:9879"
NS = "127.0.0.1:9876"

MASTER_HA = HaRuntimeInfo(
    master=True,
    master_commit_log_max_offset=4096,
    in_sync_slave_nums=1,
    connections=[HaConnection("127.0.0.1:50312", 4000, 96, True, 2048, 0)],
)
SLAVE_HA = HaRuntimeInfo(master=False, client=HaClient(master_addr="127.0.0.1:10912", max_offset=4000))
REPLICAS = ReplicasInfo(
    master_broker_id=1,
    master_address=MASTER,
    master_epoch=3,
    sync_state_set_epoch=4,
    in_sync=[ReplicaIdentity("broker-a", 1, MASTER, True)],
    not_in_sync=[ReplicaIdentity("broker-a", 2, SLAVE, False)],
)


@dataclass
class HaBroker:
    """A 5.x broker's answers: its HA status (None: a 4.x broker without the request), epochs, store requests."""

    name: str
    info: HaRuntimeInfo | None
    broker_id: int = 0
    check_status: int = 2

    def answers(self) -> dict[Any, Any]:
        epochs = [EpochEntry(1, 0, 2048), EpochEntry(2, 2048)]
        cache = EpochCache("DefaultCluster", self.name, self.broker_id, epochs, 4096 + self.broker_id)
        result = store.CheckCqResult(self.check_status, "boom" if self.check_status == 3 else None)
        table: dict[Any, Any] = {
            rpc.GET_BROKER_EPOCH_CACHE: ok(cache),
            store.CHECK_ROCKSDB_CQ_WRITE_PROGRESS: ok(result),
            store.EXPORT_ROCKSDB_CONFIG_TO_JSON: Answer(remark="export done."),
            store.POP_ROLLBACK: Answer(remark="export done."),
        }
        if self.info is not None:
            table[rpc.GET_BROKER_HA_STATUS] = ok(self.info)
        return table


@dataclass
class Controller:
    """A controller: ``addr`` answers metadata naming ``leader``; the leader keeps the replicas of broker-a."""

    addr: str
    leader: str | None = LEADER
    config: dict[str, str] = field(default_factory=lambda: {"scanNotActiveBrokerInterval": "5000"})
    keep_master: bool = False

    def answers(self) -> dict[Any, Any]:
        leader = {"leader_id": "n1", "leader_address": self.leader} if self.leader else {}
        metadata = rpc.ControllerMetadataHeader(
            group="g1", is_leader=self.addr == self.leader, peers=f"n0:{CTL};n1:{LEADER}", **leader
        )
        return {
            rpc.CONTROLLER_GET_METADATA_INFO: ok(header=metadata),
            rpc.GET_CONTROLLER_CONFIG: lambda _req, _addr: ok(dict(self.config)),
            rpc.UPDATE_CONTROLLER_CONFIG: self._update,
            rpc.CONTROLLER_GET_SYNC_STATE_DATA: lambda req, _a: ok({n: REPLICAS for n in req.body if n == "broker-a"}),
            rpc.CONTROLLER_ELECT_MASTER: self._elect,
            rpc.CLEAN_BROKER_DATA: ok(),
        }

    def _update(self, req: Decoded[None, dict[str, str]], _addr: str) -> Answer:
        self.config.update({k: v for k, v in req.body.items() if k in self.config})
        return ok()

    def _elect(self, req: Decoded[rpc.ElectMasterHeader, None], _addr: str) -> Answer:
        if self.keep_master:
            header = rpc.ElectMasterResponseHeader(
                master_broker_id=1, master_address=MASTER, master_epoch=3, sync_state_set_epoch=4
            )
            return Answer(header, ElectMasterBody([1, 2]), ResponseCode.CONTROLLER_MASTER_STILL_EXIST,
                          "The old master 1 is still alive")  # fmt: skip
        header = rpc.ElectMasterResponseHeader(
            master_broker_id=req.header.broker_id, master_address=SLAVE, master_epoch=4, sync_state_set_epoch=5
        )
        group = BrokerMemberGroup("DefaultCluster", "broker-a", {1: MASTER, 2: SLAVE})
        return ok(ElectMasterBody([2], group), header)


def servers(monkeypatch, capsys, by_addr: dict[str, dict[Any, Any]], *, slave: bool = True) -> Cli:
    """The CLI over scripted servers: address -> answer table (a name server at NS answers the cluster info:
    broker-a at MASTER, its slave at SLAVE, broker-b at OTHER)."""
    replicas = [("broker-a", 0, MASTER), ("broker-a", 1, SLAVE), ("broker-b", 0, OTHER)]
    info = cluster_info(*(r for r in replicas if slave or r[2] != SLAVE))
    handlers = {NS: routes({namesrv.GET_BROKER_CLUSTER_INFO: ok(info)})} | {a: routes(t) for a, t in by_addr.items()}

    def handler(req: Decoded[Any, Any], addr: str) -> Any:
        return handlers[addr](req, addr) if addr in handlers else unsupported(req)

    return Cli(monkeypatch, capsys, namesrvs=[NS], transport=MockTransport(handler, down=frozenset({"127.0.0.1:9"})))


def cluster(monkeypatch, capsys, b: HaBroker | None = None) -> Cli:
    b = b or HaBroker("broker-b", HaRuntimeInfo(master=True, master_commit_log_max_offset=10))
    brokers = {MASTER: HaBroker("broker-a", MASTER_HA), SLAVE: HaBroker("broker-a", SLAVE_HA, broker_id=1), OTHER: b}
    return servers(monkeypatch, capsys, {addr: x.answers() for addr, x in brokers.items()})


def controllers(monkeypatch, capsys, **kw: Any) -> tuple[Cli, Controller, Controller]:
    ctl, leader = Controller(CTL, **kw), Controller(LEADER, **kw)
    return servers(monkeypatch, capsys, {CTL: ctl.answers(), LEADER: leader.answers()}), ctl, leader


def sent(cli: Cli, addr: str | None = None) -> list[Any]:
    assert isinstance(cli.transport, MockTransport)
    return [c for a, c in cli.transport.sent if addr in (None, a)]


# --- haStatus, getBrokerEpoch --------------------------------------------------------------------------


def test_ha_status_shows_masters_their_slaves_and_a_slave(monkeypatch, capsys) -> None:
    cli = cluster(monkeypatch, capsys)
    out = cli("haStatus", "-c", "DefaultCluster")
    assert out.code == 0, out.err
    assert "127.0.0.1:50312" in out.out and "in sync" in out.out and "2.00" in out.out  # 2048 B/s
    doc = cli("haStatus", "-b", SLAVE, "--format", "json").json()
    (entry,) = doc["results"]
    assert entry["haStatus"]["master"] is False
    assert entry["haStatus"]["haClientRuntimeInfo"]["masterAddr"] == "127.0.0.1:10912"
    table = cli("haStatus", "-b", SLAVE)
    assert "slave" in table.out and "127.0.0.1:10912" in table.out


def test_ha_status_needs_one_of_b_and_c(monkeypatch, capsys) -> None:
    cli = cluster(monkeypatch, capsys)
    assert_one_line_error(cli("haStatus"), "-b")
    both = cli("haStatus", "-b", MASTER, "-c", "DefaultCluster")
    assert both.code == 2


def test_ha_status_reports_a_broker_that_refuses(monkeypatch, capsys) -> None:
    old = HaBroker("broker-b", None)  # 4.x: REQUEST_CODE_NOT_SUPPORTED
    out = cluster(monkeypatch, capsys, old)("haStatus", "-c", "DefaultCluster")
    assert out.code == 3 and "REQUEST_CODE_NOT_SUPPORTED" in out.out and MASTER in out.out


def test_broker_epoch_asks_every_replica_and_ends_the_last_epoch_at_the_max_offset(monkeypatch, capsys) -> None:
    cli = cluster(monkeypatch, capsys)
    doc = cli("getBrokerEpoch", "-b", "broker-a", "--format", "json").json()
    assert [r["addr"] for r in doc["results"]] == [MASTER, SLAVE]
    ends = [r["epochCache"]["epochList"][-1]["endOffset"] for r in doc["results"]]
    assert ends == [4096, 4097]
    unknown = cli("getBrokerEpoch", "-b", "broker-z")
    assert_one_line_error(unknown, "broker-z", "broker-a")
    assert unknown.code == 2


# --- the controller ------------------------------------------------------------------------------------


def test_sync_state_set_goes_to_the_leader(monkeypatch, capsys) -> None:
    cli, _, _ = controllers(monkeypatch, capsys)
    doc = cli("getSyncStateSet", "-a", CTL, "-b", "broker-a", "--format", "json").json()
    assert [r.code for r in sent(cli, CTL)] == [rpc.CONTROLLER_GET_METADATA_INFO_CODE]
    (asked,) = sent(cli, LEADER)
    assert rpc.CONTROLLER_GET_SYNC_STATE_DATA.decode(asked).body == ["broker-a"]
    (broker,) = doc["brokers"]
    assert broker["brokerName"] == "broker-a" and broker["masterAddress"] == MASTER
    assert [r["brokerId"] for r in broker["notInSyncReplicas"]] == [2]
    table = cli("getSyncStateSet", "-a", CTL, "-b", "broker-a")
    assert table.code == 0 and SLAVE in table.out


def test_a_controller_without_leader_is_an_error(monkeypatch, capsys) -> None:
    cli, _, _ = controllers(monkeypatch, capsys, leader=None)
    out = cli("getSyncStateSet", "-a", CTL, "-b", "broker-a")
    assert_one_line_error(out, "reports no leader")
    assert out.code == 1


def test_controller_metadata_and_bad_addresses(monkeypatch, capsys) -> None:
    cli, _, _ = controllers(monkeypatch, capsys)
    doc = cli("getControllerMetaData", "-a", CTL, "--format", "json").json()
    assert doc == {
        "controller": CTL, "group": "g1", "controllerLeaderId": "n1", "controllerLeaderAddress": LEADER,
        "isLeader": False, "peers": [f"n0:{CTL}", f"n1:{LEADER}"],
    }  # fmt: skip
    bad = cli("getControllerMetaData", "-a", "nohost")
    assert bad.code == 2 and "bad controller address" in bad.err
    nothing = cli("getControllerMetaData", "-a", "127.0.0.1:9")
    assert nothing.code == 1


def test_a_controller_group_is_reached_through_its_first_live_peer(monkeypatch, capsys) -> None:
    """-a lists a group's peers as brokers' controllerAddr does: one that cannot be reached is passed over."""
    cli, _, _ = controllers(monkeypatch, capsys)
    group = f"127.0.0.1:9;{CTL}"
    meta = cli("getControllerMetaData", "-a", group, "--format", "json")
    assert meta.code == 0 and meta.json()["controller"] == CTL
    assert "controller 127.0.0.1:9 not reachable; asked " + CTL in meta.err
    states = cli("getSyncStateSet", "-a", group, "-b", "broker-a", "--format", "json")
    assert states.code == 0 and states.json()["controller"] == CTL and states.json()["brokers"]
    elect = cli("electMaster", "-a", group, "-c", "DefaultCluster", "-bn", "broker-a", "-b", "2", "--format", "json")
    assert elect.code == 0 and elect.json()["elected"] is True, elect.err
    clean = ["cleanBrokerMetadata", "-a", group, "-c", "DefaultCluster", "-bn", "broker-a", "-b", "2"]
    assert cli(*clean, "--format", "json").json()["controller"] == LEADER
    assert cli("getSyncStateSet", "-a", "127.0.0.1:9;127.0.0.1:9", "-b", "broker-a").code == 1  # none reachable


def test_controller_config_fans_out_and_update_reports_each(monkeypatch, capsys) -> None:
    cli, ctl, leader = controllers(monkeypatch, capsys)
    both = f"{CTL};{LEADER};127.0.0.1:9"
    got = cli("getControllerConfig", "-a", both)
    assert got.code == 3 and got.out.count("scanNotActiveBrokerInterval") == 2
    doc = cli("updateControllerConfig", "-a", f"{CTL};{LEADER}", "-k", "scanNotActiveBrokerInterval", "-v", "6000",
              "--format", "json").json()  # fmt: skip
    assert [r["status"] for r in doc["results"]] == ["updated", "updated"]
    assert ctl.config["scanNotActiveBrokerInterval"] == leader.config["scanNotActiveBrokerInterval"] == "6000"
    unknown = cli("updateControllerConfig", "-a", CTL, "-k", "nope", "-v", "1")
    assert unknown.code == 1 and "unknown key" in unknown.out


def test_elect_master_reports_the_new_master_or_that_it_stays(monkeypatch, capsys) -> None:
    cli, _, _ = controllers(monkeypatch, capsys)
    args = ["electMaster", "-a", CTL, "-c", "DefaultCluster", "-bn", "broker-a", "-b", "2", "--format", "json"]
    dry = cli(*args, "--dry-run").json()
    assert dry["after"] is None and dry["before"]["masterBrokerId"] == 1
    assert rpc.CONTROLLER_ELECT_MASTER_CODE not in [r.code for r in sent(cli, LEADER)]
    doc = cli(*args).json()
    assert doc["elected"] is True and doc["after"]["masterAddress"] == SLAVE and doc["brokerAddrs"] == {
        "1": MASTER, "2": SLAVE}  # fmt: skip
    elect = next(r for r in sent(cli, LEADER) if r.code == rpc.CONTROLLER_ELECT_MASTER_CODE)
    assert elect.ext["designateElect"] == "true" and elect.ext["brokerId"] == "2" and elect.ext["clusterName"]
    kept = controllers(monkeypatch, capsys, keep_master=True)[0](*args)
    assert kept.code == 0 and kept.json()["elected"] is False and "still alive" in kept.json()["remark"]


def test_clean_broker_metadata_checks_its_input_and_dry_run_sends_nothing(monkeypatch, capsys) -> None:
    cli, _, _ = controllers(monkeypatch, capsys)
    assert cli("cleanBrokerMetadata", "-a", CTL, "-bn", "broker-a").code == 2  # -c or -l
    assert cli("cleanBrokerMetadata", "-a", CTL, "-bn", "broker-a", "-c", "DefaultCluster", "-b", "1;x").code == 2
    # with -l Apache's controller forgets every replica whatever -b says: the pair is refused, nothing is sent
    both = cli("cleanBrokerMetadata", "-a", CTL, "-bn", "broker-a", "-l", "-b", "3")
    assert_one_line_error(both, "-b cannot go with -l", "leave -b out")
    assert both.code == 2 and sent(cli, LEADER) == []
    base = ["cleanBrokerMetadata", "-a", CTL, "-bn", "broker-a", "-c", "DefaultCluster", "-b", "2", "--format", "json"]
    dry = cli(*base, "--dry-run").json()
    assert [(r["brokerId"], r["clean"]) for r in dry["replicas"]] == [(1, False), (2, True)]
    assert rpc.CLEAN_BROKER_DATA_CODE not in [r.code for r in sent(cli, LEADER)]
    done = cli(*base).json()
    assert done["controller"] == LEADER
    clean = next(r for r in sent(cli, LEADER) if r.code == rpc.CLEAN_BROKER_DATA_CODE)
    assert clean.ext["brokerControllerIdsToClean"] == "2" and clean.ext["isCleanLivingBroker"] == "false"
    assert "holds no replica" not in cli(*base).err
    # an id the controller does not hold: it answers success and forgets nothing, which ours says
    unknown = cli("cleanBrokerMetadata", "-a", CTL, "-bn", "broker-a", "-c", "DefaultCluster", "-b", "2;9")
    assert unknown.code == 0 and "holds no replica of broker-a with id 9: nothing to forget" in unknown.err


def test_controller_commands_explain_a_server_that_is_no_controller(monkeypatch, capsys) -> None:
    out = servers(monkeypatch, capsys, {})("getControllerMetaData", "-a", NS)
    assert_one_line_error(out, "REQUEST_CODE_NOT_SUPPORTED", "enableControllerInNamesrv")


# --- store requests --------------------------------------------------------------------------------------


def test_check_rocksdb_cq_reports_check_error_as_failed(monkeypatch, capsys) -> None:
    a, b = HaBroker("broker-a", MASTER_HA, check_status=2), HaBroker("broker-b", MASTER_HA, check_status=3)
    cli = servers(monkeypatch, capsys, {MASTER: a.answers(), OTHER: b.answers()}, slave=False)
    doc = cli(
        "checkRocksdbCqWriteProgress", "-c", "DefaultCluster", "-t", "T", "-cf", "1700000000000", "--format", "json"
    )
    assert doc.code == 3
    assert [(r["status"], r["checkStatus"]) for r in doc.json()["results"]] == [
        ("ok", "CHECK_IN_PROGRESS"), ("failed", "CHECK_ERROR")]  # fmt: skip
    check = next(c for c in sent(cli, MASTER) if c.code == store.CHECK_ROCKSDB_CQ_WRITE_PROGRESS_CODE)
    assert check.ext == {"topic": "T", "checkStoreTime": "1700000000000"}
    assert cli("checkRocksdbCqWriteProgress", "-c", "DefaultCluster", "-cf", "yesterday-ish").code == 2


def test_rocksdb_config_to_json_sends_java_config_types(monkeypatch, capsys) -> None:
    cli = cluster(monkeypatch, capsys)
    assert cli("rocksDBConfigToJson", "-b", MASTER).code == 0
    exports = [c for c in sent(cli) if c.code == store.EXPORT_ROCKSDB_CONFIG_TO_JSON_CODE]
    assert exports[-1].ext == {"configType": "topics;subscriptionGroups;consumerOffsets;"}
    assert cli("rocksDBConfigToJson", "-b", MASTER, "-t", "Topics; consumerOffsets").code == 0
    assert sent(cli)[-1].ext == {"configType": "topics;consumerOffsets;"}
    local = cli("rocksDBConfigToJson", "-p", "/data/rocksdb", "-t", "topics")
    assert_one_line_error(local, "local mode")
    assert cli("rocksDBConfigToJson", "-b", MASTER, "-t", "queues").code == 2


def test_export_pop_record_reaches_slaves_and_dry_run_sends_nothing(monkeypatch, capsys) -> None:
    cli = cluster(monkeypatch, capsys)
    for dry in (["--dry-run"], ["-d", "true"]):
        doc = cli("exportPopRecord", "-c", "DefaultCluster", *dry, "--format", "json").json()
        assert {r["status"] for r in doc["results"]} == {"skipped"}
    assert not [c for c in sent(cli) if c.code == store.POP_ROLLBACK_CODE]
    doc = cli("exportPopRecord", "-c", "DefaultCluster", "--format", "json").json()
    assert sorted(r["addr"] for r in doc["results"]) == sorted([MASTER, SLAVE, OTHER])
    assert {r["status"] for r in doc["results"]} == {"written"}


# --- -n on the controller commands: accepted, and the controller found through it --------------------------


def named_by_the_name_server(
    monkeypatch, capsys, *, broker_config: dict[str, str], namesrv_config: dict[str, str], by_addr: dict[str, Any]
) -> Cli:
    """The CLI over a name server at NS answering broker-a at MASTER (its config ``broker_config``) and its own
    config ``namesrv_config``, and the scripted servers ``by_addr``."""
    ns = routes({
        namesrv.GET_BROKER_CLUSTER_INFO: ok(cluster_info(("broker-a", 0, MASTER))),
        namesrv.GET_NAMESRV_CONFIG: ok(namesrv_config),
    })  # fmt: skip
    handlers = {NS: ns, MASTER: routes({brokers.GET_BROKER_CONFIG: ok(broker_config)})}
    handlers |= {a: routes(t) for a, t in by_addr.items()}

    def handler(req: Decoded[Any, Any], addr: str) -> Any:
        return handlers[addr](req, addr) if addr in handlers else unsupported(req)

    return Cli(monkeypatch, capsys, namesrvs=[NS], transport=MockTransport(handler))


def test_controller_commands_find_the_controller_through_the_name_server(monkeypatch, capsys) -> None:
    """A broker in controller mode names the controllers in its config (controllerAddr)."""
    ctl, leader = Controller(CTL), Controller(LEADER)
    config = {"brokerName": "broker-a", "enableControllerMode": "true", "controllerAddr": f"{CTL};{LEADER}"}
    cli = named_by_the_name_server(
        monkeypatch, capsys, broker_config=config, namesrv_config={},
        by_addr={CTL: ctl.answers(), LEADER: leader.answers()},
    )  # fmt: skip
    meta = cli("getControllerMetaData", "-n", NS, "--format", "json")
    assert meta.code == 0, meta.err
    assert meta.json()["controller"] == CTL and f"controller {CTL};{LEADER} (found through the name server)" in meta.err
    got = cli("getControllerConfig", "-n", NS)
    assert got.code == 0 and got.out.count("scanNotActiveBrokerInterval") == 2  # both controllers of controllerAddr
    updated = cli("updateControllerConfig", "-n", NS, "-k", "scanNotActiveBrokerInterval", "-v", "7000")
    assert updated.code == 0 and ctl.config["scanNotActiveBrokerInterval"] == "7000"
    elect = ["electMaster", "-n", NS, "-c", "DefaultCluster", "-bn", "broker-a", "-b", "2", "--dry-run"]
    assert cli(*elect).code == 0
    clean = ["cleanBrokerMetadata", "-n", NS, "-c", "DefaultCluster", "-bn", "broker-a", "-b", "2", "--dry-run"]
    assert cli(*clean).code == 0
    assert cli("getSyncStateSet", "-n", NS, "-b", "broker-a").code == 0
    assert rpc.CONTROLLER_GET_SYNC_STATE_DATA_CODE in [c.code for c in sent(cli, LEADER)]

    other = "127.0.0.1:9990"
    given = named_by_the_name_server(
        monkeypatch, capsys, broker_config=config, namesrv_config={},
        by_addr={other: Controller(other, leader=other).answers()},
    )("getControllerMetaData", "-n", NS, "-a", other)  # fmt: skip
    assert given.code == 0 and "found through" not in given.err  # -a wins; -n accepted


def test_a_name_server_running_the_controller_is_found_and_none_is_an_error(monkeypatch, capsys) -> None:
    """A name server running the controller (enableControllerInNamesrv) names its DLedger peer address."""
    ctl = "127.0.0.1:9877"  # the controller's own port, not the name server's
    peers = {"enableControllerInNamesrv": "true", "controllerDLegerPeers": f"n0-{ctl}"}
    cli = named_by_the_name_server(
        monkeypatch, capsys, broker_config={"brokerName": "broker-a"}, namesrv_config=peers,
        by_addr={ctl: Controller(ctl, leader=ctl).answers()},
    )  # fmt: skip
    doc = cli("getControllerMetaData", "-n", NS, "--format", "json").json()
    assert doc["controller"] == ctl and doc["isLeader"] is True

    plain = named_by_the_name_server(
        monkeypatch, capsys, broker_config={"brokerName": "broker-a"}, namesrv_config={}, by_addr={}
    )
    none = plain("getControllerConfig", "-n", NS)
    assert none.code == 1
    assert_one_line_error(none, "no controller found through the name server", "-a HOST:PORT")
    bare = Cli(monkeypatch, capsys, namesrvs=[NS], transport=MockTransport(lambda req, _addr: unsupported(req)))
    monkeypatch.delenv("NAMESRV_ADDR")  # no -a, no -n, no name server configured
    missing = bare("getControllerMetaData")
    assert missing.code == 2 and "no controller address given" in missing.err
