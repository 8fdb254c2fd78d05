"""Run a command line: the fast parser when it is sure of it, Typer otherwise; every failure becomes a
one-line error and an exit code (under ``--format json``, one JSON error document on stderr instead:
``mqadmin.cli.errors.error_document``)."""

from __future__ import annotations

import sys

from mqadmin.cli.errors import CliError, Exit, ExitCode, error_document, exit_code
from mqadmin.cli.options import debug_enabled


def main(argv: list[str] | None = None) -> int:
    """Run ``mqadmin ARGV`` (``sys.argv[1:]`` by default) and return the exit code."""
    from mqadmin.cli.fast_parse import parse_command_line
    from mqadmin.cli.options import reset_globals

    reset_globals()
    args = sys.argv[1:] if argv is None else argv
    try:
        call = parse_command_line(args)
        if call is None:
            from mqadmin.cli import typer_app

            code = typer_app.run(args)
        else:
            code = exit_code(call())
        _write_documents()
        return code
    except CliError as e:
        if e.code in OUTCOMES:
            _write_documents()
        report(e.message, e.hint, e.code, args)
        return int(e.code)
    except Exit as e:
        _write_documents()
        return int(e.code)
    except (KeyboardInterrupt, BrokenPipeError):
        raise
    except EOFError:  # end of input where a command reads it: as Typer (click) ends then, so the fast path does
        report_interrupt(args, "end of input")
        return int(ExitCode.INTERRUPTED)
    except Exception as e:
        report(f"{type(e).__name__}: {e}", "run again with --debug for the traceback", ExitCode.FAILURE, args)
        return int(ExitCode.FAILURE)


OUTCOMES = (ExitCode.PARTIAL, ExitCode.TIMED_OUT)
"""Failures whose document still goes to stdout: it is the answer (each target's result, each condition's state),
the error only sums it up. Any other failure prints nothing on stdout."""


def _write_documents() -> None:
    render = sys.modules.get("mqadmin.cli.render")  # not imported: nothing was held
    if render is not None:
        render.write_documents()


def report(message: str, hint: str | None, code: int = ExitCode.FAILURE, args: list[str] | None = None) -> None:
    """``mqadmin: error: MESSAGE`` and ``  hint: HINT`` on stderr (and the traceback with --debug); under
    ``--format json`` the error document instead, on one line, holding the command's document when it had
    printed one before failing."""
    from mqadmin.cli.render import escape, take_documents

    if debug_enabled() and sys.exc_info()[0] is not None:
        import traceback

        traceback.print_exc()
    held = take_documents()
    if json_errors(sys.argv[1:] if args is None else args):
        import json

        document = held[0] if len(held) == 1 else (held or None)
        line = json.dumps(error_document(message, hint, code, document), ensure_ascii=False)
        sys.stderr.write(line + "\n")
        return
    lines = escape(message).splitlines() or [""]
    sys.stderr.write(f"mqadmin: error: {lines[0]}\n")
    if hint:
        sys.stderr.write(f"  hint: {escape(hint)}\n")


def report_interrupt(args: list[str], what: str = "interrupted (Ctrl-C)") -> None:
    """Ctrl-C (or the end of input) where no command reported it itself: a new line ending the ``^C``, or the
    error document under ``--format json``."""
    if json_errors(args):
        report(what, None, ExitCode.INTERRUPTED, args)
    else:
        sys.stderr.write("\n")


def json_errors(args: list[str]) -> bool:
    """Whether errors are JSON: ``--format json`` on the command line (read from ``args`` too, for a line that
    failed before its options were parsed), else MQADMIN_FORMAT or the profile's format."""
    given = [a.partition("=")[2] for a in args if a.startswith("--format=")]
    given += [args[i + 1] for i, a in enumerate(args[:-1]) if a == "--format"]
    if given:
        return given[-1] == "json"
    from mqadmin.cli.options import OutputFormat
    from mqadmin.cli.settings import output_format

    try:
        return output_format() == OutputFormat.json
    except Exception:  # a broken setting is reported as itself: its error is not JSON
        return False
