"""The remoting server answers each kind of handler result: a response at once, a future completed later,
a ``Later`` (the broker's send path) given after or before it is returned, a coroutine; a handler that fails,
at once or through its future, is answered SYSTEM_ERROR with the exception text, and the connection goes on
serving."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

from mqadmin.server.remoting import ClientChannel, Handler, Later, RemotingServer
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire.codes import ResponseCode as R
from mqadmin.wire.frame import RemotingCommand

from .conftest import request, until

NOW, LATER, FAILS_NOW, FAILS_LATER, COROUTINE = 901, 902, 903, 904, 905

Ask = Callable[[int], Awaitable[RemotingCommand]]


@contextlib.asynccontextmanager
async def serving(handlers: dict[int, Handler]) -> AsyncIterator[Ask]:
    """A server with ``handlers`` on a loopback port, and a function sending it a request of a code."""
    server = RemotingServer("answers")
    for code, handler in handlers.items():
        server.register(code, handler)
    addr = f"127.0.0.1:{await server.start()}"
    transport = TcpTransport(timeout=10)
    try:
        yield lambda code: request(transport, addr, code)
    finally:
        await transport.aclose()
        await server.close()


async def test_every_kind_of_handler_result_is_answered_on_one_connection() -> None:
    pending: list[tuple[RemotingCommand, asyncio.Future[RemotingCommand]]] = []

    def now(cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        return cmd.response(R.SUCCESS, "now")

    def later(cmd: RemotingCommand, ch: ClientChannel) -> asyncio.Future[RemotingCommand]:
        fut = asyncio.get_running_loop().create_future()
        pending.append((cmd, fut))
        return fut

    def fails_now(cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        raise ValueError("bad at once")

    def fails_later(cmd: RemotingCommand, ch: ClientChannel) -> asyncio.Future[RemotingCommand]:
        fut = asyncio.get_running_loop().create_future()
        fut.set_exception(KeyError("gone"))
        return fut

    async def coroutine(cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        await asyncio.sleep(0)
        return cmd.response(R.SUCCESS, "awaited")

    handlers: dict[int, Handler] = {NOW: now, LATER: later, FAILS_NOW: fails_now, FAILS_LATER: fails_later,
                                    COROUTINE: coroutine}  # fmt: skip
    async with serving(handlers) as ask:
        waiting = asyncio.ensure_future(ask(LATER))
        await until(lambda: pending, what="the future handler was called")
        # answered while the first request still waits for its future
        assert (await ask(NOW)).remark == "now"
        bad = await ask(FAILS_NOW)
        assert (bad.code, bad.remark) == (R.SYSTEM_ERROR, "ValueError: bad at once")
        bad_later = await ask(FAILS_LATER)
        assert (bad_later.code, bad_later.remark) == (R.SYSTEM_ERROR, "KeyError: 'gone'")
        assert (await ask(COROUTINE)).remark == "awaited"
        assert not waiting.done()
        cmd, fut = pending[0]
        fut.set_result(cmd.response(R.SUCCESS, "later"))
        assert (await waiting).remark == "later"


GIVEN_LATER, GIVEN_EARLY, GIVEN_TWICE, LATER_FAILS = 911, 912, 913, 914


async def test_a_later_is_answered_once_whenever_its_outcome_is_given() -> None:
    pending: list[tuple[RemotingCommand, Later]] = []

    def given_later(cmd: RemotingCommand, ch: ClientChannel) -> Later:
        answer = Later()
        pending.append((cmd, answer))
        return answer

    def given_early(cmd: RemotingCommand, ch: ClientChannel) -> Later:
        answer = Later()
        answer.give(cmd.response(R.SUCCESS, "before it was returned"))
        return answer

    def given_twice(cmd: RemotingCommand, ch: ClientChannel) -> Later:
        answer = Later()
        answer.give(cmd.response(R.SUCCESS, "first"))
        answer.give(cmd.response(R.SUCCESS, "second"))
        return answer

    def later_fails(cmd: RemotingCommand, ch: ClientChannel) -> Later:
        answer = Later()
        answer.give(KeyError("no commit"))
        return answer

    handlers: dict[int, Handler] = {GIVEN_LATER: given_later, GIVEN_EARLY: given_early, GIVEN_TWICE: given_twice,
                                    LATER_FAILS: later_fails}  # fmt: skip
    async with serving(handlers) as ask:
        waiting = asyncio.ensure_future(ask(GIVEN_LATER))
        await until(lambda: pending, what="the handler returned its Later")
        assert (await ask(GIVEN_EARLY)).remark == "before it was returned"
        assert (await ask(GIVEN_TWICE)).remark == "first"
        failed = await ask(LATER_FAILS)
        assert (failed.code, failed.remark) == (R.SYSTEM_ERROR, "KeyError: 'no commit'")
        assert not waiting.done()
        cmd, answer = pending[0]
        answer.give(cmd.response(R.SUCCESS, "later"))
        answer.give(cmd.response(R.SUCCESS, "again"))
        assert (await waiting).remark == "later"
        assert (await ask(GIVEN_EARLY)).remark == "before it was returned"


async def test_a_remark_quoting_a_megabyte_is_cut_short() -> None:
    """Whatever a handler puts in a remark (a failure quoting hostile input), at most REMARK_LIMIT characters of
    it go back, then the remark's length."""
    from mqadmin.server.remoting import REMARK_LIMIT

    def echoes(cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        raise ValueError("x" * (1 << 20))

    async with serving({NOW: echoes}) as ask:
        resp = await ask(NOW)
    assert resp.code == R.SYSTEM_ERROR
    assert resp.remark is not None and resp.remark.startswith("ValueError: xxx")
    assert len(resp.remark) < REMARK_LIMIT + 40 and resp.remark.endswith(" characters)")
