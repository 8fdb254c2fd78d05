"""The console script pauses garbage collection while it starts (``mqadmin.cli.run``); every command must turn it
back on, or a long-running one (``dev up``'s servers, a large ``consumerProgress``) would never collect."""

from __future__ import annotations

import gc
import subprocess
import sys

from mqadmin.cli.main import main

REPORT_GC_AT_EXIT = """
import atexit, gc, sys
atexit.register(lambda: sys.stderr.write(f"GC-ENABLED={gc.isenabled()}\\n"))
from mqadmin.cli import run
sys.argv = ["mqadmin", *sys.argv[1:]]
run()
"""


def test_a_command_runs_with_the_collector_on_after_a_paused_start(capsys) -> None:
    gc.disable()  # as run() leaves it
    try:
        assert main(["help", "topicList"]) == 0
        assert gc.isenabled()
    finally:
        gc.enable()
    assert "topicList" in capsys.readouterr().out


def test_the_console_script_pauses_collection_only_until_the_command_starts() -> None:
    ran = subprocess.run([sys.executable, "-c", REPORT_GC_AT_EXIT, "help", "topicList"], capture_output=True, text=True)
    assert ran.returncode == 0 and "GC-ENABLED=True" in ran.stderr
    helped = subprocess.run([sys.executable, "-c", REPORT_GC_AT_EXIT, "--help"], capture_output=True, text=True)
    assert helped.returncode == 0 and "GC-ENABLED=False" in helped.stderr  # the root help runs no command
