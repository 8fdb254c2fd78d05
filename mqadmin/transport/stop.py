"""Stopping cleanly: after ``stop_sending()`` (the CLI calls it at the first Ctrl-C of a bulk command) every
request not yet sent fails at once with ``Interrupted``, while the requests already sent run to their end
(each within its timeout). Process-wide, as the signal that sets it."""

from __future__ import annotations

from mqadmin.transport.errors import Interrupted

_stopped = False


def stop_sending() -> None:
    global _stopped
    _stopped = True


def resume_sending() -> None:
    global _stopped
    _stopped = False


def sending_stopped() -> bool:
    return _stopped


def check_sending(addr: str) -> None:
    """Raise ``Interrupted`` for a request to ``addr`` once sending has stopped."""
    if _stopped:
        raise Interrupted(addr)
