"""The ``mqadmin`` command line. ``console`` is the console-script entry point; ``run`` is the same command
line for callers that stay in the process (tests), ending with ``SystemExit``."""

from __future__ import annotations

import gc
import os
import sys
from typing import NoReturn


def run() -> NoReturn:
    """Run mqadmin; Ctrl-C at any moment (even while modules load) exits 130 with no traceback, and a
    closed output pipe (``mqadmin topicList | head -1``) exits 141 quietly."""
    gc.disable()  # until the command starts (resume_gc): start-up only creates objects that live until exit
    try:
        if "_MQADMIN_COMPLETE" in os.environ:  # a Tab in a shell (mqadmin.cli.complete): no Typer, no click
            from mqadmin.cli.complete import main
        elif sys.argv[1:2] in (["--install-completion"], ["--show-completion"]) and len(sys.argv) <= 3:
            from mqadmin.cli.complete import install as main
        else:
            from mqadmin.cli.main import main

        code = main()
        sys.stdout.flush()
    except KeyboardInterrupt:
        code = 130
        try:
            from mqadmin.cli.main import report_interrupt

            report_interrupt(sys.argv[1:])
        except KeyboardInterrupt:  # a second Ctrl-C while reporting: quit at once
            pass
    except BrokenPipeError:
        code = 141
    if code == 141:
        # Further writes (and the interpreter's final flush) must not raise again on the closed pipe.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    sys.exit(code)


def console() -> NoReturn:
    """The ``mqadmin`` script: ``run``, then leave without tearing the interpreter down (see ``exit_now``)."""
    try:
        run()
    except SystemExit as e:
        exit_now(e)


def exit_now(e: SystemExit) -> NoReturn:
    """Leave with ``e``'s exit code, skipping the interpreter's teardown: freeing every module and object one by
    one (and the collections it runs) was about 5% of a one-request command's CPU, and the process ends anyway.
    What teardown would do that a user can notice is done first: the output is flushed and the ``atexit``
    handlers run (logging's flush, temporary directories' cleanup). Teardown is kept whenever something else
    may need it: another thread still running (the interpreter joins it), a tracer or profiler (coverage and
    cProfile write their results at the end), or an exit code that is not a number (printed to stderr)."""
    code = e.code
    threading = sys.modules.get("threading")
    if (
        not isinstance(code, int | None)
        or (threading is not None and threading.active_count() > 1)
        or sys.gettrace() is not None
        or sys.getprofile() is not None
    ):
        raise e
    import atexit
    import contextlib

    try:
        _flush()
    except OSError:  # a closed pipe: leave it to the interpreter's teardown, which reports it as it always has
        raise e from None
    atexit._run_exitfuncs()  # what the interpreter itself calls at exit
    with contextlib.suppress(OSError):
        _flush()  # what the handlers wrote
    os._exit(code or 0)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:  # None when the process was started with that descriptor closed
            stream.flush()


def resume_gc() -> None:
    """Turn the garbage collector back on as a command starts. What start-up created (modules, classes, the
    click commands) lives until exit: ``gc.freeze`` keeps later collections from walking it again. The 30-50
    collections of start-up freed a few hundred objects and cost 5-10% of a one-request command's CPU."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()
