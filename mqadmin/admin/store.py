"""Store maintenance on brokers (Apache 5.3+): the RocksDB consume-queue check, exporting RocksDB-held
metadata to JSON files, and moving POP records from RocksDB to the file store."""

from __future__ import annotations

from collections.abc import Sequence

from mqadmin.admin.core import AdminCore
from mqadmin.admin.fanout import Target, fan_out
from mqadmin.admin.results import Status, TargetResult
from mqadmin.model.rpc import store as rpc


class StoreOps(AdminCore):
    async def check_rocksdb_cq_on(self, targets: Sequence[Target], topic: str, since_ms: int) -> list[TargetResult]:
        """CHECK_ROCKSDB_CQ_WRITE_PROGRESS (354) on each broker; ``data`` is its ``CheckCqResult``. A result of
        CHECK_ERROR is a failed row with the broker's reason."""

        async def one(t: Target) -> TargetResult:
            reply = await self.request(t.addr, rpc.CHECK_ROCKSDB_CQ_WRITE_PROGRESS, rpc.CheckCqHeader(
                topic=topic, check_store_time=since_ms))  # fmt: skip
            result = reply.body or rpc.CheckCqResult(rpc.CHECK_ERROR, "empty answer")
            if result.check_status == rpc.CHECK_ERROR:
                return TargetResult(t.name, t.addr, Status.FAILED, result.check_result or "CHECK_ERROR", data=result)
            return TargetResult(t.name, t.addr, Status.OK, data=result)

        return await fan_out(targets, one)

    async def export_rocksdb_config_on(self, targets: Sequence[Target], types: Sequence[str]) -> list[TargetResult]:
        """EXPORT_ROCKSDB_CONFIG_TO_JSON (355) on each broker: it writes the given metadata kept in RocksDB to
        its JSON config files (metadata it keeps in JSON already is left as it is)."""
        header = rpc.ExportConfigHeader(config_type="".join(f"{t};" for t in types))

        async def one(t: Target) -> TargetResult:
            await self.request(t.addr, rpc.EXPORT_ROCKSDB_CONFIG_TO_JSON, header, timeout=max(self.timeout, 30.0))
            return TargetResult(t.name, t.addr, Status.WRITTEN, data=list(types))

        return await fan_out(targets, one)

    async def export_pop_records_on(self, targets: Sequence[Target], dry_run: bool) -> list[TargetResult]:
        """POP_ROLLBACK (200056) on each broker (Java allows it 30 s); nothing is sent with ``dry_run``."""

        async def one(t: Target) -> TargetResult:
            if dry_run:
                return TargetResult(t.name, t.addr, Status.SKIPPED, "dry run: nothing sent")
            await self.request(t.addr, rpc.POP_ROLLBACK, timeout=max(self.timeout, 30.0))
            return TargetResult(t.name, t.addr, Status.WRITTEN)

        return await fan_out(targets, one)
