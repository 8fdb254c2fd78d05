"""Name-server operations beyond routes: KV namespaces, each name server's config, brokers' write permission.

Changes go to every name server concurrently (Java mqadmin's ``-n`` list) and report one result per name
server: what it held before and after, or why it failed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mqadmin.admin.config_change import change_config_key
from mqadmin.admin.core import AdminCore
from mqadmin.admin.errors import ResponseError
from mqadmin.admin.fanout import Target, fan_out
from mqadmin.admin.results import Status, TargetResult
from mqadmin.model.rpc import namesrv as rpc
from mqadmin.model.rpc import namesrv_admin as kv
from mqadmin.model.rpc.spec import Rpc
from mqadmin.model.topic import PERM_WRITE
from mqadmin.wire.codes import ResponseCode

ROUTE_CONCURRENCY = 32
"""Route requests in flight at once per name server (wipeWritePerm --dry-run reads every route)."""


@dataclass(frozen=True, slots=True)
class PermChange:
    """A broker's queue data of one topic in one name server's routes: its permission now and after."""

    topic: str
    old: int
    new: int


@dataclass(frozen=True, slots=True)
class WritePermPlan:
    """What WIPE_WRITE_PERM_OF_BROKER would do on one name server: the count it would report (every
    topic with queue data of the broker) and the routes that would lose write permission."""

    count: int
    changes: list[PermChange]


class NamesrvOps(AdminCore):
    def namesrv_targets(self) -> list[Target]:
        return [Target("namesrv", addr) for addr in self.namesrv.addrs]

    async def _on_every_namesrv(self, op: Callable[[Target], Awaitable[TargetResult]]) -> list[TargetResult]:
        return await fan_out(self.namesrv_targets(), op)

    # --- KV ----------------------------------------------------------------------------------------

    async def kv_list(self, namespace: str) -> dict[str, str]:
        """GET_KVLIST_BY_NAMESPACE (219); an empty namespace (QUERY_NOT_FOUND) is an empty dict."""
        return (
            await self.request_namesrv(kv.GET_KVLIST_BY_NAMESPACE, kv.NamespaceHeader(namespace=namespace))
        ).body or {}

    async def kv_value_at(self, addr: str, namespace: str, key: str) -> str | None:
        """GET_KV_CONFIG (101) on one name server; None when it has no such key."""
        reply = await self.request(addr, kv.GET_KV_CONFIG, kv.KvHeader(namespace=namespace, key=key))
        return reply.header.value if reply.header is not None else None

    async def update_kv(self, namespace: str, key: str, value: str) -> list[TargetResult]:
        """PUT_KV_CONFIG on every name server: created, updated (old → new) or unchanged (nothing sent)."""

        async def one(t: Target) -> TargetResult:
            old = await self.kv_value_at(t.addr, namespace, key)
            if old == value:
                return TargetResult(t.name, t.addr, Status.UNCHANGED, data=value)
            await self.request(t.addr, kv.PUT_KV_CONFIG, kv.PutKvHeader(namespace=namespace, key=key, value=value))
            if old is None:
                return TargetResult(t.name, t.addr, Status.CREATED, data=value)
            return TargetResult(t.name, t.addr, Status.UPDATED, changes={key: (old, value)}, data=value)

        return await self._on_every_namesrv(one)

    async def delete_kv(self, namespace: str, key: str) -> list[TargetResult]:
        """DELETE_KV_CONFIG on every name server that has the key (``not found`` on the others);
        ``data`` is the value that was deleted."""

        async def one(t: Target) -> TargetResult:
            old = await self.kv_value_at(t.addr, namespace, key)
            if old is None:
                return TargetResult(t.name, t.addr, Status.NOT_FOUND)
            await self.request(t.addr, kv.DELETE_KV_CONFIG, kv.KvHeader(namespace=namespace, key=key))
            return TargetResult(t.name, t.addr, Status.DELETED, data=old)

        return await self._on_every_namesrv(one)

    # --- config ------------------------------------------------------------------------------------

    async def namesrv_config_at(self, addr: str) -> dict[str, str]:
        return (await self.request(addr, rpc.GET_NAMESRV_CONFIG)).body or {}

    async def namesrv_configs(self) -> list[TargetResult]:
        """GET_NAMESRV_CONFIG (319) from every name server; ``data`` is its config."""

        async def one(t: Target) -> TargetResult:
            return TargetResult(t.name, t.addr, Status.OK, data=await self.namesrv_config_at(t.addr))

        return await self._on_every_namesrv(one)

    async def update_namesrv_config(self, key: str, value: str) -> list[TargetResult]:
        """UPDATE_NAMESRV_CONFIG (318) on every name server, each read before and after.

        Java name servers answer SUCCESS for a key they do not have, or a value they cannot parse, and
        change nothing; so a key missing from the name server's config is not sent (failed: unknown key),
        and a value that did not change is reported as not applied. ``data`` is the value after.
        """

        async def one(t: Target) -> TargetResult:
            return await change_config_key(
                t, key, value, self.namesrv_config_at, self._put_namesrv_config, "name server"
            )

        return await self._on_every_namesrv(one)

    async def _put_namesrv_config(self, addr: str, props: dict[str, str]) -> None:
        await self.request(addr, rpc.UPDATE_NAMESRV_CONFIG, body=props)

    # --- write permission --------------------------------------------------------------------------

    async def wipe_write_perm(self, broker_name: str) -> list[TargetResult]:
        """WIPE_WRITE_PERM_OF_BROKER (205) on every name server; ``data`` is the topic count each reports."""
        return await self._write_perm(kv.WIPE_WRITE_PERM_OF_BROKER, broker_name)

    async def add_write_perm(self, broker_name: str) -> list[TargetResult]:
        """ADD_WRITE_PERM_OF_BROKER (327) on every name server; ``data`` is the topic count each reports."""
        return await self._write_perm(kv.ADD_WRITE_PERM_OF_BROKER, broker_name)

    async def _write_perm(self, request: Rpc[Any, Any, Any, Any], broker_name: str) -> list[TargetResult]:
        async def one(t: Target) -> TargetResult:
            reply = await self.request(t.addr, request, kv.BrokerNameHeader(broker_name=broker_name))
            return TargetResult(t.name, t.addr, Status.OK, data=reply.header.count if reply.header else 0)

        return await self._on_every_namesrv(one)

    async def wipe_write_perm_plan(self, broker_name: str) -> list[TargetResult]:
        """What wipe_write_perm would do on each name server, read from its routes (nothing is changed):
        ``data`` is a WritePermPlan."""

        async def one(t: Target) -> TargetResult:
            return TargetResult(t.name, t.addr, Status.OK, data=await self._plan_at(t.addr, broker_name))

        return await self._on_every_namesrv(one)

    async def _plan_at(self, addr: str, broker_name: str) -> WritePermPlan:
        info = (await self.request(addr, rpc.GET_BROKER_CLUSTER_INFO)).body
        broker = info.brokers.get(broker_name) if info else None
        if broker is None:
            return WritePermPlan(0, [])
        topics = await self._topics_at(addr, broker.cluster)
        import asyncio  # here: the KV reads of this module run without asyncio

        gate = asyncio.Semaphore(ROUTE_CONCURRENCY)

        async def perm_of(topic: str) -> int | None:
            async with gate:
                try:
                    reply = await self.request(
                        addr, rpc.GET_ROUTEINFO_BY_TOPIC, rpc.RouteHeader(topic=topic, accept_standard_json_only=True)
                    )
                except ResponseError as e:
                    if e.code == ResponseCode.TOPIC_NOT_EXIST:  # deleted meanwhile
                        return None
                    raise
            route = reply.body
            qd = next((q for q in route.queue_datas if q.broker_name == broker_name), None) if route else None
            return None if qd is None else qd.perm

        perms = await asyncio.gather(*(perm_of(t) for t in topics))
        held = [(topic, perm) for topic, perm in zip(topics, perms, strict=True) if perm is not None]
        changes = [PermChange(topic, perm, perm & ~PERM_WRITE) for topic, perm in held if perm & PERM_WRITE]
        return WritePermPlan(len(held), changes)

    async def _topics_at(self, addr: str, cluster: str) -> list[str]:
        """The topics of a cluster's brokers in one name server's routes; every topic when that name server
        has the per-cluster list disabled (``enableTopicList=false``)."""
        try:
            reply = await self.request(addr, rpc.GET_TOPICS_BY_CLUSTER, rpc.ClusterHeader(cluster=cluster))
        except ResponseError as e:
            if e.code != ResponseCode.SYSTEM_ERROR:
                raise
            reply = await self.request(addr, rpc.GET_ALL_TOPIC_LIST_FROM_NAMESERVER)
        return sorted(set(reply.body or []))
