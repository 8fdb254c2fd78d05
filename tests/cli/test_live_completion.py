"""Live completion of -t, -g, -c and -b from a real cluster: bash driven in a pseudo-terminal with the committed
completion script, and the zsh and fish protocols (their shells are not installed here) run as those scripts run
them."""

from __future__ import annotations

import os
import pty
import select
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Deadline
from tests.devprocs import EmbeddedCluster

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
TOPIC = "CompletionTopicXyz"
GROUP = "CompletionGroupXyz"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedCluster]:
    with EmbeddedCluster(tmp_path_factory.mktemp("completion")) as c:
        ns = ["-n", c.namesrv_addr]
        for args in (["updateTopic", "-c", c.cluster, "-t", TOPIC], ["updateSubGroup", "-c", c.cluster, "-g", GROUP]):
            done = subprocess.run([sys.executable, "-m", "mqadmin", *args, *ns], capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
        yield c


def env(tmp_path: Path, **extra: str) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if k not in ("NAMESRV_ADDR", "MQADMIN_PROFILE")}
    out.update(PATH=f"{BIN}{os.pathsep}{out.get('PATH', '')}", XDG_CACHE_HOME=str(tmp_path / "cache"), **extra)
    return out


def complete(shell: str, words: str, tmp_path: Path, **extra: str) -> str:
    """What ``mqadmin`` answers to ``shell``'s completion request for the line ``words`` (cursor at its end)."""
    env_vars = env(tmp_path, _MQADMIN_COMPLETE=f"complete_{shell}", **extra)
    if shell == "bash":
        parts = words.split(" ")
        env_vars.update(COMP_WORDS=words, COMP_CWORD=str(len(parts) - 1))
    else:
        env_vars.update(_TYPER_COMPLETE_ARGS=words, _TYPER_COMPLETE_FISH_ACTION="get-args")
    done = subprocess.run([str(BIN / "mqadmin")], env=env_vars, capture_output=True, text=True, timeout=60)
    assert done.stderr == "", done.stderr
    return done.stdout.strip()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completes_live_topic_group_cluster_and_broker_names(cluster: EmbeddedCluster, tmp_path: Path) -> None:
    pid, fd = pty.fork()
    if pid == 0:  # the child: an interactive bash with nothing of the user's
        shell_env = env(tmp_path, PS1="$ ", TERM="dumb", NAMESRV_ADDR=cluster.namesrv_addr)
        os.execvpe("bash", ["bash", "--norc", "--noprofile", "-i"], shell_env)
    screen = b""

    def read_until(text: str) -> None:
        nonlocal screen
        deadline = Deadline(60, f"{text!r} on the terminal")
        while text.encode() not in screen:
            if deadline.expired():
                raise AssertionError(f"{deadline.fail()}; the terminal shows: {screen.decode(errors='replace')}")
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                screen += os.read(fd, 4096)

    try:
        os.write(fd, f"source {REPO / 'completions' / 'mqadmin.bash'}; echo so''urced\n".encode())
        read_until("\nsourced")
        # The cluster of NAMESRV_ADDR (or the profile): bash splits an -n host:port on the line at the ':'.
        for typed, expected in (
            ("mqadmin topicRoute -t CompletionT", TOPIC),
            ("mqadmin getConsumerConfig -g CompletionG", GROUP),
            ("mqadmin updateTopic -c DefaultClu", "DefaultCluster"),
            ("mqadmin addWritePerm -b broker-", "broker-a"),
        ):
            screen = b""
            os.write(fd, typed.encode() + b"\t\t")
            read_until(expected)
            os.write(fd, b"\x15")  # Ctrl-U: clear the line
    finally:
        os.write(fd, b"exit\n")
        os.close(fd)
        os.kill(pid, 9)
        os.waitpid(pid, 0)


def test_zsh_and_fish_protocols_and_the_cache(cluster: EmbeddedCluster, tmp_path: Path) -> None:
    ns = cluster.namesrv_addr
    assert TOPIC in complete("zsh", f"mqadmin topicRoute -n {ns} -t Completion", tmp_path)
    assert GROUP in complete("fish", f"mqadmin getConsumerConfig -n {ns} -g Completion", tmp_path)
    cached = sorted(p.read_text() for p in (tmp_path / "cache" / "mqadmin" / "completion").glob("*.json"))
    assert len(cached) == 2 and any(TOPIC in c for c in cached) and any(GROUP in c for c in cached)


def test_nothing_and_no_noise_when_the_cluster_cannot_be_asked(tmp_path: Path) -> None:
    assert complete("bash", "mqadmin topicRoute -n 127.0.0.1:1 -t Any", tmp_path) == ""
    assert complete("bash", "mqadmin topicRoute -t Any", tmp_path) == ""  # no name server at all
    assert complete("bash", "mqadmin topicRoute -t Any", tmp_path, MQADMIN_PROFILE="missing") == ""
