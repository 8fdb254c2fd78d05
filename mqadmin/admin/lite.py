"""Lite-topic queries (RocketMQ 5.5) on one broker, or on every broker of a parent topic's route.

A broker older than 5.5 answers REQUEST_CODE_NOT_SUPPORTED; its row then says that lite topics need 5.5.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from mqadmin.admin.batch import UNSUPPORTED
from mqadmin.admin.errors import MalformedResponse, ResponseError
from mqadmin.admin.fanout import Target, fan_out
from mqadmin.admin.results import Status, TargetResult
from mqadmin.admin.topics import TopicOps
from mqadmin.model.lite import BrokerLiteInfo, LiteClientInfo, LiteGroupInfo, LiteTopicInfo, ParentTopicInfo
from mqadmin.model.rpc import lite as rpc
from mqadmin.model.rpc.spec import RB, RH, H, Reply, Rpc

LITE_HINT = "lite topics need RocketMQ 5.5 or later brokers"


class LiteUnsupported(ResponseError):
    """REQUEST_CODE_NOT_SUPPORTED from a broker without lite topics; its description says so."""

    def describe(self) -> str:
        return f"{super().describe()} ({LITE_HINT})"


class LiteOps(TopicOps):
    async def _lite_request(self, addr: str, rpc_: Rpc[H, None, RH, RB], header: H | None = None) -> Reply[RH, RB]:
        try:
            return await self.request(addr, rpc_, header)
        except ResponseError as e:
            if e.code in UNSUPPORTED:
                raise LiteUnsupported(e.code, e.remark, e.addr) from None
            raise

    async def _lite(self, addr: str, rpc_: Rpc[H, None, RH, RB], header: H | None = None) -> RB:
        """The body of a lite request's answer; a broker that sends none answered something unreadable."""
        body = (await self._lite_request(addr, rpc_, header)).body
        if body is None:
            raise MalformedResponse(addr, f"{rpc_.name}: no body")
        return body

    async def broker_lite_info(self, addr: str) -> BrokerLiteInfo:
        return await self._lite(addr, rpc.GET_BROKER_LITE_INFO)

    async def parent_topic_info(self, addr: str, topic: str) -> ParentTopicInfo:
        return await self._lite(addr, rpc.GET_PARENT_TOPIC_INFO, rpc.ParentTopicHeader(topic=topic))

    async def lite_topic_info(self, addr: str, parent: str, lite_topic: str) -> LiteTopicInfo:
        return await self._lite(
            addr, rpc.GET_LITE_TOPIC_INFO, rpc.LiteTopicHeader(parent_topic=parent, lite_topic=lite_topic)
        )

    async def lite_client_info(self, addr: str, parent: str, group: str, client_id: str) -> LiteClientInfo:
        header = rpc.LiteClientHeader(parent_topic=parent, group=group, client_id=client_id)
        return await self._lite(addr, rpc.GET_LITE_CLIENT_INFO, header)

    async def lite_group_info(self, addr: str, group: str, lite_topic: str | None, top_k: int) -> LiteGroupInfo:
        header = rpc.LiteGroupHeader(group=group, lite_topic=lite_topic, top_k=top_k)
        return await self._lite(addr, rpc.GET_LITE_GROUP_INFO, header)

    async def trigger_lite_dispatch(self, addr: str, group: str, client_id: str | None) -> None:
        await self._lite_request(
            addr, rpc.TRIGGER_LITE_DISPATCH, rpc.TriggerLiteDispatchHeader(group=group, client_id=client_id)
        )

    async def on_route_brokers(
        self, parent_topic: str, op: Callable[[str], Awaitable[Any]], broker_name: str | None = None
    ) -> list[TargetResult]:
        """``op(addr)`` on each broker of the parent topic's route (its master, else a slave; only
        ``broker_name`` when given), concurrently; one row per broker with the answer as ``data``."""
        route = await self.topic_route(parent_topic)
        targets = []
        for b in sorted(route.broker_datas, key=lambda b: b.broker_name):
            if broker_name is not None and b.broker_name != broker_name:
                continue
            addr = b.master_addr or next((a for _, a in sorted(b.broker_addrs.items())), "")
            targets.append(Target(b.broker_name, addr, 0, b.cluster))

        async def one(t: Target) -> TargetResult:
            return TargetResult(t.name, t.addr, Status.OK, data=await op(t.addr))

        return await fan_out(targets, one)
