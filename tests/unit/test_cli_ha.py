"""The HA, controller and store commands through the CLI entry point, against fake brokers and a fake
controller that answer as Apache 5.x does (bodies in Java's field names, the leader found by metadata)."""

from __future__ import annotations

from dataclasses import dataclass, field

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
    replicas_table_to_json,
)
from mqadmin.model.rpc import ha as rpc
from mqadmin.model.rpc import store
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand
from mqadmin.wire.properties import format_properties, parse_properties
from tests.unit.cli_helpers import Cli, assert_one_line_error
from tests.unit.fake_remoting import FakeBroker, FakeNamesrv

MASTER, SLAVE, OTHER = "127.0.0.1:10911", "127.0.0.1:10912", "127.0.0.1:10921"
CTL, LEADER = "127.0.0.1:9878", "127.0.0.1:9879"

MASTER_HA = HaRuntimeInfo(
    master=True,
    master_commit_log_max_offset=4096,
    in_sync_slave_nums=1,
    connections=[HaConnection("127.0.0.1:50312", 4000, 96, True, 2048, 0)],
)
SLAVE_HA = HaRuntimeInfo(master=False, client=HaClient(master_addr="127.0.0.1:10912", max_offset=4000))


def ha_broker(name: str, addr: str, info: HaRuntimeInfo | None, broker_id: int = 0, **kw: object) -> FakeBroker:
    """A broker answering GET_BROKER_HA_STATUS with ``info`` and the epoch/store requests as a 5.x broker."""

    async def before(cmd: RemotingCommand) -> RemotingCommand | None:
        if cmd.code == rpc.GET_BROKER_HA_STATUS_CODE and info is not None:
            return rpc.GET_BROKER_HA_STATUS.answer(cmd, body=info)
        if cmd.code == rpc.GET_BROKER_EPOCH_CACHE_CODE:
            epochs = [EpochEntry(1, 0, 2048), EpochEntry(2, 2048)]
            cache = EpochCache("DefaultCluster", name, broker_id, epochs, 4096 + broker_id)
            return rpc.GET_BROKER_EPOCH_CACHE.answer(cmd, body=cache)
        if cmd.code == store.CHECK_ROCKSDB_CQ_WRITE_PROGRESS_CODE:
            status = kw.get("check_status", 2)
            result = store.CheckCqResult(int(status), "boom" if status == 3 else None)  # type: ignore[call-overload]
            return store.CHECK_ROCKSDB_CQ_WRITE_PROGRESS.answer(cmd, body=result)
        if cmd.code in (store.EXPORT_ROCKSDB_CONFIG_TO_JSON_CODE, store.POP_ROLLBACK_CODE):
            return cmd.response(ResponseCode.SUCCESS, "export done.")
        return None

    return FakeBroker(name, addr, broker_id=broker_id, before=before)


def cluster() -> tuple[FakeNamesrv, FakeBroker, FakeBroker, FakeBroker]:
    a = ha_broker("broker-a", MASTER, MASTER_HA)
    a1 = ha_broker("broker-a", SLAVE, SLAVE_HA, broker_id=1)
    b = ha_broker("broker-b", OTHER, HaRuntimeInfo(master=True, master_commit_log_max_offset=10))
    return FakeNamesrv("127.0.0.1:9876", [a, a1, b]), a, a1, b


@dataclass
class FakeController:
    """A controller: ``addr`` answers metadata naming ``leader``; the leader keeps the replicas of broker-a."""

    addr: str
    leader: str | None = LEADER
    config: dict[str, str] = field(default_factory=lambda: {"scanNotActiveBrokerInterval": "5000"})
    keep_master: bool = False
    requests: list[RemotingCommand] = field(default_factory=list)

    async def handle(self, cmd: RemotingCommand) -> RemotingCommand:
        self.requests.append(cmd)
        if cmd.code == rpc.CONTROLLER_GET_METADATA_INFO_CODE:
            ext = {"group": "g1", "isLeader": str(self.addr == self.leader).lower(), "peers": f"n0:{CTL};n1:{LEADER}"}
            if self.leader:
                ext |= {"controllerLeaderId": "n1", "controllerLeaderAddress": self.leader}
            return cmd.response(ext=ext)
        if cmd.code == rpc.GET_CONTROLLER_CONFIG_CODE:
            return cmd.response(body=format_properties(self.config).encode())
        if cmd.code == rpc.UPDATE_CONTROLLER_CONFIG_CODE:
            props = parse_properties(cmd.body.decode())
            self.config.update({k: v for k, v in props.items() if k in self.config})
            return cmd.response()
        if cmd.code == rpc.CONTROLLER_GET_SYNC_STATE_DATA_CODE:
            names = fastjson.loads(cmd.body)
            table = {n: REPLICAS for n in names if n == "broker-a"}
            return cmd.response(body=fastjson.dumps_bytes(replicas_table_to_json(table)))
        if cmd.code == rpc.CONTROLLER_ELECT_MASTER_CODE:
            group = BrokerMemberGroup("DefaultCluster", "broker-a", {1: MASTER, 2: SLAVE})
            if self.keep_master:
                ext = {"masterBrokerId": "1", "masterAddress": MASTER, "masterEpoch": "3", "syncStateSetEpoch": "4"}
                body = fastjson.dumps_bytes(ElectMasterBody([1, 2]).to_json())
                return cmd.response(
                    ResponseCode.CONTROLLER_MASTER_STILL_EXIST, "The old master 1 is still alive", ext, body
                )
            ext = {
                "masterBrokerId": cmd.ext["brokerId"],
                "masterAddress": SLAVE,
                "masterEpoch": "4",
                "syncStateSetEpoch": "5",
            }
            return cmd.response(ext=ext, body=fastjson.dumps_bytes(ElectMasterBody([2], group).to_json()))
        if cmd.code == rpc.CLEAN_BROKER_DATA_CODE:
            return cmd.response()
        return cmd.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, f" request type {cmd.code} not supported")


REPLICAS = ReplicasInfo(
    master_broker_id=1,
    master_address=MASTER,
    master_epoch=3,
    sync_state_set_epoch=4,
    in_sync=[ReplicaIdentity("broker-a", 1, MASTER, True)],
    not_in_sync=[ReplicaIdentity("broker-a", 2, SLAVE, False)],
)


def controllers(**kw: object) -> tuple[FakeController, FakeController]:
    return FakeController(CTL, **kw), FakeController(LEADER, **kw)  # type: ignore[arg-type]


# --- haStatus, getBrokerEpoch --------------------------------------------------------------------------


def test_ha_status_shows_masters_their_slaves_and_a_slave(monkeypatch, capsys) -> None:
    ns, a, a1, b = cluster()
    cli = Cli(monkeypatch, capsys, ns, a, a1, b)
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
    cli = Cli(monkeypatch, capsys, *cluster())
    assert_one_line_error(cli("haStatus"), "-b")
    both = cli("haStatus", "-b", MASTER, "-c", "DefaultCluster")
    assert both.code == 2


def test_ha_status_reports_a_broker_that_refuses(monkeypatch, capsys) -> None:
    ns, a, a1, _ = cluster()
    old = ha_broker("broker-b", OTHER, None)  # 4.x: REQUEST_CODE_NOT_SUPPORTED
    ns.brokers[2] = old
    out = Cli(monkeypatch, capsys, ns, a, a1, old)("haStatus", "-c", "DefaultCluster")
    assert out.code == 3 and "REQUEST_CODE_NOT_SUPPORTED" in out.out and MASTER in out.out


def test_broker_epoch_asks_every_replica_and_ends_the_last_epoch_at_the_max_offset(monkeypatch, capsys) -> None:
    ns, a, a1, b = cluster()
    cli = Cli(monkeypatch, capsys, ns, a, a1, b)
    doc = cli("getBrokerEpoch", "-b", "broker-a", "--format", "json").json()
    assert [r["addr"] for r in doc["results"]] == [MASTER, SLAVE]
    ends = [r["epochCache"]["epochList"][-1]["endOffset"] for r in doc["results"]]
    assert ends == [4096, 4097]
    unknown = cli("getBrokerEpoch", "-b", "broker-z")
    assert_one_line_error(unknown, "broker-z", "broker-a")
    assert unknown.code == 2


# --- the controller ------------------------------------------------------------------------------------


def test_sync_state_set_goes_to_the_leader(monkeypatch, capsys) -> None:
    ctl, leader = controllers()
    cli = Cli(monkeypatch, capsys, FakeNamesrv("127.0.0.1:9876"), ctl, leader)
    doc = cli("getSyncStateSet", "-a", CTL, "-b", "broker-a", "--format", "json").json()
    assert [r.code for r in ctl.requests] == [rpc.CONTROLLER_GET_METADATA_INFO_CODE]
    (sent,) = leader.requests
    assert fastjson.loads(sent.body) == ["broker-a"]
    (broker,) = doc["brokers"]
    assert broker["brokerName"] == "broker-a" and broker["masterAddress"] == MASTER
    assert [r["brokerId"] for r in broker["notInSyncReplicas"]] == [2]
    table = cli("getSyncStateSet", "-a", CTL, "-b", "broker-a")
    assert table.code == 0 and SLAVE in table.out


def test_a_controller_without_leader_is_an_error(monkeypatch, capsys) -> None:
    ctl = FakeController(CTL, leader=None)
    out = Cli(monkeypatch, capsys, FakeNamesrv("127.0.0.1:9876"), ctl)("getSyncStateSet", "-a", CTL, "-b", "broker-a")
    assert_one_line_error(out, "reports no leader")
    assert out.code == 1


def test_controller_metadata_and_bad_addresses(monkeypatch, capsys) -> None:
    ctl, leader = controllers()
    cli = Cli(monkeypatch, capsys, FakeNamesrv("127.0.0.1:9876"), ctl, leader)
    doc = cli("getControllerMetaData", "-a", CTL, "--format", "json").json()
    assert doc == {
        "controller": CTL, "group": "g1", "controllerLeaderId": "n1", "controllerLeaderAddress": LEADER,
        "isLeader": False, "peers": [f"n0:{CTL}", f"n1:{LEADER}"],
    }  # fmt: skip
    bad = cli("getControllerMetaData", "-a", "nohost")
    assert bad.code == 2 and "bad controller address" in bad.err
    nothing = cli("getControllerMetaData", "-a", "127.0.0.1:9")
    assert nothing.code == 1


def test_controller_config_fans_out_and_update_reports_each(monkeypatch, capsys) -> None:
    ctl, leader = controllers()
    cli = Cli(monkeypatch, capsys, FakeNamesrv("127.0.0.1:9876"), ctl, leader)
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
    ctl, leader = controllers()
    cli = Cli(monkeypatch, capsys, FakeNamesrv("127.0.0.1:9876"), ctl, leader)
    args = ["electMaster", "-a", CTL, "-c", "DefaultCluster", "-bn", "broker-a", "-b", "2", "--format", "json"]
    dry = cli(*args, "--dry-run").json()
    assert dry["after"] is None and dry["before"]["masterBrokerId"] == 1
    assert rpc.CONTROLLER_ELECT_MASTER_CODE not in [r.code for r in leader.requests]
    doc = cli(*args).json()
    assert doc["elected"] is True and doc["after"]["masterAddress"] == SLAVE and doc["brokerAddrs"] == {
        "1": MASTER, "2": SLAVE}  # fmt: skip
    sent = next(r for r in leader.requests if r.code == rpc.CONTROLLER_ELECT_MASTER_CODE)
    assert sent.ext["designateElect"] == "true" and sent.ext["brokerId"] == "2" and sent.ext["clusterName"]
    ctl2, leader2 = controllers(keep_master=True)
    kept = Cli(monkeypatch, capsys, FakeNamesrv("127.0.0.1:9876"), ctl2, leader2)(*args)
    assert kept.code == 0 and kept.json()["elected"] is False and "still alive" in kept.json()["remark"]


def test_clean_broker_metadata_checks_its_input_and_dry_run_sends_nothing(monkeypatch, capsys) -> None:
    ctl, leader = controllers()
    cli = Cli(monkeypatch, capsys, FakeNamesrv("127.0.0.1:9876"), ctl, leader)
    assert cli("cleanBrokerMetadata", "-a", CTL, "-bn", "broker-a").code == 2  # -c or -l
    assert cli("cleanBrokerMetadata", "-a", CTL, "-bn", "broker-a", "-l", "-b", "1;x").code == 2
    base = ["cleanBrokerMetadata", "-a", CTL, "-bn", "broker-a", "-c", "DefaultCluster", "-b", "2", "--format", "json"]
    dry = cli(*base, "--dry-run").json()
    assert [(r["brokerId"], r["clean"]) for r in dry["replicas"]] == [(1, False), (2, True)]
    assert rpc.CLEAN_BROKER_DATA_CODE not in [r.code for r in leader.requests]
    done = cli(*base).json()
    assert done["controller"] == LEADER
    sent = next(r for r in leader.requests if r.code == rpc.CLEAN_BROKER_DATA_CODE)
    assert sent.ext["brokerControllerIdsToClean"] == "2" and sent.ext["isCleanLivingBroker"] == "false"


def test_controller_commands_explain_a_server_that_is_no_controller(monkeypatch, capsys) -> None:
    ns = FakeNamesrv("127.0.0.1:9876")
    out = Cli(monkeypatch, capsys, ns)("getControllerMetaData", "-a", ns.addr)
    assert_one_line_error(out, "REQUEST_CODE_NOT_SUPPORTED", "enableControllerInNamesrv")


# --- store requests --------------------------------------------------------------------------------------


def test_check_rocksdb_cq_reports_check_error_as_failed(monkeypatch, capsys) -> None:
    ns = FakeNamesrv("127.0.0.1:9876")
    a = ha_broker("broker-a", MASTER, MASTER_HA, check_status=2)
    b = ha_broker("broker-b", OTHER, MASTER_HA, check_status=3)
    ns.brokers = [a, b]
    cli = Cli(monkeypatch, capsys, ns, a, b)
    doc = cli(
        "checkRocksdbCqWriteProgress", "-c", "DefaultCluster", "-t", "T", "-cf", "1700000000000", "--format", "json"
    )
    assert doc.code == 3
    assert [(r["status"], r["checkStatus"]) for r in doc.json()["results"]] == [
        ("ok", "CHECK_IN_PROGRESS"), ("failed", "CHECK_ERROR")]  # fmt: skip
    sent = next(
        c for addr, c in cli.transport.sent if addr == MASTER and c.code == store.CHECK_ROCKSDB_CQ_WRITE_PROGRESS_CODE
    )
    assert sent.ext == {"topic": "T", "checkStoreTime": "1700000000000"}
    assert cli("checkRocksdbCqWriteProgress", "-c", "DefaultCluster", "-cf", "yesterday-ish").code == 2


def test_rocksdb_config_to_json_sends_java_config_types(monkeypatch, capsys) -> None:
    cli = Cli(monkeypatch, capsys, *cluster())
    assert cli("rocksDBConfigToJson", "-b", MASTER).code == 0
    sent = [c for addr, c in cli.transport.sent if c.code == store.EXPORT_ROCKSDB_CONFIG_TO_JSON_CODE]
    assert sent[-1].ext == {"configType": "topics;subscriptionGroups;consumerOffsets;"}
    assert cli("rocksDBConfigToJson", "-b", MASTER, "-t", "Topics; consumerOffsets").code == 0
    assert cli.transport.sent[-1][1].ext == {"configType": "topics;consumerOffsets;"}
    local = cli("rocksDBConfigToJson", "-p", "/data/rocksdb", "-t", "topics")
    assert_one_line_error(local, "local mode")
    assert cli("rocksDBConfigToJson", "-b", MASTER, "-t", "queues").code == 2


def test_export_pop_record_reaches_slaves_and_dry_run_sends_nothing(monkeypatch, capsys) -> None:
    cli = Cli(monkeypatch, capsys, *cluster())
    for dry in (["--dry-run"], ["-d", "true"]):
        doc = cli("exportPopRecord", "-c", "DefaultCluster", *dry, "--format", "json").json()
        assert {r["status"] for r in doc["results"]} == {"skipped"}
    assert not [c for _, c in cli.transport.sent if c.code == store.POP_ROLLBACK_CODE]
    doc = cli("exportPopRecord", "-c", "DefaultCluster", "--format", "json").json()
    assert sorted(r["addr"] for r in doc["results"]) == sorted([MASTER, SLAVE, OTHER])
    assert {r["status"] for r in doc["results"]} == {"written"}


# --- -n on the controller commands: accepted, and the controller found through it --------------------------


def controller_mode_broker(controller_addr: str) -> FakeBroker:
    """A broker in controller mode: its config (GET_BROKER_CONFIG) names the controllers."""
    config = {"brokerName": "broker-a", "enableControllerMode": "true", "controllerAddr": controller_addr}

    async def before(cmd: RemotingCommand) -> RemotingCommand | None:
        if cmd.code == RC.GET_BROKER_CONFIG:
            return cmd.response(body=format_properties(config).encode())
        return None

    return FakeBroker("broker-a", MASTER, before=before)


@dataclass
class NamesrvWithController(FakeNamesrv):
    """A name server that runs the controller (enableControllerInNamesrv), which listens on its DLedger peer
    address (controllerDLegerPeers in the name server's config)."""

    controller: FakeController | None = None

    async def handle(self, cmd: RemotingCommand) -> RemotingCommand:
        if cmd.code == RC.GET_NAMESRV_CONFIG and self.controller is not None:
            peers = f"n0-{self.controller.addr}"
            config = {"enableControllerInNamesrv": "true", "controllerDLegerPeers": peers}
            return cmd.response(body=format_properties(config).encode())
        return await super().handle(cmd)


def test_controller_commands_find_the_controller_through_the_name_server(monkeypatch, capsys) -> None:
    ctl, leader = controllers()
    ns = FakeNamesrv("127.0.0.1:9876", [controller_mode_broker(f"{CTL};{LEADER}")])
    cli = Cli(monkeypatch, capsys, ns, *ns.brokers, ctl, leader)
    meta = cli("getControllerMetaData", "-n", ns.addr, "--format", "json")
    assert meta.code == 0, meta.err
    assert meta.json()["controller"] == CTL and f"controller {CTL};{LEADER} (found through the name server)" in meta.err
    got = cli("getControllerConfig", "-n", ns.addr)
    assert got.code == 0 and got.out.count("scanNotActiveBrokerInterval") == 2  # both controllers of controllerAddr
    updated = cli("updateControllerConfig", "-n", ns.addr, "-k", "scanNotActiveBrokerInterval", "-v", "7000")
    assert updated.code == 0 and ctl.config["scanNotActiveBrokerInterval"] == "7000"
    elect = ["electMaster", "-n", ns.addr, "-c", "DefaultCluster", "-bn", "broker-a", "-b", "2", "--dry-run"]
    assert cli(*elect).code == 0
    clean = ["cleanBrokerMetadata", "-n", ns.addr, "-c", "DefaultCluster", "-bn", "broker-a", "-b", "2", "--dry-run"]
    assert cli(*clean).code == 0
    assert cli("getSyncStateSet", "-n", ns.addr, "-b", "broker-a").code == 0
    assert rpc.CONTROLLER_GET_SYNC_STATE_DATA_CODE in [r.code for r in leader.requests]

    other = FakeController("127.0.0.1:9990", leader="127.0.0.1:9990")
    given = Cli(monkeypatch, capsys, ns, *ns.brokers, other)("getControllerMetaData", "-n", ns.addr, "-a", other.addr)
    assert given.code == 0 and other.requests and "found through" not in given.err  # -a wins; -n accepted


def test_a_name_server_running_the_controller_is_found_and_none_is_an_error(monkeypatch, capsys) -> None:
    ctl = FakeController("127.0.0.1:9877", leader="127.0.0.1:9877")  # the controller's own port, not 9876
    ns = NamesrvWithController("127.0.0.1:9876", controller=ctl)
    doc = Cli(monkeypatch, capsys, ns, ctl)("getControllerMetaData", "-n", ns.addr, "--format", "json").json()
    assert doc["controller"] == ctl.addr and doc["isLeader"] is True

    plain = FakeNamesrv("127.0.0.1:9876", [FakeBroker("broker-a", MASTER)])
    none = Cli(monkeypatch, capsys, plain, *plain.brokers)("getControllerConfig", "-n", plain.addr)
    assert none.code == 1
    assert_one_line_error(none, "no controller found through the name server", "-a HOST:PORT")
    bare = Cli(monkeypatch, capsys, plain)
    monkeypatch.delenv("NAMESRV_ADDR")  # no -a, no -n, no name server configured
    missing = bare("getControllerMetaData")
    assert missing.code == 2 and "no controller address given" in missing.err
