"""transport.gather: a command's fan-out without an event loop runs its coroutines at once on threads (blocking
sockets), with asyncio.gather's results and exceptions; in an event loop it is asyncio.gather. What those threads
share is safe to share: a blocking connection carries one request at a time, and a request declaration module
bound before it has run is run once, whichever thread reaches it first."""

from __future__ import annotations

import asyncio
import select
import socket
import subprocess
import sys
import threading

import pytest

from mqadmin.transport.blocking import BlockingTransport
from mqadmin.transport.gather import gather, run_to_end
from mqadmin.wire.frame import RemotingCommand
from tests.unit.test_blocking_transport import answer, peer, read_cmd


def test_without_a_loop_the_coroutines_run_at_once_and_answer_in_order() -> None:
    both_started = threading.Barrier(2, timeout=30)  # broken (an error) if the second never starts beside the first

    async def ask(name: str) -> str:
        both_started.wait()
        return name

    assert run_to_end(gather(ask("broker-a"), ask("broker-b"))) == ["broker-a", "broker-b"]


def test_without_a_loop_an_error_is_raised_once_every_coroutine_has_ended() -> None:
    ended: list[str] = []
    release = threading.Event()

    async def refused() -> str:
        release.set()
        raise ValueError("broker-a refused")

    async def slow() -> str:
        assert release.wait(30)  # still running when broker-a has already failed
        ended.append("broker-b")
        return "broker-b"

    with pytest.raises(ValueError, match="broker-a refused"):
        run_to_end(gather(refused(), slow()))
    assert ended == ["broker-b"]
    release.clear()
    outcomes = run_to_end(gather(refused(), slow(), return_exceptions=True))
    assert [type(o).__name__ if isinstance(o, Exception) else o for o in outcomes] == ["ValueError", "broker-b"]


def test_a_lone_coroutine_runs_on_the_calling_thread_with_its_error_in_place() -> None:
    async def refused() -> str:
        raise ValueError(f"refused on thread {threading.get_ident()}")

    (outcome,) = run_to_end(gather(refused(), return_exceptions=True))
    assert str(outcome) == f"refused on thread {threading.get_ident()}"
    with pytest.raises(ValueError, match="refused"):
        run_to_end(gather(refused()))


def test_in_an_event_loop_it_is_asyncios_gather() -> None:
    """Coroutines that hand over to each other through the loop, which threads without a loop could not run."""

    async def main() -> list[str]:
        first_done = asyncio.Event()

        async def first() -> str:
            first_done.set()
            return "first"

        async def second() -> str:
            await first_done.wait()
            return "second"

        return await gather(second(), first())

    assert asyncio.run(main()) == ["second", "first"]


def test_threads_sharing_a_blocking_connection_send_one_request_at_a_time() -> None:
    """Two requests to one broker from two threads over the connection a first request opened: the broker sees
    the second only once it has answered the first (interleaved, the first thread could read and drop the
    second's answer)."""
    overlapped: list[bool] = []

    def script(conn: socket.socket) -> None:
        for _ in range(3):
            req = read_cmd(conn)
            # bounded look for a second request sent before this one is answered (none may come)
            overlapped.append(bool(select.select([conn], [], [], 1.0)[0]))
            answer(conn, req, f"answer to {req.opaque}")

    t = BlockingTransport(timeout=10)
    with peer(script) as addr:  # the peer serves one connection: open it before the threads share it
        opened = run_to_end(t.request(addr, RemotingCommand(code=105)))
        remarks = run_to_end(
            gather(t.request(addr, RemotingCommand(code=105)), t.request(addr, RemotingCommand(code=105)))
        )
        run_to_end(t.aclose())
    assert opened.remark == "answer to 1"
    assert sorted(r.remark for r in remarks) == ["answer to 2", "answer to 3"]
    assert overlapped == [False, False, False]


RACE_TO_A_DECLARATION_MODULE = """
import threading
from mqadmin.model import rpc

topics, groups = rpc.topics, rpc.groups  # bound, not run yet
start = threading.Barrier(8)
seen = []

def use(module, name):
    start.wait()
    seen.append(getattr(module, name).code)

asks = [(topics, "GET_TOPIC_CONFIG"), (groups, "DELETE_SUBSCRIPTIONGROUP")] * 4
threads = [threading.Thread(target=use, args=ask) for ask in asks]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(sorted(seen))
"""


def test_threads_racing_to_a_request_declaration_module_all_find_its_names() -> None:
    from mqadmin.model.rpc import groups, topics

    for _ in range(3):  # a fresh interpreter each time: the modules have not run there
        done = subprocess.run(
            [sys.executable, "-c", RACE_TO_A_DECLARATION_MODULE], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0 and not done.stderr, done.stderr
        codes = sorted([topics.GET_TOPIC_CONFIG.code] * 4 + [groups.DELETE_SUBSCRIPTIONGROUP.code] * 4)
        assert done.stdout.strip() == str(codes)
