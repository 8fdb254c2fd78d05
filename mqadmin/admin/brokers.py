"""Broker operations: runtime information, config, consume stats and store maintenance."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mqadmin.admin.config_change import change_config_key
from mqadmin.admin.core import AdminCore
from mqadmin.admin.fanout import Target, fan_out
from mqadmin.admin.results import Status, TargetResult
from mqadmin.model.broker_consume import BrokerConsumeStats
from mqadmin.model.rpc import brokers as rpc
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

        async def one(t: Target) -> TargetResult:
            return await change_config_key(t, key, value, self.broker_config, self.update_broker_config, "broker")

        return await fan_out(targets, one)

    async def broker_consume_stats(self, addr: str, is_order: bool, timeout: float = 0) -> BrokerConsumeStats:
        """GET_BROKER_CONSUME_STATS (317): every group's offsets on the broker (only ordered topics with
        ``is_order``)."""
        header = rpc.ConsumeStatsInBrokerHeader(is_order=is_order)
        reply = await self.request(addr, rpc.GET_BROKER_CONSUME_STATS, header, timeout=timeout)
        return reply.body or BrokerConsumeStats(addr)

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
