"""AdminClient: typed, async RocketMQ admin operations (a subset of Java's ``MQAdminExt``).

The transport is injectable, as in httpx: pass any ``Transport`` (tests use a fake); by default a
``TcpTransport`` is created and closed with the client. Name-server reads go to one name server
with fail-over (``NameServerSet``); KV writes and deletes go to every name server, as mqadmin does.
Fan-outs to brokers run concurrently and return one ``TargetResult`` per broker, never stopping at
the first failure.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

from mqadmin.admin.errors import ResponseError, UnknownCluster, reason_of
from mqadmin.admin.namesrv import NameServerSet
from mqadmin.admin.results import Status, TargetResult
from mqadmin.model.route import BrokerData, ClusterInfo, TopicRouteData
from mqadmin.model.stats import QueueOffsets, kv_table_from_body, topic_stats_from_body
from mqadmin.model.topic import TopicConfig
from mqadmin.transport.tcp import Credentials, TcpTransport, Transport
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode, ResponseCode
from mqadmin.wire.frame import RemotingCommand

ORDER_TOPIC_CONFIG = "ORDER_TOPIC_CONFIG"
"""The name-server KV namespace holding ``brokerName:queueNums;…`` per ordered topic."""

V5_0_0 = 413  # first version whose brokers keep topic attributes
V5_1_0 = 433  # first version whose brokers store ``order`` from UPDATE_AND_CREATE_TOPIC

_UNSUPPORTED = {ResponseCode.REQUEST_CODE_NOT_SUPPORTED, ResponseCode.VERSION_NOT_SUPPORTED}


class AdminClient:
    def __init__(
        self,
        namesrv_addrs: Sequence[str],
        transport: Transport | None = None,
        timeout: float = 5.0,
        credentials: Credentials | None = None,
    ) -> None:
        self.namesrv = NameServerSet(namesrv_addrs)
        self.timeout = timeout
        self._own_transport = transport is None
        self.transport: Transport = transport or TcpTransport(timeout=timeout, credentials=credentials)
        self._no_topic_config_code: set[str] = set()  # brokers that answered 351 with "not supported"

    async def __aenter__(self) -> AdminClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._own_transport:
            await self.transport.aclose()

    # --- plumbing ----------------------------------------------------------------------------------

    async def call(
        self,
        addr: str,
        code: int,
        ext: dict[str, str] | None = None,
        body: bytes = b"",
        ok: frozenset[int] | set[int] = frozenset({ResponseCode.SUCCESS}),
    ) -> RemotingCommand:
        """One request; a response code outside ``ok`` raises ``ResponseError``."""
        cmd = RemotingCommand(code=int(code), ext=dict(ext or {}), body=body)
        resp = await self.transport.request(addr, cmd, self.timeout)
        if resp.code not in ok:
            raise ResponseError(resp.code, resp.remark, addr)
        return resp

    async def call_namesrv(
        self,
        code: int,
        ext: dict[str, str] | None = None,
        body: bytes = b"",
        ok: frozenset[int] | set[int] = frozenset({ResponseCode.SUCCESS}),
    ) -> RemotingCommand:
        """A request to one name server, failing over to the next on transport errors."""
        return await self.namesrv.call(lambda addr: self.call(addr, code, ext, body, ok))

    async def call_every_namesrv(self, code: int, ext: dict[str, str], status: Status) -> list[TargetResult]:
        """Send to every name server concurrently; one result per name server."""

        async def one(addr: str) -> TargetResult:
            await self.call(addr, code, ext)
            return TargetResult("namesrv", addr, status)

        return await fan_out([(("namesrv", addr), lambda a=addr: one(a)) for addr in self.namesrv.addrs])

    # --- name server -------------------------------------------------------------------------------

    async def cluster_info(self) -> ClusterInfo:
        resp = await self.call_namesrv(RequestCode.GET_BROKER_CLUSTER_INFO)
        return ClusterInfo.from_body(resp.body)

    async def topic_route(self, topic: str) -> TopicRouteData:
        """The topic's route; ``ResponseError`` with code TOPIC_NOT_EXIST when there is none.

        The request carries version 479 and ``acceptStandardJsonOnly`` so name servers since 4.9.4 answer
        in standard JSON; older ones answer in the legacy form, which is parsed as well.
        """
        ext = {"topic": topic, "acceptStandardJsonOnly": "true"}
        resp = await self.call_namesrv(RequestCode.GET_ROUTEINFO_BY_TOPIC, ext)
        return TopicRouteData.from_body(resp.body)

    async def topic_list(self) -> list[str]:
        resp = await self.call_namesrv(RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER)
        return [str(t) for t in fastjson.loads(resp.body).get("topicList") or []]

    async def get_kv_config(self, namespace: str, key: str) -> str | None:
        """The value, or None when the name server has no such key."""
        resp = await self.call_namesrv(
            RequestCode.GET_KV_CONFIG,
            {"namespace": namespace, "key": key},
            ok={ResponseCode.SUCCESS, ResponseCode.QUERY_NOT_FOUND},
        )
        return resp.ext.get("value") if resp.code == ResponseCode.SUCCESS else None

    async def put_kv_config(self, namespace: str, key: str, value: str) -> list[TargetResult]:
        ext = {"namespace": namespace, "key": key, "value": value}
        return await self.call_every_namesrv(RequestCode.PUT_KV_CONFIG, ext, Status.WRITTEN)

    async def delete_kv_config(self, namespace: str, key: str) -> list[TargetResult]:
        ext = {"namespace": namespace, "key": key}
        return await self.call_every_namesrv(RequestCode.DELETE_KV_CONFIG, ext, Status.DELETED)

    async def cluster_brokers(self, cluster: str, info: ClusterInfo | None = None) -> list[BrokerData]:
        """The brokers (by name, with all their addresses) of a cluster; ``UnknownCluster`` lists the known ones."""
        info = info or await self.cluster_info()
        if cluster not in info.clusters:
            raise UnknownCluster(cluster, list(info.clusters))
        return sorted(info.brokers_of(cluster), key=lambda b: b.broker_name)

    # --- broker: topics ----------------------------------------------------------------------------

    async def get_topic_config(self, addr: str, topic: str) -> TopicConfig | None:
        """GET_TOPIC_CONFIG (351): the broker's config of one topic, None if it has none.

        Brokers before 5.0 do not know code 351 and answer REQUEST_CODE_NOT_SUPPORTED (a ResponseError).
        """
        return (await self._topic_config(addr, topic))[0]

    async def get_all_topic_config(self, addr: str) -> dict[str, TopicConfig]:
        """GET_ALL_TOPIC_CONFIG (21): every topic the broker holds."""
        return (await self._all_topic_config(addr))[0]

    async def read_topic_config(self, addr: str, topic: str) -> tuple[TopicConfig | None, int]:
        """The broker's current config of ``topic`` (None if absent) and the broker's version ordinal.

        Uses code 351 where the broker supports it, else GET_ALL_TOPIC_CONFIG and a look-up.
        """
        if addr not in self._no_topic_config_code:
            try:
                return await self._topic_config(addr, topic)
            except ResponseError as e:
                if e.code not in _UNSUPPORTED:
                    raise
                self._no_topic_config_code.add(addr)
        table, version = await self._all_topic_config(addr)
        return table.get(topic), version

    async def _topic_config(self, addr: str, topic: str) -> tuple[TopicConfig | None, int]:
        ext = {"topic": topic, "lo": "true"}
        ok = {ResponseCode.SUCCESS, ResponseCode.TOPIC_NOT_EXIST}
        resp = await self.call(addr, RequestCode.GET_TOPIC_CONFIG, ext, ok=ok)
        if resp.code == ResponseCode.TOPIC_NOT_EXIST or not resp.body:
            return None, resp.version
        return TopicConfig.from_json(fastjson.loads(resp.body), topic), resp.version

    async def _all_topic_config(self, addr: str) -> tuple[dict[str, TopicConfig], int]:
        resp = await self.call(addr, RequestCode.GET_ALL_TOPIC_CONFIG)
        table = fastjson.loads(resp.body).get("topicConfigTable") or {}
        return {name: TopicConfig.from_json(obj, name) for name, obj in table.items()}, resp.version

    async def create_or_update_topic(self, addr: str, cfg: TopicConfig, broker_name: str = "") -> TargetResult:
        """Create or update ``cfg`` on one broker: created, updated, or unchanged when already identical
        (then nothing is sent). Failures raise; ``create_topic_on_cluster`` turns them into rows."""
        current, version = await self.read_topic_config(addr, cfg.topic_name)
        if current is not None and not config_differs(current, cfg, version):
            return TargetResult(broker_name, addr, Status.UNCHANGED, previous=current)
        await self.call(addr, RequestCode.UPDATE_AND_CREATE_TOPIC, cfg.to_ext())
        status = Status.CREATED if current is None else Status.UPDATED
        return TargetResult(broker_name, addr, status, previous=current)

    async def create_topic_on_cluster(
        self, cluster: str, cfg: TopicConfig, info: ClusterInfo | None = None
    ) -> list[TargetResult]:
        """Create or update on every master of ``cluster`` concurrently; one result per broker.

        A broker with no registered master is reported as failed rather than skipped.
        """
        brokers = await self.cluster_brokers(cluster, info)
        return await fan_out(
            [((b.broker_name, b.master_addr or ""), self._create_on(b, cfg)) for b in brokers],
        )

    def _create_on(self, broker: BrokerData, cfg: TopicConfig) -> Callable[[], Awaitable[TargetResult]]:
        async def run() -> TargetResult:
            if broker.master_addr is None:
                raise LookupError("no master registered (only slaves)")
            return await self.create_or_update_topic(broker.master_addr, cfg, broker.broker_name)

        return run

    async def delete_topic_in_broker(self, addr: str, topic: str) -> None:
        await self.call(addr, RequestCode.DELETE_TOPIC_IN_BROKER, {"topic": topic})

    async def delete_topic_on_cluster(self, cluster: str, topic: str) -> list[TargetResult]:
        """Delete from every master of the cluster (concurrently), then from every name server's route."""
        brokers = await self.cluster_brokers(cluster)

        def on(b: BrokerData) -> Callable[[], Awaitable[TargetResult]]:
            async def run() -> TargetResult:
                if b.master_addr is None:
                    raise LookupError("no master registered (only slaves)")
                await self.delete_topic_in_broker(b.master_addr, topic)
                return TargetResult(b.broker_name, b.master_addr, Status.DELETED)

            return run

        results = await fan_out([((b.broker_name, b.master_addr or ""), on(b)) for b in brokers])
        ext = {"topic": topic, "clusterName": cluster}
        return results + await self.call_every_namesrv(RequestCode.DELETE_TOPIC_IN_NAMESRV, ext, Status.DELETED)

    async def topic_stats(self, addr: str, topic: str) -> list[QueueOffsets]:
        resp = await self.call(addr, RequestCode.GET_TOPIC_STATS_INFO, {"topic": topic})
        return topic_stats_from_body(resp.body)

    # --- broker: runtime ---------------------------------------------------------------------------

    async def broker_runtime_info(self, addr: str) -> dict[str, str]:
        resp = await self.call(addr, RequestCode.GET_BROKER_RUNTIME_INFO)
        return kv_table_from_body(resp.body)

    # --- ordered topics ----------------------------------------------------------------------------

    async def set_order_conf(self, topic: str, entries: dict[str, int], merge: bool) -> tuple[str, list[TargetResult]]:
        """Write ``ORDER_TOPIC_CONFIG/<topic>`` = ``brokerName:queues;…`` to every name server.

        With ``merge`` (mqadmin's ``-b`` form) the current value is read first and these entries replace
        or join the existing ones; otherwise (``-c``) the value is exactly these entries.
        """
        merged: dict[str, int] = {}
        if merge:
            merged = parse_order_conf(await self.get_kv_config(ORDER_TOPIC_CONFIG, topic) or "")
        merged.update(entries)
        value = format_order_conf(merged)
        return value, await self.put_kv_config(ORDER_TOPIC_CONFIG, topic, value)


async def fan_out(tasks: list[tuple[tuple[str, str], Callable[[], Awaitable[TargetResult]]]]) -> list[TargetResult]:
    """Run every task concurrently; a task that raises becomes a FAILED row for its (name, addr)."""
    outcomes = await asyncio.gather(*(run() for _, run in tasks), return_exceptions=True)
    results: list[TargetResult] = []
    for ((name, addr), _), out in zip(tasks, outcomes, strict=True):
        if isinstance(out, TargetResult):
            results.append(out)
        elif isinstance(out, Exception):
            results.append(TargetResult(name, addr, Status.FAILED, reason_of(out)))
        else:
            raise out
    return results


def config_differs(current: TopicConfig, wanted: TopicConfig, broker_version: int) -> bool:
    """Whether writing ``wanted`` would change what the broker holds.

    Brokers before 5.1 do not store ``order`` from a create request and brokers before 5.0 have no
    attributes; comparing those fields there would report every repeat as an update.
    """
    fields = ["read_queue_nums", "write_queue_nums", "perm", "topic_sys_flag", "topic_filter_type"]
    if broker_version >= V5_1_0 or broker_version == 0:
        fields.append("order")
    if broker_version >= V5_0_0 or broker_version == 0:
        fields.append("attributes")
    return any(getattr(current, f) != getattr(wanted, f) for f in fields)


def parse_order_conf(value: str) -> dict[str, int]:
    """``broker-a:8;broker-b:8`` into ``{"broker-a": 8, "broker-b": 8}`` (malformed entries are dropped)."""
    out: dict[str, int] = {}
    for entry in value.split(";"):
        name, sep, num = entry.strip().rpartition(":")
        if sep and name and num.strip().isdigit():
            out[name] = int(num)
    return out


def format_order_conf(entries: dict[str, int]) -> str:
    return ";".join(f"{name}:{n}" for name, n in sorted(entries.items()))
