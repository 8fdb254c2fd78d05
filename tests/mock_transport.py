"""A declaration-driven mock transport for client unit tests, as httpx's ``MockTransport`` is a handler function.

A test gives a handler (or a table of them, ``routes``) that receives the request decoded as a server's handler
gets it (``Decoded[Header, Body]``, after its declaration's checks) and where it was sent, and returns an
``Answer``: a header and body of the declared response types, or a refusal. Both directions go through the
frame encoder and the declarations, as on the wire: a request the declaration refuses is answered with the
refusal a server gives (the handler never sees it), an undeclared code REQUEST_CODE_NOT_SUPPORTED, and an answer
the declaration cannot encode is a test error. What a broker *does* (attributes, ACL decisions, offsets) is not
scripted here: tests of it run the embedded servers (``mqadmin.server``).

Lives in tests/: the transport layer may not import the declarations (mqadmin.model), and no user needs it.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mqadmin.model.route import BrokerData, ClusterInfo, QueueData, TopicRouteData
from mqadmin.model.rpc.spec import REGISTRY, Decoded, Header, RequestRefused, Rpc
from mqadmin.transport.errors import ConnectionRefused, RequestTimeout
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import DEFAULT_VERSION, RemotingCommand, decode_frame, encode_frame


@dataclass(frozen=True, slots=True)
class Answer:
    """A response as its declaration types it: ``header`` of ``rpc.response_header``, ``body`` of the type
    ``rpc.response_body`` encodes; ``version``: the server's MQVersion ordinal (None: the mock's)."""

    header: Header | None = None
    body: Any = None
    code: int = ResponseCode.SUCCESS
    remark: str | None = None
    version: int | None = None


def ok(body: Any = None, header: Header | None = None, *, version: int | None = None) -> Answer:
    return Answer(header, body, version=version)


def refuse(code: int, remark: str, *, version: int | None = None) -> Answer:
    """An error answer, as a broker refusing the request sends it (code and remark, nothing else)."""
    return Answer(code=int(code), remark=remark, version=version)


Result = Answer | Awaitable[Answer]
Handler = Callable[[Decoded[Any, Any], str], Result]
"""``handler(request, addr)``: the answer of the server at ``addr``. It may raise a ``TransportError`` (the
server is down) or never finish (it hangs: the caller's timeout applies)."""


def cluster_info(*brokers: tuple[str, int, str], cluster: str = "DefaultCluster") -> ClusterInfo:
    """A name server's cluster table: (broker name, broker id, address) of each broker registered in ``cluster``."""
    info = ClusterInfo()
    for name, bid, addr in brokers:
        info.brokers.setdefault(name, BrokerData(cluster, name)).broker_addrs[bid] = addr
        if name not in info.clusters.setdefault(cluster, []):
            info.clusters[cluster].append(name)
    return info


def topic_route(*brokers: tuple[str, str], queues: int = 4, perm: int = 6) -> TopicRouteData:
    """A name server's route of a topic on these masters ((broker name, address) each), ``queues`` queues on each."""
    return TopicRouteData(
        [BrokerData("DefaultCluster", name, {0: addr}) for name, addr in brokers],
        [QueueData(name, queues, queues, perm) for name, _ in brokers],
    )


def runtime(version: int, put_tps: str) -> dict[str, str]:
    """GET_BROKER_RUNTIME_INFO as a broker of ``version`` answers it (4.9 spells getTransferedTps), putting
    ``put_tps`` (the figures of the last 10 s, 1 min, 10 min)."""
    return {
        "brokerVersionDesc": "V5_3_3" if version >= 413 else "V4_9_8",
        "brokerVersion": str(version),
        "putTps": put_tps,
        "getTransferredTps" if version >= 413 else "getTransferedTps": "3.25 2.0 1.0 ",
        "msgPutTotalTodayNow": "150",
        "msgPutTotalTodayMorning": "100",
        "msgPutTotalYesterdayMorning": "40",
        "msgGetTotalTodayNow": "90",
        "msgGetTotalTodayMorning": "60",
        "msgGetTotalYesterdayMorning": "10",
        "commitLogDiskRatio": "0.24",
    }


def unsupported(req: Decoded[Any, Any]) -> Answer:
    return refuse(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, f" request type {req.cmd.code} not supported")


def by_method(server: object, req: Decoded[Any, Any]) -> Result:
    """The answer of ``server``'s method named for the request (``get_max_offset(req)`` for GET_MAX_OFFSET), or
    REQUEST_CODE_NOT_SUPPORTED when it has none: a scripted server is a class with one method per request."""
    rpc = REGISTRY.get(req.cmd.code)
    method = getattr(server, rpc.name.lower(), None) if rpc else None
    return method(req) if method else unsupported(req)


def routes(table: Mapping[Rpc[Any, Any, Any, Any], Answer | Handler]) -> Handler:
    """A handler from a small table: each declared request to a fixed answer or its own handler; any other
    request is not supported (as a server without it answers)."""
    by_code = {rpc.code: a for rpc, a in table.items()}

    def handler(req: Decoded[Any, Any], addr: str) -> Result:
        found = by_code.get(req.cmd.code)
        if found is None:
            return unsupported(req)
        return found if isinstance(found, Answer) else found(req, addr)

    return handler


class MockTransport:
    """A ``mqadmin.transport.Transport`` answering every request with ``handler``; ``down``: addresses that
    refuse connections. ``sent`` keeps each request as the handler got it (refused ones too), with its address."""

    def __init__(self, handler: Handler, *, version: int = DEFAULT_VERSION, down: frozenset[str] = frozenset()):
        self.handler = handler
        self.version = version
        self.down = set(down)
        self.sent: list[tuple[str, RemotingCommand]] = []
        self.closed = False

    async def request(self, addr: str, cmd: RemotingCommand, timeout: float | None = None) -> RemotingCommand:
        resp = await self._serve(addr, cmd, timeout)
        return _over_the_wire(resp)

    async def oneway(self, addr: str, cmd: RemotingCommand) -> None:
        await self._serve(addr, cmd, None)

    async def aclose(self) -> None:
        self.closed = True

    def codes_sent_to(self, addr: str) -> list[int]:
        return [c.code for a, c in self.sent if a == addr]

    async def _serve(self, addr: str, cmd: RemotingCommand, timeout: float | None) -> RemotingCommand:
        cmd = _over_the_wire(cmd)  # what a server reads: the frame's text, typed fields as strings
        self.sent.append((addr, cmd))
        if addr in self.down:
            raise ConnectionRefused(addr, "Connection refused")
        rpc = REGISTRY.get(cmd.code)
        if rpc is None:
            return self._encode(None, cmd, unsupported(Decoded(cmd, None, None)))
        try:
            req = rpc.decode(cmd)
        except RequestRefused as e:
            return self._encode(rpc, cmd, refuse(e.code, e.remark))
        result = self.handler(req, addr)
        if inspect.isawaitable(result):
            try:
                result = await asyncio.wait_for(_awaited(result), timeout)
            except TimeoutError:
                raise RequestTimeout(addr, cmd.code, timeout or 0) from None
        return self._encode(rpc, cmd, result)

    def _encode(self, rpc: Rpc[Any, Any, Any, Any] | None, cmd: RemotingCommand, answer: Answer) -> RemotingCommand:
        if not isinstance(answer, Answer):
            raise TypeError(f"the handler answered request {cmd.code} with {answer!r}, not an Answer")
        if rpc is not None and answer.header is not None and not isinstance(answer.header, rpc.response_header or ()):
            raise TypeError(f"{rpc.name} answers a {_name(rpc.response_header)} header, not {answer.header!r}")
        if rpc is not None and answer.body is not None and rpc.response_body is None:
            raise TypeError(f"{rpc.name} declares no response body")
        encode = rpc.answer if rpc else _no_body
        resp = encode(cmd, answer.header, answer.body, code=answer.code, remark=answer.remark)
        resp.version = answer.version if answer.version is not None else self.version
        return resp


async def _awaited(result: Awaitable[Any]) -> Answer:
    """The answer a handler's awaitable gives (one that routes to another handler may give an awaitable again)."""
    while inspect.isawaitable(result):
        result = await result
    return result


def _no_body(cmd: RemotingCommand, _h: Any, _b: Any, *, code: int, remark: str | None) -> RemotingCommand:
    return cmd.response(code, remark)


def _name(kind: type | None) -> str:
    return kind.__name__ if kind else "no"


def _over_the_wire(cmd: RemotingCommand) -> RemotingCommand:
    """``cmd`` encoded as a frame and read back (without the length field), as the other side gets it."""
    return decode_frame(encode_frame(cmd)[4:])
