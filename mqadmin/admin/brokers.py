"""Broker operations: runtime information, config, consume stats and store maintenance."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mqadmin.admin.core import AdminCore
from mqadmin.admin.fanout import Target, fan_out
from mqadmin.admin.results import Status, TargetResult
from mqadmin.model.rpc import brokers as rpc
from mqadmin.model.rpc import consumers as consumers_rpc
from mqadmin.wire import fastjson

if TYPE_CHECKING:  # the consume-stats models and config changes load when used (clusterList needs neither)
    from mqadmin.model.broker_consume import BrokerConsumeStats
    from mqadmin.model.rpc.spec import Rpc

MAINTENANCE: dict[str, Rpc[Any, Any, Any, Any]] = {
    "cleanExpiredCQ": rpc.CLEAN_EXPIRED_CONSUMEQUEUE,
    "cleanUnusedTopic": rpc.CLEAN_UNUSED_TOPIC,
    "deleteExpiredCommitLog": rpc.DELETE_EXPIRED_COMMITLOG,
}
"""Store maintenance requests without header or body, by the command that sends them."""


class BrokerOps(AdminCore):
    async def broker_runtime_info(self, addr: str) -> dict[str, str]:
        return (await self.request(addr, rpc.GET_BROKER_RUNTIME_INFO)).body or {}

    async def broker_config(self, addr: str) -> dict[str, str]:
        """GET_BROKER_CONFIG (26): the broker's properties."""
        return (await self.request(addr, rpc.GET_BROKER_CONFIG)).body or {}

    async def update_broker_config(self, addr: str, props: dict[str, str]) -> None:
        """UPDATE_BROKER_CONFIG (25): the broker applies the keys it changes at run time."""
        await self.request(addr, rpc.UPDATE_BROKER_CONFIG, body=props)

    async def broker_configs(self, targets: Sequence[Target]) -> list[TargetResult]:
        """GET_BROKER_CONFIG on each target; ``data`` is its config."""

        async def one(t: Target) -> TargetResult:
            return TargetResult(t.name, t.addr, Status.OK, data=await self.broker_config(t.addr))

        return await fan_out(targets, one)

    async def update_broker_config_on(self, targets: Sequence[Target], key: str, value: str) -> list[TargetResult]:
        """UPDATE_BROKER_CONFIG of one key on each target, its config read before and after: updated (old →
        new), unchanged, or failed (the broker's refusal, a key it does not have, a value it did not take)."""
        from mqadmin.admin.config_change import change_config_key

        async def one(t: Target) -> TargetResult:
            return await change_config_key(t, key, value, self.broker_config, self.update_broker_config, "broker")

        return await fan_out(targets, one)

    async def broker_consume_stats(self, addr: str, is_order: bool, timeout: float = 0) -> BrokerConsumeStats:
        """GET_BROKER_CONSUME_STATS (317): every group's offsets on the broker (only ordered topics with
        ``is_order``)."""
        header = consumers_rpc.ConsumeStatsInBrokerHeader(is_order=is_order)
        reply = await self.request(addr, consumers_rpc.GET_BROKER_CONSUME_STATS, header, timeout=timeout)
        if reply.body:
            return reply.body
        from mqadmin.model.broker_consume import BrokerConsumeStats

        return BrokerConsumeStats(addr)

    async def broker_maintenance(
        self, targets: Sequence[Target], request: Rpc[Any, Any, Any, Any], *, dry_run: bool = False
    ) -> list[TargetResult]:
        """One store-maintenance request (``MAINTENANCE``) on each target: ok when the broker did it; with
        ``dry_run`` nothing is sent and each target is reported as it would be acted on."""

        async def one(t: Target) -> TargetResult:
            if dry_run:
                return TargetResult(t.name, t.addr, Status.WOULD_DELETE)
            await self.request(t.addr, request)
            return TargetResult(t.name, t.addr, Status.OK)

        return await fan_out(targets, one)

    async def reset_master_flush_offset(self, addr: str, offset: int) -> None:
        """RESET_MASTER_FLUSH_OFFSET (908) on a slave."""
        await self.request(
            addr, rpc.RESET_MASTER_FLUSH_OFFSET, rpc.ResetMasterFlushOffsetHeader(master_flush_offset=offset)
        )

    async def set_read_ahead_mode(self, targets: Sequence[Target], mode: int) -> list[TargetResult]:
        """SET_COMMITLOG_READ_MODE (2004) on each target: 0 normal read-ahead, 1 random reads; ``data`` is the
        broker's remark."""

        async def one(t: Target) -> TargetResult:
            reply = await self.request(t.addr, rpc.SET_COMMITLOG_READ_MODE, rpc.ReadAheadHeader(mode=str(mode)))
            return TargetResult(t.name, t.addr, Status.OK, data=reply.remark)

        return await fan_out(targets, one)

    async def switch_timer_engine(self, targets: Sequence[Target], engine: str) -> list[TargetResult]:
        """SWITCH_TIMER_ENGINE (5001) on each target: ``R`` the RocksDB timeline, ``F`` the file time wheel (the
        letter is what the broker takes);
        ``data`` is the broker's remark."""

        async def one(t: Target) -> TargetResult:
            reply = await self.request(t.addr, rpc.SWITCH_TIMER_ENGINE, rpc.TimerEngineHeader(engine_type=engine))
            return TargetResult(t.name, t.addr, Status.OK, data=reply.remark)

        return await fan_out(targets, one)

    async def cold_data_flow_ctr_info_at(self, addr: str) -> dict[str, Any] | None:
        """GET_COLD_DATA_FLOW_CTR_INFO (2003): the broker's JSON document (``configTable``: group → threshold,
        ``runtimeTable``, the global thresholds), None when it sent none."""
        body = (await self.request(addr, rpc.GET_COLD_DATA_FLOW_CTR_INFO)).body
        return fastjson.loads(body) if body else None

    async def cold_data_flow_ctr_info(self, targets: Sequence[Target]) -> list[TargetResult]:
        """GET_COLD_DATA_FLOW_CTR_INFO on each target; ``data`` is its document."""

        async def one(t: Target) -> TargetResult:
            return TargetResult(t.name, t.addr, Status.OK, data=await self.cold_data_flow_ctr_info_at(t.addr))

        return await fan_out(targets, one)

    async def _cold_threshold(self, addr: str, group: str) -> Any:
        return ((await self.cold_data_flow_ctr_info_at(addr)) or {}).get("configTable", {}).get(group)

    async def update_cold_data_flow_ctr(
        self, targets: Sequence[Target], group: str, threshold: int
    ) -> list[TargetResult]:
        """UPDATE_COLD_DATA_FLOW_CTR_CONFIG (2001): the group's cold-read threshold on each target, read before
        (created, updated old → new, or unchanged: nothing sent)."""

        async def one(t: Target) -> TargetResult:
            old = await self._cold_threshold(t.addr, group)
            if old is not None and int(old) == threshold:
                return TargetResult(t.name, t.addr, Status.UNCHANGED, data=threshold)
            await self.request(t.addr, rpc.UPDATE_COLD_DATA_FLOW_CTR_CONFIG, body={group: str(threshold)})
            if old is None:
                return TargetResult(t.name, t.addr, Status.CREATED, data=threshold)
            return TargetResult(t.name, t.addr, Status.UPDATED, changes={group: (int(old), threshold)}, data=threshold)

        return await fan_out(targets, one)

    async def remove_cold_data_flow_ctr(self, targets: Sequence[Target], group: str) -> list[TargetResult]:
        """REMOVE_COLD_DATA_FLOW_CTR_CONFIG (2002): drop the group's cold-read threshold on each target that has
        one (deleted, ``data`` the threshold it had); not found on the others (nothing sent)."""

        async def one(t: Target) -> TargetResult:
            old = await self._cold_threshold(t.addr, group)
            if old is None:
                return TargetResult(t.name, t.addr, Status.NOT_FOUND)
            await self.request(t.addr, rpc.REMOVE_COLD_DATA_FLOW_CTR_CONFIG, body=group.encode())
            return TargetResult(t.name, t.addr, Status.DELETED, data=old)

        return await fan_out(targets, one)
