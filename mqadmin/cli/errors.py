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
        "Failure: a server answered with an error (e.g. `TOPIC_NOT_EXIST (17)`), a broker could not be reached, or "
        "every target of a fan-out failed; `plan`: a cluster or broker could not be read."
    ),
    ExitCode.USAGE: (
        "Usage error: a bad option or value, an unknown command, no name server address (`pass -n host:9876 or set "
        "NAMESRV_ADDR`), an unknown cluster, a slave address given to `-b` where a master is needed, a name server "
        "given to `-b`. Nothing was changed."
    ),
    ExitCode.PARTIAL: (
        "Partial failure: some targets of a fan-out failed and the others are done. The output lists each target; "
        "run the same command again once the failed brokers are back (done brokers then report `unchanged`)."
    ),
    ExitCode.NAMESRV_UNREACHABLE: (
        "No name server answered (every address refused, timed out, closed the connection or sent something "
        "unreadable), or the address server giving their list could not be reached."
    ),
    ExitCode.AUTH: (
        "Refused by authentication or authorization: the broker did not accept the credentials (`check signature "
        "failed`, an unknown or disabled user, no credentials where it requires them) or the user lacks the "
        "permission. The hint names the access key used and where it came from. In a fan-out: every target refused."
    ),
    ExitCode.CHANGES_PENDING: "`plan`: the clusters differ from the topology file (changes pending).",
    ExitCode.TIMED_OUT: "`wait`: the conditions were not met within `--timeout`.",
    ExitCode.DOCTOR_WARNING: (
        "`doctor`: the worst finding is of medium severity (`doctor --format nagios` exits with Nagios's codes "
        "instead: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN when the cluster could not be read)."
    ),
    ExitCode.DOCTOR_CRITICAL: "`doctor`: at least one finding is of high severity (`--format nagios`: 2).",
    ExitCode.INTERRUPTED: (
        "Interrupted (Ctrl-C), at any moment; no traceback. `apply`, `updateTopicList`, `exportMetadata` and "
        "`consumeMessage` (without `-f`) stop sending, let what is in flight finish, then say what was done, what "
        "was not and how to go on; a second Ctrl-C quits at once."
    ),
    ExitCode.BROKEN_PIPE: (
        "The reader of the output went away (`mqadmin topicList | head -1`); nothing more is printed."
    ),
}
"""What each exit code means: the one list, which the man page, README.md and docs/cli.md show
(``python -m mqadmin.cli.generate`` writes their tables)."""


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


def error_document(message: str, hint: str | None, code: int, document: Any = None) -> dict[str, Any]:
    """What a failure prints on stderr under ``--format json``, on one line (docs/cli.md, "Errors"):
    ``{"error": {"code": "NAMESRV_UNREACHABLE", "exitCode": 4, "message": "...", "hint": "..." | null},
    "document": null}``. ``code`` is the exit code's name in ``ExitCode``, ``message`` and ``hint`` the lines a
    person sees; ``document`` is what the command had printed before it failed (each target's result of a
    fan-out where every target failed), which then is not on stdout."""
    name = ExitCode(code).name if code in set(ExitCode) else "FAILURE"
    return {"error": {"code": name, "exitCode": int(code), "message": message, "hint": hint}, "document": document}


def exit_code(result: Any) -> int:
    """A command's exit code from what its function returned (nothing: 0)."""
    return result if isinstance(result, int) else 0


def usage_error(message: str, hint: str | None = None) -> CliError:
    return CliError(message, hint, ExitCode.USAGE)
