"""Replication (HA) and controller bodies: a broker's HA runtime status, its epoch entries, the controller's
replica sets and the broker group an election leaves. ``to_json`` writes each as Apache sends it (Java's
field names); ``from_json`` accepts what Apache 5.x sends, missing fields taking Java's defaults."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

JAVA_LONG_MAX = 2**63 - 1
"""An epoch entry's end offset while it is the current epoch (Java's Long.MAX_VALUE)."""


def _int(obj: Mapping[str, Any], key: str, default: int = 0) -> int:
    value = obj.get(key)
    return default if value is None else int(value)


def _str(obj: Mapping[str, Any], key: str) -> str | None:
    value = obj.get(key)
    return None if value is None else str(value)


@dataclass(frozen=True, slots=True)
class HaConnection:
    """A slave connected to a master (Java HAConnectionRuntimeInfo)."""

    addr: str
    slave_ack_offset: int
    diff: int
    in_sync: bool
    transferred_byte_in_second: int
    transfer_from_where: int

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> HaConnection:
        return cls(
            addr=str(obj.get("addr") or ""),
            slave_ack_offset=_int(obj, "slaveAckOffset"),
            diff=_int(obj, "diff"),
            in_sync=bool(obj.get("inSync")),
            transferred_byte_in_second=_int(obj, "transferredByteInSecond"),
            transfer_from_where=_int(obj, "transferFromWhere"),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "addr": self.addr,
            "slaveAckOffset": self.slave_ack_offset,
            "diff": self.diff,
            "inSync": self.in_sync,
            "transferredByteInSecond": self.transferred_byte_in_second,
            "transferFromWhere": self.transfer_from_where,
        }


@dataclass(frozen=True, slots=True)
class HaClient:
    """A slave's connection to its master (Java HAClientRuntimeInfo)."""

    master_addr: str | None = None
    transferred_byte_in_second: int = 0
    max_offset: int = 0
    last_read_timestamp: int = 0
    last_write_timestamp: int = 0
    master_flush_offset: int = 0
    activated: bool = False

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> HaClient:
        return cls(
            master_addr=_str(obj, "masterAddr"),
            transferred_byte_in_second=_int(obj, "transferredByteInSecond"),
            max_offset=_int(obj, "maxOffset"),
            last_read_timestamp=_int(obj, "lastReadTimestamp"),
            last_write_timestamp=_int(obj, "lastWriteTimestamp"),
            master_flush_offset=_int(obj, "masterFlushOffset"),
            activated=bool(obj.get("activated")),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "masterAddr": self.master_addr,
            "transferredByteInSecond": self.transferred_byte_in_second,
            "maxOffset": self.max_offset,
            "lastReadTimestamp": self.last_read_timestamp,
            "lastWriteTimestamp": self.last_write_timestamp,
            "masterFlushOffset": self.master_flush_offset,
            "activated": self.activated,
        }


@dataclass(frozen=True, slots=True)
class HaRuntimeInfo:
    """GET_BROKER_HA_STATUS's answer (Java HARuntimeInfo): a master's slaves, or a slave's master link."""

    master: bool
    master_commit_log_max_offset: int = 0
    in_sync_slave_nums: int = 0
    connections: list[HaConnection] = field(default_factory=list)
    client: HaClient = field(default_factory=HaClient)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> HaRuntimeInfo:
        return cls(
            master=bool(obj.get("master")),
            master_commit_log_max_offset=_int(obj, "masterCommitLogMaxOffset"),
            in_sync_slave_nums=_int(obj, "inSyncSlaveNums"),
            connections=[HaConnection.from_json(c) for c in obj.get("haConnectionInfo") or []],
            client=HaClient.from_json(obj.get("haClientRuntimeInfo") or {}),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "master": self.master,
            "masterCommitLogMaxOffset": self.master_commit_log_max_offset,
            "inSyncSlaveNums": self.in_sync_slave_nums,
            "haConnectionInfo": [c.to_json() for c in self.connections],
            "haClientRuntimeInfo": self.client.to_json(),
        }


@dataclass(frozen=True, slots=True)
class EpochEntry:
    epoch: int
    start_offset: int
    end_offset: int = JAVA_LONG_MAX

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> EpochEntry:
        return cls(_int(obj, "epoch"), _int(obj, "startOffset"), _int(obj, "endOffset", JAVA_LONG_MAX))

    def to_json(self) -> dict[str, Any]:
        return {"epoch": self.epoch, "startOffset": self.start_offset, "endOffset": self.end_offset}


@dataclass(frozen=True, slots=True)
class EpochCache:
    """GET_BROKER_EPOCH_CACHE's answer (Java EpochEntryCache), from a broker in controller mode."""

    cluster_name: str
    broker_name: str
    broker_id: int
    epochs: list[EpochEntry]
    max_offset: int

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> EpochCache:
        return cls(
            cluster_name=str(obj.get("clusterName") or ""),
            broker_name=str(obj.get("brokerName") or ""),
            broker_id=_int(obj, "brokerId"),
            epochs=[EpochEntry.from_json(e) for e in obj.get("epochList") or []],
            max_offset=_int(obj, "maxOffset"),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "clusterName": self.cluster_name,
            "brokerName": self.broker_name,
            "brokerId": self.broker_id,
            "epochList": [e.to_json() for e in self.epochs],
            "maxOffset": self.max_offset,
        }

    def shown_epochs(self) -> list[EpochEntry]:
        """The entries as Java's getBrokerEpoch prints them: the last one ends at the broker's max offset."""
        if not self.epochs:
            return []
        last = self.epochs[-1]
        return [*self.epochs[:-1], EpochEntry(last.epoch, last.start_offset, self.max_offset)]


@dataclass(frozen=True, slots=True)
class ReplicaIdentity:
    broker_name: str
    broker_id: int
    broker_address: str
    alive: bool | None = None

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> ReplicaIdentity:
        alive = obj.get("alive")
        return cls(
            str(obj.get("brokerName") or ""),
            _int(obj, "brokerId"),
            str(obj.get("brokerAddress") or ""),
            None if alive is None else bool(alive),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "brokerName": self.broker_name,
            "brokerId": self.broker_id,
            "brokerAddress": self.broker_address,
            "alive": self.alive,
        }


@dataclass(frozen=True, slots=True)
class ReplicasInfo:
    """One broker name's replicas as the controller sees them (Java BrokerReplicasInfo.ReplicasInfo)."""

    master_broker_id: int | None
    master_address: str | None
    master_epoch: int
    sync_state_set_epoch: int
    in_sync: list[ReplicaIdentity] = field(default_factory=list)
    not_in_sync: list[ReplicaIdentity] = field(default_factory=list)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> ReplicasInfo:
        master_id = obj.get("masterBrokerId")
        return cls(
            master_broker_id=None if master_id is None else int(master_id),
            master_address=_str(obj, "masterAddress"),
            master_epoch=_int(obj, "masterEpoch"),
            sync_state_set_epoch=_int(obj, "syncStateSetEpoch"),
            in_sync=[ReplicaIdentity.from_json(r) for r in obj.get("inSyncReplicas") or []],
            not_in_sync=[ReplicaIdentity.from_json(r) for r in obj.get("notInSyncReplicas") or []],
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "masterBrokerId": self.master_broker_id,
            "masterAddress": self.master_address,
            "masterEpoch": self.master_epoch,
            "syncStateSetEpoch": self.sync_state_set_epoch,
            "inSyncReplicas": [r.to_json() for r in self.in_sync],
            "notInSyncReplicas": [r.to_json() for r in self.not_in_sync],
        }


def replicas_table_from_json(obj: Mapping[str, Any]) -> dict[str, ReplicasInfo]:
    """CONTROLLER_GET_SYNC_STATE_DATA's answer (Java BrokerReplicasInfo): broker name → its replicas."""
    table = obj.get("replicasInfoTable") or {}
    return {str(name): ReplicasInfo.from_json(info) for name, info in sorted(table.items())}


def replicas_table_to_json(table: Mapping[str, ReplicasInfo]) -> dict[str, Any]:
    return {"replicasInfoTable": {name: info.to_json() for name, info in table.items()}}


@dataclass(frozen=True, slots=True)
class BrokerMemberGroup:
    """The replicas of one broker name after an election (Java BrokerMemberGroup): broker id → address."""

    cluster: str
    broker_name: str
    broker_addrs: dict[int, str] = field(default_factory=dict)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> BrokerMemberGroup:
        addrs = obj.get("brokerAddrs") or {}
        return cls(
            str(obj.get("cluster") or ""),
            str(obj.get("brokerName") or ""),
            {int(k): str(v) for k, v in sorted(addrs.items(), key=lambda kv: int(kv[0]))},
        )

    def to_json(self) -> dict[str, Any]:
        return {"cluster": self.cluster, "brokerName": self.broker_name, "brokerAddrs": dict(self.broker_addrs)}


@dataclass(frozen=True, slots=True)
class ElectMasterBody:
    """CONTROLLER_ELECT_MASTER's answer body (Java ElectMasterResponseBody): the new sync state set and the
    broker group. Older controllers sent the BrokerMemberGroup alone, which is read as well."""

    sync_state_set: list[int] = field(default_factory=list)
    group: BrokerMemberGroup | None = None

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> ElectMasterBody:
        if "brokerAddrs" in obj:
            return cls([], BrokerMemberGroup.from_json(obj))
        group = obj.get("brokerMemberGroup")
        return cls(
            sorted(int(i) for i in obj.get("syncStateSet") or []),
            None if group is None else BrokerMemberGroup.from_json(group),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "syncStateSet": list(self.sync_state_set),
            "brokerMemberGroup": None if self.group is None else self.group.to_json(),
        }
