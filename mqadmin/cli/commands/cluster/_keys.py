"""Single key presses from a terminal, read in asyncio's loop (cbreak mode: no Enter needed, no echo)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio


@contextlib.contextmanager
def key_presses(loop: asyncio.AbstractEventLoop, on_key: Callable[[str], None]) -> Iterator[bool]:
    """Pass each key typed on stdin to ``on_key`` while inside; the terminal's mode is restored on the way out.
    Yields False (and reads nothing) when stdin is not a terminal."""
    if not sys.stdin.isatty():
        yield False
        return
    import termios
    import tty

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd)

    def readable() -> None:
        for ch in os.read(fd, 64).decode(errors="replace"):
            on_key(ch)

    loop.add_reader(fd, readable)
    try:
        yield True
    finally:
        loop.remove_reader(fd)
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
