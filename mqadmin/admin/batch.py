"""Writing many items (topics, groups) to one broker: in list requests where the broker has them, else one
request per item. ``updateTopicList``, ``updateSubGroupList`` and ``apply`` all write through ``write_many``.

Which request a broker gets is declared with the list request (``Rpc.since``: the first broker version that
has it; ``Rpc.fallback``: the request that replaces it before). The rule, from how Apache RocketMQ 4.9.8,
5.3.3 and 5.5.0 answer (``tests/conformance/test_batch_parity.py``):

* a broker older than ``since`` gets one ``fallback`` per item; so does one that answers the list request
  REQUEST_CODE_NOT_SUPPORTED or VERSION_NOT_SUPPORTED (4.9.8 does: its version said nothing), and the admin
  client remembers it for its other writes;
* a list the broker refuses with any other code is sent again **one item at a time**, so that every item
  gets its own answer, exactly as from a broker without the list request. A refused list tells neither which
  item was wrong nor what was changed: Apache checks the names in the whole list before changing anything,
  but then applies the items one after the other and stops at the first whose attributes it refuses, keeping
  the ones before it in memory (unpersisted, unregistered with the name servers). Sent alone, the good items
  are applied, again where the list already did (the same config: harmless), and the bad one is refused
  with its own reason;
* a list the broker did not answer (a transport error: timeout, connection lost) is not sent again: its items
  fail with that error. Among single requests, once one is not answered the rest are not sent
  (``NotSent``): a hung broker costs one timeout, not one per item. A request held back by Ctrl-C
  (``Interrupted``) fails as such, and so does every later one (the transport stops them).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from mqadmin.admin.bounded import map_bounded
from mqadmin.admin.errors import ResponseError, reason_of
from mqadmin.transport.errors import Interrupted, TransportError
from mqadmin.wire.codes import ResponseCode

if TYPE_CHECKING:
    from mqadmin.admin.core import AdminCore
    from mqadmin.model.rpc.spec import Header, Rpc

    Send = Callable[..., Awaitable[object]]
    """``send(rpc, header, body)``: one request to the broker (``AdminCore.request`` bound to its address)."""

T = TypeVar("T")

UNSUPPORTED = frozenset({ResponseCode.REQUEST_CODE_NOT_SUPPORTED, ResponseCode.VERSION_NOT_SUPPORTED})
"""What a broker answers to a request its version does not have."""
SINGLES_IN_FLIGHT = 16
"""Single requests in flight per broker when the list request is not used."""


class NotSent(Exception):
    """An item not sent because the broker did not answer an earlier request."""

    def __init__(self, why: str) -> None:
        super().__init__(f"not sent: the broker did not answer an earlier request ({why})")


def has_request(admin: AdminCore, addr: str, version: int, rpc: Rpc[Any, Any, Any, Any]) -> bool:
    """Whether the broker at ``addr`` (of ``version``) has ``rpc``: by its declared ``since``, unless it
    already answered that it has not."""
    return rpc.exists_on(version) and (addr, rpc.code) not in admin.lacking


async def write_many(
    admin: AdminCore,
    addr: str,
    version: int,
    batch: Rpc[Any, Any, Any, Any],
    items: Sequence[T],
    *,
    entry: Callable[[T], Any],
    alone: Callable[[T], tuple[Header | None, Any]],
    chunk: int,
    chunks_in_flight: int = 1,
    singles_in_flight: int = SINGLES_IN_FLIGHT,
    send: Send | None = None,
) -> list[Exception | None]:
    """Write ``items`` to the broker at ``addr`` by the rule above: chunks of ``chunk`` items in ``batch``
    (each item as ``entry(item)`` in its body), or ``batch.fallback`` per item (``alone(item)``: its header and
    body). ``send`` (default: ``admin.request`` to ``addr``) carries every request. One outcome per item, in
    order: None when written, else why not."""
    fallback = batch.fallback
    if fallback is None:
        raise TypeError(f"{batch.name} declares no fallback request")
    request: Send = send or (lambda rpc, header=None, body=None: admin.request(addr, rpc, header, body))
    dead: list[str] = []

    async def one(item: T) -> None:
        if dead:
            raise NotSent(dead[0])
        header, body = alone(item)
        try:
            await request(fallback, header, body)
        except TransportError as e:
            if not isinstance(e, Interrupted):  # held back (Ctrl-C), not a broker that failed to answer
                dead.append(reason_of(e))
            raise

    async def singly(part: Sequence[T]) -> list[Exception | None]:
        done = await map_bounded(part, one, singles_in_flight)
        return [out if isinstance(out, Exception) else None for out in done]

    async def in_list(part: Sequence[T]) -> list[Exception | None]:
        if dead:
            return [NotSent(dead[0])] * len(part)
        if (addr, batch.code) not in admin.lacking:
            try:
                await request(batch, None, [entry(i) for i in part])
            except ResponseError as e:
                if e.code in UNSUPPORTED:
                    admin.lacking.add((addr, batch.code))
            except Exception as e:  # not answered (or not readable): the items are not sent again
                if isinstance(e, TransportError) and not isinstance(e, Interrupted):
                    dead.append(reason_of(e))
                return [e] * len(part)
            else:
                return [None] * len(part)
        return await singly(part)

    if not items:
        return []
    if not has_request(admin, addr, version, batch):
        return await singly(items)
    chunks = [items[i : i + chunk] for i in range(0, len(items), chunk)]
    out: list[Exception | None] = []
    for part, done in zip(chunks, await map_bounded(chunks, in_list, chunks_in_flight), strict=True):
        out += [done] * len(part) if isinstance(done, Exception) else done
    return out
