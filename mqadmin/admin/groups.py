"""Subscription-group operations on brokers: list, progress."""

from __future__ import annotations

from typing import Any

from mqadmin.admin.core import AdminCore
from mqadmin.model.consume import ConsumeStats
from mqadmin.model.rpc import groups as rpc


class GroupOps(AdminCore):
    async def subscription_groups(self, addr: str) -> dict[str, dict[str, Any]]:
        """GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201): the broker's group configs by name (fastjson bean form)."""
        return (await self.request(addr, rpc.GET_ALL_SUBSCRIPTIONGROUP_CONFIG)).body or {}

    async def consume_stats(self, addr: str, group: str, topic: str | None = None) -> ConsumeStats:
        """GET_CONSUME_STATS (208): the group's offsets per queue on one broker (every topic without ``topic``)."""
        header = rpc.ConsumeStatsHeader(consumer_group=group, topic=topic)
        return (await self.request(addr, rpc.GET_CONSUME_STATS, header)).body or ConsumeStats()
