"""The ``mqadmin`` script (``mqadmin.cli.console``) leaves without the interpreter's teardown, but a user sees the
same exit codes and output as before: everything written reaches the pipe, ``atexit`` handlers run, and the
ordinary teardown is kept when a thread is still running or a profiler wants to print its results."""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = """
import atexit, os, sys
from mqadmin.cli import console

class TornDown:
    def __del__(self, write=os.write):
        write(2, b"TORN-DOWN")

kept = TornDown()  # freed by the interpreter's teardown (when no command ran: a command freezes what start-up built)
atexit.register(lambda: sys.stdout.write("ATEXIT " + "x" * 200_000 + "\\n"))  # more than a pipe holds
{extra}
sys.argv = ["mqadmin", *sys.argv[1:]]
console()
"""


def script(*args: str, extra: str = "", **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT.format(extra=extra), *args], capture_output=True, text=True, timeout=120, **kw
    )


def test_the_script_skips_teardown_yet_runs_atexit_handlers_and_flushes_everything() -> None:
    done = script("--version")
    assert done.returncode == 0
    assert done.stdout.startswith("mqadmin ")
    assert done.stdout.endswith("ATEXIT " + "x" * 200_000 + "\n")  # written by a handler, complete
    assert "TORN-DOWN" not in done.stderr


def test_exit_codes_and_one_line_errors_are_unchanged() -> None:
    usage = script("topicList", "--no-such-option")
    assert usage.returncode == 2
    assert usage.stderr.startswith("mqadmin: error: No such option: --no-such-option")
    unreachable = script("topicList", "-n", "127.0.0.1:1", "--timeout", "5")
    assert unreachable.returncode == 4
    assert unreachable.stderr.startswith("mqadmin: error: no name server answered")
    assert "Traceback" not in usage.stderr + unreachable.stderr


def test_a_running_thread_keeps_the_ordinary_exit_which_waits_for_it() -> None:
    # The thread finishes only when the test writes to stdin, after the command's output has arrived.
    waits = "import threading; threading.Thread(target=lambda: print('THREAD-DONE ' + sys.stdin.read())).start()"
    p = subprocess.Popen(
        [sys.executable, "-c", SCRIPT.format(extra=waits), "--version"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert p.stdout.readline().startswith("mqadmin ")
    out, err = p.communicate("go", timeout=120)
    assert p.returncode == 0
    assert "THREAD-DONE go" in out  # the process waited for the thread
    assert "Traceback" not in err


def test_a_profiler_still_prints_its_results() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cProfile", "-m", "mqadmin", "help", "topicList"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0
    assert "Usage: mqadmin topicList" in done.stdout
    assert "function calls" in done.stdout  # cProfile's report, printed after the script returns


def test_a_closed_stderr_does_not_change_the_exit_code() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mqadmin", "--version"],
        stdout=subprocess.PIPE,
        text=True,
        timeout=120,
        preexec_fn=lambda: os.close(2),  # started as `mqadmin --version 2>&-`: sys.stderr is None
    )
    assert done.returncode == 0
    assert done.stdout.startswith("mqadmin ")
