"""Ctrl-C in a bulk command (apply, updateTopicList, exportMetadata, consumeMessage): the first one stops
sending (what is in flight runs to its end, each request within --timeout) so the command can say what was
done, what was not and how to go on, then exit 130; a second one quits at once."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mqadmin.cli.errors import CliError, ExitCode


class Interruption:
    """Whether the first Ctrl-C came (``requested``)."""

    def __init__(self) -> None:
        self.requested = False


@contextmanager
def stop_on_ctrl_c(what: str) -> Iterator[Interruption]:
    """Inside, the first Ctrl-C stops sending (``mqadmin.transport.stop``) and says so on stderr; the handler
    that was there before is back for the second one and after the block."""
    from mqadmin.transport.stop import resume_sending, stop_sending

    state = Interruption()
    # Only the main thread gets signals; a process started to ignore Ctrl-C (`cmd &` in a script) keeps ignoring it.
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        yield state
        return
    previous = signal.getsignal(signal.SIGINT)

    def first(signum: int, frame: Any) -> None:
        state.requested = True
        stop_sending()
        signal.signal(signal.SIGINT, previous)
        sys.stderr.write(
            f"\n{what}: stopping: nothing more is sent, the requests in flight finish (each within --timeout); "
            "Ctrl-C again quits at once\n"
        )
        sys.stderr.flush()

    signal.signal(signal.SIGINT, first)
    try:
        yield state
    finally:
        signal.signal(signal.SIGINT, previous)
        resume_sending()


def interrupted(message: str, hint: str) -> CliError:
    """The error a command ends with after reporting what an interruption left undone (exit 130)."""
    return CliError(message, hint, ExitCode.INTERRUPTED)
