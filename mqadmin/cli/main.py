"""Run a command line: the fast parser when it is sure of it, Typer otherwise; every failure becomes a
one-line error and an exit code."""

from __future__ import annotations

import sys

from mqadmin.cli.errors import CliError, Exit, ExitCode, exit_code
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

            return typer_app.run(args)
        return exit_code(call())
    except CliError as e:
        report(e.message, e.hint)
        return int(e.code)
    except Exit as e:
        return int(e.code)
    except (KeyboardInterrupt, BrokenPipeError):
        raise
    except EOFError:  # end of input where a command reads it: as Typer (click) ends then, so the fast path does
        sys.stderr.write("\n")
        return int(ExitCode.INTERRUPTED)
    except Exception as e:
        report(f"{type(e).__name__}: {e}", "run again with --debug for the traceback")
        return int(ExitCode.FAILURE)


def report(message: str, hint: str | None) -> None:
    """``mqadmin: error: MESSAGE`` and ``  hint: HINT`` on stderr (and the traceback with --debug)."""
    from mqadmin.cli.render import escape

    if debug_enabled() and sys.exc_info()[0] is not None:
        import traceback

        traceback.print_exc()
    lines = escape(message).splitlines() or [""]
    sys.stderr.write(f"mqadmin: error: {lines[0]}\n")
    if hint:
        sys.stderr.write(f"  hint: {escape(hint)}\n")
