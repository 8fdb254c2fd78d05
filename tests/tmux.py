"""A program run in a real terminal, as a person sees it: a tmux session of its own (its own server socket),
read with ``capture-pane``, typed into with ``send-keys``. Used by the tests of ``mqadmin top``."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import pytest

from tests.conftest import wait_until

T = TypeVar("T")


class Terminal:
    def __init__(self, args: Sequence[str], workdir: Path, *, width: int = 200, height: int = 50) -> None:
        if shutil.which("tmux") is None:
            pytest.skip("tmux is not installed (.ci/run installs it)")
        self.socket = f"mqadmin-test-{uuid.uuid4().hex[:10]}"
        self.exit_file = workdir / f"{self.socket}.exit"
        command = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "mqadmin", *args])
        script = f"{command}; echo $? > {shlex.quote(str(self.exit_file))}"
        skip = (
            "NAMESRV_ADDR",
            "NO_COLOR",
            "TMUX",
            "COLUMNS",
            "LINES",
        )  # the size is the terminal's (pytest sets COLUMNS)
        env = {k: v for k, v in os.environ.items() if k not in skip}
        self._tmux("new-session", "-d", "-x", str(width), "-y", str(height), "sh", "-c", script, env=env)

    def _tmux(self, *args: str, env: dict[str, str] | None = None) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30, env=env, check=False
        )
        return done.stdout

    def screen(self, *, colours: bool = False) -> str:
        """What the terminal shows; with ``colours``, with the escape sequences of its colours."""
        return self._tmux("capture-pane", "-p", *(["-e"] if colours else []))

    def wait_for(self, *texts: str, absent: Sequence[str] = (), timeout: float = 120) -> str:
        """The screen once it shows every one of ``texts`` and none of ``absent``."""
        return self._wait(
            lambda s: s if all(t in s for t in texts) and not any(t in s for t in absent) else None,
            f"the terminal to show {texts} (and not {tuple(absent)})",
            timeout,
        )

    def wait_for_row(self, first: str, timeout: float = 120) -> list[str]:
        """The cells (split on blanks) of the first line of the screen whose first cell is ``first``, once there
        is one (a name can be on the screen before its row, in a title or a filter line)."""
        return self._wait(
            lambda s: next((line.split() for line in s.splitlines() if line.split()[:1] == [first]), None),
            f"a row of {first!r} on the terminal",
            timeout,
        )

    def _wait(self, found: Callable[[str], T | None], what: str, timeout: float) -> T:
        """``found(screen)`` once it is not None; on timeout the error shows the last screen."""
        last = [""]

        def look() -> T | None:
            last[0] = self.screen()
            return found(last[0])

        try:
            return wait_until(look, timeout, 0.1, what)
        except AssertionError as e:
            raise AssertionError(f"{e}; the screen:\n{last[0]}") from None

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", *keys)

    def exit_code(self, timeout: float = 60) -> int:
        text = wait_until(
            lambda: self.exit_file.read_text().strip() if self.exit_file.exists() else None, timeout, 0.1, "exit"
        )
        return int(text)

    def close(self) -> None:
        self._tmux("kill-server")
