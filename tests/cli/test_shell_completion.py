"""Shell completion as a person sees it: bash, zsh and fish, each with the script ``mqadmin --install-completion
SHELL`` installed into a fresh HOME, run interactively in tmux; keys are typed only once the prompt shows, and
each Tab's result is read off the screen."""

from __future__ import annotations

import itertools
import os
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.cli.test_live_completion import BIN, GROUP, TOPIC, cluster, shell_env  # noqa: F401 (fixture)
from tests.devprocs import EmbeddedCluster

PROMPT = "MQPROMPT> "
DEADLINE = 30.0
RC = {
    "bash": (".bashrc", f"PS1='{PROMPT}'\n"),
    "zsh": (".zshrc", f"PROMPT='{PROMPT}'\nunsetopt beep\n"),
    "fish": (".config/fish/config.fish", f"set -g fish_greeting ''\nfunction fish_prompt; printf '{PROMPT}'; end\n"),
}
_sockets = itertools.count()


class Terminal:
    """An interactive shell in a detached tmux session on its own server socket."""

    def __init__(self, shell: str, home: Path, cwd: Path) -> None:
        self.socket = f"mqadmin-test-{os.getpid()}-{next(_sockets)}"
        self.env = shell_env(home)
        self.env.pop("TMUX", None)
        self.tmux("new-session", "-d", "-x", "200", "-y", "50", "-c", str(cwd), f"{shell} -i")

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], env=self.env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def screen(self) -> list[str]:
        return [line.rstrip() for line in self.tmux("capture-pane", "-p").splitlines()]

    def wait(self, what: str, ready: Callable[[list[str]], bool]) -> list[str]:
        end = time.monotonic() + DEADLINE
        while True:
            lines = self.screen()
            if ready(lines):
                return lines
            assert time.monotonic() < end, f"no {what} within {DEADLINE}s; the screen:\n" + "\n".join(lines)

    def line(self) -> str:
        """The last line that starts with the prompt: what is being typed."""
        return [line for line in self.screen() if line.startswith(PROMPT.rstrip())][-1]

    def type_after_prompt(self, text: str) -> None:
        self.wait("prompt", lambda lines: [line for line in lines if line][-1:] == [PROMPT.rstrip()])
        self.tmux("send-keys", "-l", text)
        self.wait(f"echo of {text!r}", lambda lines: any(line.endswith(text.rstrip()) for line in lines))

    def wait_for(self, expected: str) -> str:
        """The line being typed, once ``expected`` shows on it."""
        self.wait(repr(expected), lambda lines: any(expected in line for line in lines if line.startswith(PROMPT[0])))
        return self.line()

    def tab_until(self, expected: str) -> str:
        self.tmux("send-keys", "Tab")
        return self.wait_for(expected)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], env=self.env, capture_output=True)


@pytest.fixture(params=["bash", "zsh", "fish"])
def terminal(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Terminal]:
    shell = request.param
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    home.mkdir()
    cwd.mkdir()
    (cwd / "zzfile").write_text("")
    install = [str(BIN / "mqadmin"), "--install-completion", shell]
    done = subprocess.run(install, env=shell_env(home), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    rc, settings = RC[shell]
    (home / rc).parent.mkdir(parents=True, exist_ok=True)
    with (home / rc).open("a") as f:
        f.write(settings)
    term = Terminal(shell, home, cwd)
    try:
        yield term
    finally:
        term.close()


def test_topic_names_come_from_the_cluster(terminal: Terminal, cluster: EmbeddedCluster) -> None:  # noqa: F811
    terminal.type_after_prompt(f"mqadmin topicRoute -n {cluster.namesrv_addr} -t Pay")
    assert terminal.tab_until(f"-t {TOPIC}").endswith(f"-t {TOPIC}")


def test_group_names_come_from_the_cluster(terminal: Terminal, cluster: EmbeddedCluster) -> None:  # noqa: F811
    terminal.type_after_prompt(f"mqadmin consumerProgress -n {cluster.namesrv_addr} -g PayG")
    assert terminal.tab_until(f"-g {GROUP}").endswith(f"-g {GROUP}")


def test_command_names_complete(terminal: Terminal) -> None:
    terminal.type_after_prompt("mqadmin updateTo")
    assert "mqadmin updateTopic" in terminal.tab_until("mqadmin updateTopic")


def test_no_file_names_when_the_name_server_is_down(terminal: Terminal) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]  # bound, never listening: connections are refused
        terminal.type_after_prompt(f"mqadmin topicRoute -n 127.0.0.1:{closed} -t zz")
        # the shell handles keys in order: once the marker typed after Tab shows, the Tab's work is on screen
        terminal.tmux("send-keys", "Tab")
        terminal.tmux("send-keys", "-l", "@END")
        line = terminal.wait_for("@END")
    assert line.endswith(" -t zz@END"), line
    assert "zzfile" not in "\n".join(terminal.screen())
