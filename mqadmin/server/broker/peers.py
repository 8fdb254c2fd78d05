"""Requests one broker forwards to another (Apache's RpcClient on the broker): reads of a static topic's logic
queue whose older items are on other brokers.

A forwarded request carries ``lo=false`` (the receiver serves the physical queue named, without a mapping) and
``bname``, the broker it is meant for, as Apache's. The other broker's address is its master's in the topic's
route from the name servers (the route's broker datas: every broker holding the topic, a remapped queue's old
broker included), remembered until a request to it fails. Every request is bounded by ``forward_timeout``,
connecting included; a broker that cannot be found or reached is a ``ForwardFailed``, which the caller
answers as Apache does (SYSTEM_ERROR, naming what failed).
"""

from __future__ import annotations

import asyncio
from typing import Any

from mqadmin.model.rpc.namesrv import GET_ROUTEINFO_BY_TOPIC, RouteHeader
from mqadmin.model.rpc.spec import Header, Rpc
from mqadmin.server.broker.config import BrokerConfig
from mqadmin.transport.errors import ConnectionClosed, RequestTimeout, TransportError
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand


class ForwardFailed(Exception):
    """A forwarded request got no (usable) answer; the message is the remark of the refusal (Apache's wording
    first)."""


class PeerBrokers:
    def __init__(self, config: BrokerConfig) -> None:
        self.config = config
        self._transport = TcpTransport(
            timeout=config.forward_timeout,
            tls=config.namesrv_tls(),
            credentials=config.internal_credentials(),  # with ACL on, signed as the broker's own requests
        )
        self._addrs: dict[str, str] = {}
        """Broker name → its master's address, from the last route read."""

    async def request(self, topic: str, bname: str, rpc: Rpc[Any, Any, Any, Any], header: Header) -> RemotingCommand:
        """``rpc`` with ``header`` sent to broker ``bname`` as a forwarded request; its answer as it came."""
        timeout = self.config.forward_timeout
        addr = await self._addr(topic, bname, timeout)

        def forwarded() -> RemotingCommand:
            cmd = rpc.request(header)
            cmd.ext["lo"] = "false"
            cmd.ext["bname"] = bname
            return cmd

        try:
            async with asyncio.timeout(timeout):  # connecting included (a changed forwardTimeout applies at once)
                try:
                    return await self._transport.request(addr, forwarded(), timeout)
                except ConnectionClosed:  # an idle connection the other broker closed: once more on a new one
                    return await self._transport.request(addr, forwarded(), timeout)
        except (TimeoutError, TransportError) as e:
            self._addrs.pop(bname, None)  # it may have moved: the next request reads the route again
            if isinstance(e, TimeoutError | RequestTimeout):
                why = f"wait response from {addr} timeout :{timeout * 1000:.0f}ms"
            else:
                why = f"error from remoting layer: {e}"
            raise ForwardFailed(f"{why} (forwarding {rpc.name} of {topic} to broker {bname})") from None

    async def _addr(self, topic: str, bname: str, timeout: float) -> str:
        addr = self._addrs.get(bname)
        if addr is not None:
            return addr
        asked: list[str] = []
        for namesrv in self.config.namesrv_addrs:
            try:
                async with asyncio.timeout(timeout):
                    resp = await self._transport.request(
                        namesrv, GET_ROUTEINFO_BY_TOPIC.request(RouteHeader(topic=topic)), timeout
                    )
            except (TransportError, TimeoutError) as e:
                asked.append(f"{namesrv}: {e or 'no answer in time'}")
                continue
            if resp.code != ResponseCode.SUCCESS:
                asked.append(f"{namesrv}: {resp.remark or resp.code}")
                continue
            try:
                route = GET_ROUTEINFO_BY_TOPIC.reply(resp).body
            except (ValueError, RecursionError) as e:
                asked.append(f"{namesrv}: unreadable route ({e})")
                continue
            for bd in route.broker_datas if route is not None else []:
                if bd.master_addr:
                    self._addrs[bd.broker_name] = bd.master_addr
            if bname in self._addrs:
                return self._addrs[bname]
            asked.append(f"{namesrv}: no master of {bname} in the route of {topic}")
        raise ForwardFailed(f"cannot find addr for broker {bname} ({'; '.join(asked) or 'no name server'})")

    async def aclose(self) -> None:
        await self._transport.aclose()
