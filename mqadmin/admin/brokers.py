"""Broker operations: runtime information and config."""

from __future__ import annotations

from mqadmin.admin.core import AdminCore
from mqadmin.model.rpc import brokers as rpc


class BrokerOps(AdminCore):
    async def broker_runtime_info(self, addr: str) -> dict[str, str]:
        return (await self.request(addr, rpc.GET_BROKER_RUNTIME_INFO)).body or {}

    async def broker_config(self, addr: str) -> dict[str, str]:
        """GET_BROKER_CONFIG (26): the broker's properties."""
        return (await self.request(addr, rpc.GET_BROKER_CONFIG)).body or {}

    async def update_broker_config(self, addr: str, props: dict[str, str]) -> None:
        """UPDATE_BROKER_CONFIG (25): the broker applies the keys it changes at run time."""
        await self.request(addr, rpc.UPDATE_BROKER_CONFIG, body=props)
