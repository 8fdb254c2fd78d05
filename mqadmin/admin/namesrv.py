"""Finding the name servers and talking to one of them at a time.

Addresses come from ``-n 'a:9876;b:9876'``, else the ``NAMESRV_ADDR`` environment variable. As
RocketMQ 5.x does, an ``http://…/host:port`` value uses the part after the last ``/``. Like the Java
client, a ``NameServerSet`` starts at a random name server and, when one cannot be reached or does not
answer, moves on to the next in turn (docs/protocol.md, "Clients").
"""

from __future__ import annotations

import os
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TypeVar

from mqadmin.admin.errors import BadNameServerAddress, MalformedResponse, NameServerUnreachable, NoNameServer
from mqadmin.transport.errors import TransportError
from mqadmin.wire.address import BadAddress, split_addr_list

ENV_VAR = "NAMESRV_ADDR"

T = TypeVar("T")


def parse_namesrv_addrs(value: str) -> list[str]:
    """``'a:9876; b:9876'`` (or an ``http://…/a:9876`` endpoint) into ``["a:9876", "b:9876"]``."""
    text = value.strip()
    if text.lower().startswith(("http://", "https://")):
        text = text.rsplit("/", 1)[1]
    try:
        return split_addr_list(text)
    except BadAddress as e:
        raise BadNameServerAddress(e.addr, e.problem) from None


def resolve_namesrv_addrs(option: str | None, env: Mapping[str, str] | None = None) -> list[str]:
    """The ``-n`` value if given, else ``NAMESRV_ADDR``; ``NoNameServer`` when both are empty."""
    env = os.environ if env is None else env
    for value in (option, env.get(ENV_VAR)):
        if value and value.strip():
            addrs = parse_namesrv_addrs(value)
            if addrs:
                return addrs
    raise NoNameServer()


class NameServerSet:
    """The configured name servers; ``call`` uses one and fails over to the next on transport errors."""

    def __init__(self, addrs: Sequence[str], rng: random.Random | None = None) -> None:
        if not addrs:
            raise NoNameServer()
        self.addrs = list(addrs)
        self._index = (rng or random.Random()).randrange(len(self.addrs))

    @property
    def current(self) -> str:
        return self.addrs[self._index]

    async def call(self, fn: Callable[[str], Awaitable[T]]) -> T:
        """Run ``fn(addr)`` against the current name server, then each next one while it fails to connect,
        answer, or answers something unreadable. A server's error *answer* is not a reason to move on: it
        propagates."""
        errors: dict[str, TransportError | MalformedResponse] = {}
        n = len(self.addrs)
        for step in range(n):
            index = (self._index + step) % n
            try:
                result = await fn(self.addrs[index])
            except (TransportError, MalformedResponse) as e:
                errors[self.addrs[index]] = e
                continue
            self._index = index
            return result
        raise NameServerUnreachable(errors)
