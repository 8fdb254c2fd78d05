"""Exit codes and the one-line error every command failure becomes."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    FAILURE = 1
    USAGE = 2
    PARTIAL = 3
    NAMESRV_UNREACHABLE = 4
    INTERRUPTED = 130


class CliError(Exception):
    """A failure to report as ``mqadmin: error: <message>`` plus an optional hint line."""

    def __init__(self, message: str, hint: str | None = None, code: ExitCode = ExitCode.FAILURE) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.code = code


def usage_error(message: str, hint: str | None = None) -> CliError:
    return CliError(message, hint, ExitCode.USAGE)
