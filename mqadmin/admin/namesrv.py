"""Finding the name servers and talking to one of them at a time.

Addresses come from ``-n 'a:9876;b:9876'``, else the ``NAMESRV_ADDR`` environment variable.
As RocketMQ 5.x does, an ``http://…/host:port`` value uses the part after the last ``/``; any
other ``http(s)://`` URL is an address server that lists the name servers (``mqadmin.admin.addrserver``).
Like the Java client, a ``NameServerSet`` starts at a random name server and, when one cannot be reached
or does not answer, moves on to the next in turn (docs/protocol.md, "Clients").
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

from mqadmin.admin.addrserver import is_url
from mqadmin.admin.errors import BadNameServerAddress, MalformedResponse, NameServerUnreachable, NoNameServer
from mqadmin.transport.errors import TransportError
from mqadmin.wire.address import BadAddress, split_addr_list

if TYPE_CHECKING:
    import random

ENV_VAR = "NAMESRV_ADDR"

T = TypeVar("T")


def address_server_url(value: str) -> str | None:
    """``value`` when it is an address-server URL: an ``http(s)://`` value whose part after the last ``/`` is
    not a ``host:port`` list (that form, RocketMQ 5.x's endpoint, names the name servers themselves)."""
    text = value.strip()
    if not is_url(text):
        return None
    try:
        endpoint = parse_namesrv_addrs(text)
    except BadNameServerAddress:
        return text
    return None if endpoint else text


def parse_namesrv_addrs(value: str) -> list[str]:
    """``'a:9876; b:9876'`` (or an ``http://…/a:9876`` endpoint) into ``["a:9876", "b:9876"]``."""
    text = value.strip()
    if is_url(text):
        text = text.rsplit("/", 1)[1]
    try:
        return split_addr_list(text)
    except BadAddress as e:
        raise BadNameServerAddress(e.addr, e.problem) from None


def resolve_namesrv_addrs(
    option: str | None, env: Mapping[str, str] | None = None, fetch: Fetch | None = None
) -> list[str]:
    """The ``-n`` value if given, else ``NAMESRV_ADDR``; ``NoNameServer`` when both are empty.

    An address-server URL is handed to ``fetch`` (by default ``fetch_namesrv_list`` with its defaults)."""
    env = os.environ if env is None else env
    for value in (option, env.get(ENV_VAR)):
        if value and value.strip():
            return namesrv_list(value, fetch)
    raise NoNameServer()


Fetch = Callable[[str], list[str]]
"""Fetches the name-server list from an address-server URL."""


def namesrv_list(value: str, fetch: Fetch | None = None) -> list[str]:
    """The name servers a ``-n`` / NAMESRV_ADDR / profile value stands for (fetched when it is an address
    server); ``NoNameServer`` when it lists none."""
    url = address_server_url(value)
    if url is not None:
        return (fetch or _default_fetch)(url)
    addrs = parse_namesrv_addrs(value)
    if not addrs:
        raise NoNameServer()
    return addrs


def _default_fetch(url: str) -> list[str]:
    from mqadmin.admin.addrserver import fetch_namesrv_list

    return fetch_namesrv_list(url, parse=parse_namesrv_addrs)


class NameServerSet:
    """The configured name servers; ``call`` uses one and fails over to the next on transport errors."""

    def __init__(self, addrs: Sequence[str], rng: random.Random | None = None) -> None:
        if not addrs:
            raise NoNameServer()
        self.addrs = list(addrs)
        if rng is None and len(self.addrs) == 1:  # the usual -n: no need for the random module at start-up
            self._index = 0
            return
        if rng is None:
            import random

            rng = random.Random()
        self._index = rng.randrange(len(self.addrs))

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
