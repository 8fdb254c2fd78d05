"""Running a command's coroutines side by side, with or without an event loop.

Under asyncio (``TcpTransport``) ``gather`` is ``asyncio.gather``. A command run without an event loop (over
``BlockingTransport``: ``run_to_end`` drives it) has coroutines that never suspend, since each request waits on
its own socket: ``gather`` then runs each to its end on a thread of its own, so requests to several servers
still overlap (a blocking socket releases the GIL while it waits) and a fan-out command need not import asyncio,
which with ssl, concurrent.futures and logging costs a multi-broker command about a quarter of its run.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class SuspendedWithoutLoop(RuntimeError):
    """A coroutine run without an event loop awaited something that needs one (a sleep, a lock, a timeout
    of asyncio's): a programming error."""


def run_to_end(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never suspends (it reaches the network only through ``BlockingTransport``) to its
    end. One that suspends is closed where it stands (its ``finally`` blocks run; nothing is run or sent
    again) and ``SuspendedWithoutLoop`` is raised."""
    try:
        awaited = coro.send(None)
    except StopIteration as done:
        result: T = done.value
        return result
    coro.close()
    raise SuspendedWithoutLoop(
        f"internal error: a command run without an event loop awaited {awaited!r}, which needs one "
        "(a sleep, a semaphore or a timeout of asyncio's): it must not be run with blocking=True"
    )


def in_event_loop() -> bool:
    """Whether the caller runs in an asyncio event loop (asyncio is not imported to find out)."""
    aio = sys.modules.get("asyncio")
    return aio is not None and aio._get_running_loop() is not None


async def gather(*aws: Awaitable[Any], return_exceptions: bool = False) -> list[Any]:
    """``asyncio.gather`` in an event loop. Without one, each coroutine runs on its own thread and every one
    is waited for; an exception is then raised (the first in argument order) only once all have ended, or,
    with ``return_exceptions``, returned in its place as ``asyncio.gather`` does. A lone awaitable is awaited
    here, with or without a loop: nothing runs beside it (a ``-b`` command's single target)."""
    if len(aws) == 1:
        try:
            return [await aws[0]]
        except Exception as e:
            if not return_exceptions:
                raise
            return [e]
    if in_event_loop():
        import asyncio

        return list(await asyncio.gather(*aws, return_exceptions=return_exceptions))
    outcomes = _on_threads(list(aws))
    if not return_exceptions:
        for out in outcomes:
            if isinstance(out, BaseException):
                raise out
    return outcomes


def _on_threads(aws: list[Any]) -> list[Any]:
    """Each coroutine's value or exception, each run to its end on a thread of its own. They are daemon
    threads, and this thread only waits for them, so Ctrl-C ends the command at once."""
    import threading

    outcomes: list[Any] = [None] * len(aws)

    def run(i: int) -> None:
        try:
            outcomes[i] = run_to_end(aws[i])
        except BaseException as e:  # handed to the caller, as asyncio.gather does
            outcomes[i] = e

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(aws))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes
