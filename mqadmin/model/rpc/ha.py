"""Replication (HA) requests a broker answers and the requests of the controller (a DLedger/JRaft group that
runs in the name server with ``enableControllerInNamesrv=true`` or on its own, Apache 5.x): the controller's
metadata and config, the replica sets it keeps, elections and cleaning a broker's metadata."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqadmin.model.ha import (
    ElectMasterBody,
    EpochCache,
    HaRuntimeInfo,
    replicas_table_from_json,
    replicas_table_to_json,
)
from mqadmin.model.rpc.bodies import PROPERTIES, JsonBody
from mqadmin.model.rpc.spec import Header, Rpc, wire
from mqadmin.wire import fastjson
from mqadmin.wire.codes import ResponseCode

GET_BROKER_HA_STATUS_CODE = 907
CONTROLLER_ELECT_MASTER_CODE = 1002
CONTROLLER_GET_METADATA_INFO_CODE = 1005
CONTROLLER_GET_SYNC_STATE_DATA_CODE = 1006
GET_BROKER_EPOCH_CACHE_CODE = 1007
UPDATE_CONTROLLER_CONFIG_CODE = 1009
GET_CONTROLLER_CONFIG_CODE = 1010
CLEAN_BROKER_DATA_CODE = 1011
CONTROLLER_ADMIN_CODES = (
    CONTROLLER_ELECT_MASTER_CODE,
    CONTROLLER_GET_METADATA_INFO_CODE,
    CONTROLLER_GET_SYNC_STATE_DATA_CODE,
    UPDATE_CONTROLLER_CONFIG_CODE,
    GET_CONTROLLER_CONFIG_CODE,
    CLEAN_BROKER_DATA_CODE,
)
"""The controller requests mqadmin sends (to a controller, never to a broker)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ControllerMetadataHeader(Header):
    """CONTROLLER_GET_METADATA_INFO's response header (Java GetMetaDataResponseHeader)."""

    group: str | None = wire("group", None)
    leader_id: str | None = wire("controllerLeaderId", None)
    leader_address: str | None = wire("controllerLeaderAddress", None)
    is_leader: bool = wire("isLeader", False)
    peers: str | None = wire("peers", None)
    """``n0:127.0.0.1:9878;n1:...``: the controller group's members."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ElectMasterHeader(Header):
    cluster_name: str = wire("clusterName")
    broker_name: str = wire("brokerName")
    broker_id: int = wire("brokerId")
    designate_elect: bool = wire("designateElect")
    """True for an administrator's election: the controller must elect ``broker_id`` if it can."""
    invoke_time: int | None = wire("invokeTime", None)


@dataclass(frozen=True, slots=True, kw_only=True)
class ElectMasterResponseHeader(Header):
    master_broker_id: int | None = wire("masterBrokerId", None)
    master_address: str | None = wire("masterAddress", None)
    master_epoch: int | None = wire("masterEpoch", None)
    sync_state_set_epoch: int | None = wire("syncStateSetEpoch", None)


@dataclass(frozen=True, slots=True, kw_only=True)
class CleanBrokerDataHeader(Header):
    cluster_name: str | None = wire("clusterName", None)
    broker_name: str = wire("brokerName")
    broker_ids: str | None = wire("brokerControllerIdsToClean", None)
    """``1;2;3``: the controller ids of the replicas to forget (all of the broker name when absent)."""
    clean_living: bool = wire("isCleanLivingBroker", False)
    invoke_time: int | None = wire("invokeTime", None)


class _StringList:
    """A JSON array of strings (Java ``RemotingSerializable.encode(List<String>)``)."""

    name = "List<String>"
    json = True

    def encode(self, value: list[str]) -> bytes:
        return fastjson.dumps_bytes(list(value))

    def decode(self, data: bytes) -> list[str]:
        obj: Any = fastjson.loads(data)
        if not isinstance(obj, list):
            raise ValueError(f"expected a JSON array of broker names, not {type(obj).__name__}")
        return [str(v) for v in obj]


HA_RUNTIME_INFO = JsonBody("HARuntimeInfo", HaRuntimeInfo.from_json, HaRuntimeInfo.to_json)
EPOCH_CACHE = JsonBody("EpochEntryCache", EpochCache.from_json, EpochCache.to_json)
REPLICAS_INFO = JsonBody("BrokerReplicasInfo", replicas_table_from_json, replicas_table_to_json)
ELECT_MASTER_BODY = JsonBody("ElectMasterResponseBody", ElectMasterBody.from_json, ElectMasterBody.to_json)

GET_BROKER_HA_STATUS = Rpc(
    GET_BROKER_HA_STATUS_CODE, "GET_BROKER_HA_STATUS", response_body=HA_RUNTIME_INFO,
    summary="a broker's replication status: a master's slaves and their lag, or a slave's link to its master",
)  # fmt: skip
GET_BROKER_EPOCH_CACHE = Rpc(
    GET_BROKER_EPOCH_CACHE_CODE, "GET_BROKER_EPOCH_CACHE", response_body=EPOCH_CACHE,
    summary="a controller-mode broker's epoch entries (SYSTEM_ERROR from a broker not in controller mode)",
)  # fmt: skip
CONTROLLER_GET_METADATA_INFO = Rpc(
    CONTROLLER_GET_METADATA_INFO_CODE, "CONTROLLER_GET_METADATA_INFO", response_header=ControllerMetadataHeader,
    summary="the controller group, its leader and peers",
)  # fmt: skip
CONTROLLER_GET_SYNC_STATE_DATA = Rpc(
    CONTROLLER_GET_SYNC_STATE_DATA_CODE, "CONTROLLER_GET_SYNC_STATE_DATA", body=_StringList(),
    response_body=REPLICAS_INFO, summary="the master, epochs and in-sync replicas of broker names (leader only)",
)  # fmt: skip
CONTROLLER_ELECT_MASTER = Rpc(
    CONTROLLER_ELECT_MASTER_CODE, "CONTROLLER_ELECT_MASTER", ElectMasterHeader,
    response_header=ElectMasterResponseHeader, response_body=ELECT_MASTER_BODY,
    ok=frozenset({ResponseCode.SUCCESS, ResponseCode.CONTROLLER_MASTER_STILL_EXIST}),
    summary="elect a master for a broker name, preferring the given broker id (leader only; "
    "CONTROLLER_MASTER_STILL_EXIST when the master stays)",
)  # fmt: skip
CLEAN_BROKER_DATA = Rpc(
    CLEAN_BROKER_DATA_CODE, "CLEAN_BROKER_DATA", CleanBrokerDataHeader,
    summary="forget replicas of a broker name on the controller (leader only)",
)  # fmt: skip
GET_CONTROLLER_CONFIG = Rpc(
    GET_CONTROLLER_CONFIG_CODE, "GET_CONTROLLER_CONFIG", response_body=PROPERTIES, summary="a controller's config"
)
UPDATE_CONTROLLER_CONFIG = Rpc(
    UPDATE_CONTROLLER_CONFIG_CODE, "UPDATE_CONTROLLER_CONFIG", body=PROPERTIES, summary="change controller config keys"
)
