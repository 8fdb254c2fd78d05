"""Store maintenance requests of Apache 5.3+ brokers: the RocksDB consume-queue consistency check, exporting
RocksDB-held metadata to JSON files, and moving POP records from the RocksDB store to the file store."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mqadmin.model.rpc.bodies import JsonBody
from mqadmin.model.rpc.spec import Header, Rpc, wire

CHECK_ROCKSDB_CQ_WRITE_PROGRESS_CODE = 354
EXPORT_ROCKSDB_CONFIG_TO_JSON_CODE = 355
POP_ROLLBACK_CODE = 200056

CONFIG_TYPES = ("topics", "subscriptionGroups", "consumerOffsets")
"""The metadata a broker keeps in RocksDB (Java ExportRocksDBConfigToJsonRequestHeader.ConfigType)."""

CHECK_STATUSES = ("CHECK_OK", "CHECK_NOT_OK", "CHECK_IN_PROGRESS", "CHECK_ERROR")
"""Java CheckRocksdbCqWriteResult.CheckStatus by value."""
CHECK_ERROR = 3


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckCqHeader(Header):
    topic: str = wire("topic")
    """Empty: every topic."""
    check_store_time: int = wire("checkStoreTime", 0)
    """Messages stored since this time (epoch ms) are compared."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ExportConfigHeader(Header):
    config_type: str = wire("configType")
    """``topics;subscriptionGroups;`` (Java joins the types with ``;``, one after each)."""


@dataclass(frozen=True, slots=True)
class CheckCqResult:
    """Java CheckRocksdbCqWriteResult: the broker starts the check and reports in its log."""

    check_status: int
    check_result: str | None = None

    @property
    def status_name(self) -> str:
        if 0 <= self.check_status < len(CHECK_STATUSES):
            return CHECK_STATUSES[self.check_status]
        return str(self.check_status)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> CheckCqResult:
        result = obj.get("checkResult")
        return cls(int(obj.get("checkStatus") or 0), None if result is None else str(result))

    def to_json(self) -> dict[str, Any]:
        return {"checkStatus": self.check_status, "checkResult": self.check_result}


def config_types_of(value: str) -> list[str]:
    """``topics;consumerOffsets`` as Java reads it (case-insensitive, blanks skipped); ValueError names the
    unknown type."""
    known = {t.lower(): t for t in CONFIG_TYPES}
    out: list[str] = []
    for part in (p.strip() for p in value.split(";")):
        if not part:
            continue
        name = known.get(part.lower())
        if name is None:
            raise ValueError(f"Unknown config type: {part}")
        if name not in out:
            out.append(name)
    return out


CHECK_CQ_RESULT = JsonBody("CheckRocksdbCqWriteResult", CheckCqResult.from_json, CheckCqResult.to_json)

CHECK_ROCKSDB_CQ_WRITE_PROGRESS = Rpc(
    CHECK_ROCKSDB_CQ_WRITE_PROGRESS_CODE, "CHECK_ROCKSDB_CQ_WRITE_PROGRESS", CheckCqHeader,
    response_body=CHECK_CQ_RESULT,
    summary="start comparing the RocksDB consume queues with the file ones (result in the broker's log)",
)  # fmt: skip
EXPORT_ROCKSDB_CONFIG_TO_JSON = Rpc(
    EXPORT_ROCKSDB_CONFIG_TO_JSON_CODE, "EXPORT_ROCKSDB_CONFIG_TO_JSON", ExportConfigHeader,
    summary="write RocksDB-held metadata (topics, groups, offsets) to the broker's JSON config files",
)  # fmt: skip
POP_ROLLBACK = Rpc(
    POP_ROLLBACK_CODE, "POP_ROLLBACK",
    summary="move the POP consumption records from the broker's RocksDB store to its file store",
)  # fmt: skip
