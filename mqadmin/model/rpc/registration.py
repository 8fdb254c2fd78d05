"""Requests a broker sends its name servers: registration with its topics, unregistration, the
liveness heartbeat and DataVersion check, and single-topic registration."""

from __future__ import annotations

from dataclasses import dataclass

from mqadmin.model.data_version import DataVersion
from mqadmin.model.names import Refusal, topic_refusal
from mqadmin.model.register_body import RegisterBodyCodec
from mqadmin.model.rpc.bodies import KV_TABLE, JsonBody
from mqadmin.model.rpc.namesrv import ROUTE
from mqadmin.model.rpc.spec import Header, Rpc, wire
from mqadmin.wire.codes import RequestCode as C
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.message import body_crc


@dataclass(frozen=True, slots=True, kw_only=True)
class RegisterBrokerHeader(Header):
    broker_name: str = wire("brokerName")
    broker_addr: str = wire("brokerAddr")
    cluster_name: str = wire("clusterName")
    ha_server_addr: str = wire("haServerAddr", "")
    broker_id: int = wire("brokerId")
    heartbeat_timeout_millis: int | None = wire("heartbeatTimeoutMillis", None)
    enable_acting_master: bool | None = wire("enableActingMaster", None)
    compressed: bool = wire("compressed", False)
    body_crc32: int = wire("bodyCrc32", 0)
    """CRC32 & 0x7FFFFFFF of the body; 0 = not sent."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RegisterBrokerResultHeader(Header):
    ha_server_addr: str | None = wire("haServerAddr", None)
    master_addr: str | None = wire("masterAddr", None)


@dataclass(frozen=True, slots=True, kw_only=True)
class BrokerIdentityHeader(Header):
    """UNREGISTER_BROKER (104): which broker address leaves."""

    broker_name: str = wire("brokerName")
    broker_addr: str = wire("brokerAddr")
    cluster_name: str = wire("clusterName")
    broker_id: int = wire("brokerId")


@dataclass(frozen=True, slots=True, kw_only=True)
class BrokerLivenessHeader(Header):
    """BROKER_HEARTBEAT (904) and QUERY_DATA_VERSION (322): the name server finds the broker by
    cluster and address (Java also sends the name and id)."""

    cluster_name: str = wire("clusterName")
    broker_addr: str = wire("brokerAddr")
    broker_name: str | None = wire("brokerName", None)
    broker_id: int | None = wire("brokerId", None)


@dataclass(frozen=True, slots=True, kw_only=True)
class DataVersionChangedHeader(Header):
    changed: bool = wire("changed", False)


@dataclass(frozen=True, slots=True, kw_only=True)
class RegisterTopicHeader(Header):
    topic: str = wire("topic", check=topic_refusal)


DATA_VERSION = JsonBody("DataVersion", DataVersion.from_json, DataVersion.to_json)


def _crc_mismatch(header: RegisterBrokerHeader, body: bytes) -> Refusal | None:
    """Java's name server refuses a body whose CRC is not the one announced (0: none announced)."""
    if header.body_crc32 and body_crc(body) != header.body_crc32:
        return Refusal(ResponseCode.SYSTEM_ERROR, "crc32 not match")
    return None


REGISTER_BROKER = Rpc(
    C.REGISTER_BROKER, "REGISTER_BROKER", RegisterBrokerHeader, RegisterBodyCodec(), RegisterBrokerResultHeader,
    KV_TABLE, raw_check=_crc_mismatch,
    summary="a broker announces itself and its topics; the answer may carry ORDER_TOPIC_CONFIG",
)  # fmt: skip
UNREGISTER_BROKER = Rpc(
    C.UNREGISTER_BROKER, "UNREGISTER_BROKER", BrokerIdentityHeader, summary="a broker address leaves the cluster"
)
BROKER_HEARTBEAT = Rpc(
    C.BROKER_HEARTBEAT, "BROKER_HEARTBEAT", BrokerLivenessHeader, summary="a broker is still alive (5.x)"
)
QUERY_DATA_VERSION = Rpc(
    C.QUERY_DATA_VERSION, "QUERY_DATA_VERSION", BrokerLivenessHeader, DATA_VERSION, DataVersionChangedHeader,
    DATA_VERSION, summary="whether the name server holds the broker's current DataVersion",
)  # fmt: skip
REGISTER_TOPIC_IN_NAMESRV = Rpc(
    C.REGISTER_TOPIC_IN_NAMESRV, "REGISTER_TOPIC_IN_NAMESRV", RegisterTopicHeader, ROUTE,
    summary="add one topic's queue data to the routes",
)  # fmt: skip
