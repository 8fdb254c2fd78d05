"""AdminCore: requests by declaration (``mqadmin.model.rpc``) to one server, to one name server with
fail-over, or to every name server; and the cluster view fan-outs start from.

The transport is injectable, as in httpx: pass any ``Transport`` (tests use a fake); by default a
``TcpTransport`` is created and closed with the client. The operation mixins (topics, groups,
brokers, name servers) build on this class; ``AdminClient`` combines them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mqadmin.admin.errors import MalformedResponse, ResponseError, UnknownCluster
from mqadmin.admin.namesrv import NameServerSet
from mqadmin.model.route import BrokerData, ClusterInfo
from mqadmin.model.rpc import Reply, Rpc
from mqadmin.model.rpc.namesrv import GET_BROKER_CLUSTER_INFO
from mqadmin.model.rpc.spec import RB, RH, B, H
from mqadmin.transport.base import Transport

if TYPE_CHECKING:  # the fan-out's types load with the first operation on brokers (a name-server query needs none)
    from mqadmin.admin.fanout import Target
    from mqadmin.admin.results import Status, TargetResult
    from mqadmin.transport.credentials import Credentials


class AdminCore:
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
        if transport is None:
            from mqadmin.transport.tcp import TcpTransport

            transport = TcpTransport(timeout=timeout, credentials=credentials)
        self.transport: Transport = transport
        self.lacking: set[tuple[str, int]] = set()
        """(broker address, request code) of the requests a broker answered with "not supported" (as 4.9 does
        GET_TOPIC_CONFIG and the list requests): asked again, it gets what replaces them at once."""

    async def __aenter__(self) -> Any:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._own_transport:
            await self.transport.aclose()

    # --- requests ----------------------------------------------------------------------------------

    async def request(
        self, addr: str, rpc: Rpc[H, B, RH, RB], header: H | None = None, body: B | None = None, *, timeout: float = 0
    ) -> Reply[RH, RB]:
        """One request; a response code outside ``rpc.ok`` raises ``ResponseError``. ``timeout`` replaces the
        client's for a request the server holds on purpose (a long-polling pull)."""
        resp = await self.transport.request(addr, rpc.request(header, body), timeout or self.timeout)
        if resp.code not in rpc.ok:
            raise ResponseError(resp.code, resp.remark, addr)
        try:
            return rpc.reply(resp)
        except (ValueError, UnicodeDecodeError, RecursionError) as e:
            raise MalformedResponse(addr, f"{rpc.name}: {e}") from None

    async def request_namesrv(
        self, rpc: Rpc[H, B, RH, RB], header: H | None = None, body: B | None = None
    ) -> Reply[RH, RB]:
        """A request to one name server, failing over to the next on transport errors."""
        return await self.namesrv.call(lambda addr: self.request(addr, rpc, header, body))

    async def request_every_namesrv(
        self, rpc: Rpc[H, B, RH, RB], header: H | None, status: Status, body: B | None = None
    ) -> list[TargetResult]:
        """Send to every name server concurrently; one result per name server."""
        from mqadmin.admin.fanout import Target, fan_out
        from mqadmin.admin.results import TargetResult

        async def one(t: Target) -> TargetResult:
            reply = await self.request(t.addr, rpc, header, body)
            return TargetResult("namesrv", t.addr, status, data=reply.header)

        return await fan_out([Target("namesrv", addr) for addr in self.namesrv.addrs], one)

    # --- where to send -----------------------------------------------------------------------------

    async def cluster_info(self) -> ClusterInfo:
        return (await self.request_namesrv(GET_BROKER_CLUSTER_INFO)).body or ClusterInfo()

    async def cluster_brokers(self, cluster: str, info: ClusterInfo | None = None) -> list[BrokerData]:
        """The brokers (by name, with all their addresses) of a cluster; ``UnknownCluster`` lists the known ones."""
        info = info or await self.cluster_info()
        if cluster not in info.clusters:
            raise UnknownCluster(cluster, list(info.clusters))
        return sorted(info.brokers_of(cluster), key=lambda b: b.broker_name)

    async def targets(
        self, broker_addr: str | None, cluster: str | None, info: ClusterInfo | None = None
    ) -> list[Target]:
        """mqadmin's ``-b addr`` (that broker) or ``-c cluster`` (every master of the cluster)."""
        from mqadmin.admin.fanout import masters, target_of

        if cluster:
            return masters(await self.cluster_brokers(cluster, info))
        if not broker_addr:
            raise ValueError("a broker address or a cluster name is needed")
        return [target_of(broker_addr, info or await self.cluster_info())]
