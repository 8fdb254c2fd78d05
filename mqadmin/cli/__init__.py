"""The ``mqadmin`` command line. ``run`` is the console-script entry point."""

from __future__ import annotations

import gc
import os
import sys


def run() -> None:
    """Run mqadmin; Ctrl-C at any moment (even while modules load) exits 130 with no traceback, and a
    closed output pipe (``mqadmin topicList | head -1``) exits 141 quietly."""
    gc.disable()  # until the command starts (resume_gc): start-up only creates objects that live until exit
    try:
        from mqadmin.cli.main import main

        code = main()
        sys.stdout.flush()
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        code = 130
    except BrokenPipeError:
        code = 141
    if code == 141:
        # Further writes (and the interpreter's final flush) must not raise again on the closed pipe.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    sys.exit(code)


def resume_gc() -> None:
    """Turn the garbage collector back on as a command starts. What start-up created (modules, classes, the
    click commands) lives until exit: ``gc.freeze`` keeps later collections from walking it again. The 30-50
    collections of start-up freed a few hundred objects and cost 5-10% of a one-request command's CPU."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()
