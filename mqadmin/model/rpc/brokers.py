"""Broker-wide requests: its config and runtime information."""

from __future__ import annotations

from dataclasses import dataclass

from mqadmin.model.rpc.bodies import KV_TABLE, PROPERTIES, RAW
from mqadmin.model.rpc.spec import Header, Rpc, wire
from mqadmin.wire.codes import RequestCode as C


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigVersionHeader(Header):
    version: str | None = wire("version", None)
    """The broker config's DataVersion as JSON."""


GET_BROKER_CONFIG = Rpc(
    C.GET_BROKER_CONFIG, "GET_BROKER_CONFIG", response_header=ConfigVersionHeader, response_body=PROPERTIES,
    summary="the broker's config as properties",
)  # fmt: skip
UPDATE_BROKER_CONFIG = Rpc(
    C.UPDATE_BROKER_CONFIG, "UPDATE_BROKER_CONFIG", body=PROPERTIES, summary="change broker config keys at run time"
)
GET_BROKER_RUNTIME_INFO = Rpc(
    C.GET_BROKER_RUNTIME_INFO, "GET_BROKER_RUNTIME_INFO", response_body=KV_TABLE,
    summary="version, TPS, offsets, disk and thread-pool figures",
)  # fmt: skip


CLEAN_EXPIRED_CONSUMEQUEUE = Rpc(
    C.CLEAN_EXPIRED_CONSUMEQUEUE, "CLEAN_EXPIRED_CONSUMEQUEUE",
    summary="drop consume-queue files whose messages left the commit log",
)  # fmt: skip
CLEAN_UNUSED_TOPIC = Rpc(
    C.CLEAN_UNUSED_TOPIC, "CLEAN_UNUSED_TOPIC", summary="drop stored queues of topics the broker no longer has"
)
DELETE_EXPIRED_COMMITLOG = Rpc(
    C.DELETE_EXPIRED_COMMITLOG, "DELETE_EXPIRED_COMMITLOG", summary="delete commit-log files past their retention now"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ResetMasterFlushOffsetHeader(Header):
    master_flush_offset: int = wire("masterFlushOffset")


RESET_MASTER_FLUSH_OFFSET = Rpc(
    C.RESET_MASTER_FLUSH_OFFSET, "RESET_MASTER_FLUSH_OFFSET", ResetMasterFlushOffsetHeader,
    summary="set the master flush offset a slave replicates from",
)  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadAheadHeader(Header):
    mode: str = wire("READ_AHEAD_MODE")
    """0: normal read-ahead (MADV_NORMAL), 1: random reads (MADV_RANDOM)."""


SET_COMMITLOG_READ_MODE = Rpc(
    C.SET_COMMITLOG_READ_MODE, "SET_COMMITLOG_READ_MODE", ReadAheadHeader,
    summary="read-ahead mode of the commit-log files (5.x)",
)  # fmt: skip

UPDATE_COLD_DATA_FLOW_CTR_CONFIG = Rpc(
    C.UPDATE_COLD_DATA_FLOW_CTR_CONFIG, "UPDATE_COLD_DATA_FLOW_CTR_CONFIG", body=PROPERTIES,
    summary="cold-read threshold of consumer groups (group=threshold properties; 5.x)",
)  # fmt: skip
REMOVE_COLD_DATA_FLOW_CTR_CONFIG = Rpc(
    C.REMOVE_COLD_DATA_FLOW_CTR_CONFIG, "REMOVE_COLD_DATA_FLOW_CTR_CONFIG", body=RAW,
    summary="drop a consumer group's cold-read threshold (the body is the group name; 5.x)",
)  # fmt: skip
GET_COLD_DATA_FLOW_CTR_INFO = Rpc(
    C.GET_COLD_DATA_FLOW_CTR_INFO, "GET_COLD_DATA_FLOW_CTR_INFO", response_body=RAW,
    summary="cold-read flow control: thresholds and per-group runtime figures as JSON (5.x)",
)  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class TimerEngineHeader(Header):
    engine_type: str = wire("E_T")
    """R: the RocksDB timeline, F: the file time wheel."""


SWITCH_TIMER_ENGINE = Rpc(
    C.SWITCH_TIMER_ENGINE, "SWITCH_TIMER_ENGINE", TimerEngineHeader,
    summary="which engine stores timer (scheduled) messages (5.5)",
)  # fmt: skip
