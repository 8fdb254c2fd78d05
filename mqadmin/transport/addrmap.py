"""Broker address map: brokers in Docker or Kubernetes register addresses the admin host cannot reach
(apache/rocketmq-docker#27); ``MappedTransport`` sends each request for a registered address to the
reachable one it is mapped to (``10.0.0.5:10911=127.0.0.1:30911``). Name servers are never mapped.

The map wraps any ``Transport``, so it applies to every request of every command (fan-outs, exports,
message commands) and callers keep seeing, and reporting, the registered addresses.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from mqadmin.transport.base import Transport
from mqadmin.wire.address import split_addr
from mqadmin.wire.frame import RemotingCommand


class BadAddressMap(ValueError):
    """An entry that is not ``registered=reachable`` with two host:port addresses."""


def parse_addr_map(entries: Iterable[str]) -> dict[str, str]:
    """``["10.0.0.5:10911=127.0.0.1:30911", ...]`` (each item may also hold several entries separated by
    commas) into a dict; ``BadAddressMap`` names the bad entry."""
    out: dict[str, str] = {}
    for item in entries:
        for entry in (e.strip() for e in item.split(",")):
            if not entry:
                continue
            registered, sep, reachable = (p.strip() for p in entry.partition("="))
            if not sep:
                raise BadAddressMap(f"{entry!r} is not REGISTERED=REACHABLE")
            for addr in (registered, reachable):
                try:
                    split_addr(addr)
                except ValueError as e:
                    raise BadAddressMap(f"{entry!r}: bad address {addr!r}: {e}") from None
            if out.get(registered, reachable) != reachable:
                raise BadAddressMap(f"{registered} is mapped twice ({out[registered]} and {reachable})")
            out[registered] = reachable
    return out


class MappedTransport:
    """A ``Transport`` sending requests for a mapped address to its replacement. Addresses in ``keep`` (the
    name servers) are never rewritten."""

    def __init__(self, inner: Transport, mapping: Mapping[str, str], keep: Iterable[str] = ()) -> None:
        self.inner = inner
        self.mapping = {k: v for k, v in mapping.items() if k not in set(keep)}

    def target(self, addr: str) -> str:
        return self.mapping.get(addr, addr)

    async def request(self, addr: str, cmd: RemotingCommand, timeout: float | None = None) -> RemotingCommand:
        return await self.inner.request(self.target(addr), cmd, timeout)

    async def oneway(self, addr: str, cmd: RemotingCommand) -> None:
        await self.inner.oneway(self.target(addr), cmd)

    async def aclose(self) -> None:
        await self.inner.aclose()
