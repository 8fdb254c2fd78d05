"""Exit codes and the one-line error every command failure becomes."""

from __future__ import annotations

from enum import IntEnum
from typing import Any


class ExitCode(IntEnum):
    OK = 0
    FAILURE = 1
    USAGE = 2
    PARTIAL = 3
    NAMESRV_UNREACHABLE = 4
    AUTH = 5
    CHANGES_PENDING = 6
    TIMED_OUT = 7
    DOCTOR_WARNING = 8
    DOCTOR_CRITICAL = 9
    INTERRUPTED = 130
    BROKEN_PIPE = 141


EXIT_CODES: dict[ExitCode, str] = {
    ExitCode.OK: "Success: every target was done (created, updated, unchanged, deleted, ...).",
    ExitCode.FAILURE: (
        "Failure: a server answered with an error, a broker could not be reached, or every target of a fan-out failed."
    ),
    ExitCode.USAGE: (
        "Usage error: a bad option or value, no name server address, an unknown cluster or a slave address. "
        "Nothing was changed."
    ),
    ExitCode.PARTIAL: "Partial failure: some targets of a fan-out failed and the others are done.",
    ExitCode.NAMESRV_UNREACHABLE: (
        "No name server answered (every address refused, timed out or closed), or the address server giving "
        "their list could not be reached."
    ),
    ExitCode.AUTH: (
        "Refused by authentication or authorization: the broker did not accept the credentials (wrong key, "
        "unknown or disabled user, no credentials where they are required) or the user lacks the permission."
    ),
    ExitCode.CHANGES_PENDING: "plan: the clusters differ from the topology file (changes pending).",
    ExitCode.TIMED_OUT: "wait: the condition was not met within --timeout.",
    ExitCode.DOCTOR_WARNING: "doctor: the worst finding is of medium severity.",
    ExitCode.DOCTOR_CRITICAL: "doctor: at least one finding is of high severity.",
    ExitCode.INTERRUPTED: "Interrupted (Ctrl-C).",
    ExitCode.BROKEN_PIPE: "The reader of the output went away (for example `| head -1`); nothing is printed.",
}
"""What each exit code means; the man page and docs/cli.md show this table."""


class CliError(Exception):
    """A failure to report as ``mqadmin: error: <message>`` plus an optional hint line."""

    def __init__(self, message: str, hint: str | None = None, code: ExitCode = ExitCode.FAILURE) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.code = code


class Exit(Exception):
    """Leave with ``code`` and nothing more printed (``plan``'s 6 while changes are pending, ``doctor``'s findings)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def exit_code(result: Any) -> int:
    """A command's exit code from what its function returned (nothing: 0)."""
    return result if isinstance(result, int) else 0


def usage_error(message: str, hint: str | None = None) -> CliError:
    return CliError(message, hint, ExitCode.USAGE)
