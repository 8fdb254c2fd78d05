"""The docs run as written: every shell block of README.md and docs/*.md is run by bash against an embedded
cluster, and the README's and docs/cli.md's exit-code tables are the code's one list.

What the fence's info string says (after the language, words read by this test and ignored by renderers):

* ```` ```sh ```` (or ``bash``): run. Each command must exit 0, or one of the codes its comment names
  (``# exit 0: no changes, 6: changes pending``). ``127.0.0.1:9876`` stands for the test cluster's name server,
  which ``NAMESRV_ADDR`` also names.
* ```` ```console ````: a transcript; each ``$ COMMAND`` is run and must print the lines below it (spacing
  aside; the brokers' addresses as ``dev up`` gives them by default).
* ```` ```sh norun ````: not run (a production cluster, a server left running in terminal 1, the install).
* ```` ```toml file=topology.toml ````: written to that file, in the directory where the file's blocks run.
* ```` ```sh dev-up="--auth auth.toml" ````: run against a cluster of its own, ``mqadmin dev up`` with those
  options (started in that directory).

The blocks of one Markdown file run in order, in one directory, against one cluster started for that file.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from mqadmin.cli.generate import spliced_files
from tests.devprocs import start_dev

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELLS = ("sh", "bash", "console")
DOCUMENTED_NAMESRV = "127.0.0.1:9876"
DOCUMENTED_BROKERS = {"broker-a": "127.0.0.1:10911", "broker-b": "127.0.0.1:10921"}
FENCE = re.compile(r"^```(?P<lang>[\w-]*)(?P<info>[^\n]*)\n(?P<body>.*?)^```[ \t]*$", re.S | re.M)


@dataclass
class Block:
    path: Path
    line: int
    lang: str
    words: dict[str, str]
    body: str

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(path: Path) -> list[Block]:
    text = path.read_text()
    found = []
    for m in FENCE.finditer(text):
        words = {}
        for word in shlex.split(m["info"]):
            key, _, value = word.partition("=")
            words[key] = value
        found.append(Block(path, text.count("\n", 0, m.start()) + 1, m["lang"], words, m["body"]))
    return found


def commands(body: str) -> list[tuple[str, set[int]]]:
    """Each command of a block (continuation lines joined) with the exit codes its comment allows."""
    out = []
    for line in body.replace("\\\n", " ").splitlines():
        code, _, comment = _split(line)
        if not code.strip():
            continue
        allowed = {0}
        if m := re.match(r"exit (.*)", comment):
            allowed = {int(n) for n in re.findall(r"\b(\d+)\b", m[1])}
        out.append((code.strip(), allowed))
    return out


def _split(line: str) -> tuple[str, str, str]:
    """``command  # comment`` → (command, "#", comment): a comment starts the line or follows two spaces."""
    m = re.search(r"(^|\s{2,})#\s?", line)
    if m is None:
        return line, "", ""
    return line[: m.start()], "#", line[m.end() :]


def script(block: Block, namesrv: str) -> str:
    """The block as a bash script that stops at the first command exiting with a code it does not allow."""
    lines = ["set -o pipefail"]
    for n, (code, allowed) in enumerate(commands(block.body)):
        code = code.replace(DOCUMENTED_NAMESRV, namesrv)
        want = " ".join(str(c) for c in sorted(allowed))
        wrong = f'echo "command {n + 1} exited $rc, not {want}" >&2; exit 99'
        check = f'rc=$?; case " {want} " in *" $rc "*) ;; *) {wrong};; esac'
        lines += [f"echo {shlex.quote('$ ' + code)} >&2", code, check]
    return "\n".join(lines) + "\n"


class Cluster:
    """``mqadmin dev up`` on free ports in ``cwd``, with ``options``."""

    def __init__(self, cwd: Path, options: str = "") -> None:
        data = cwd / f".cluster-{len(list(cwd.glob('.cluster-*')))}"
        old = Path.cwd()
        os.chdir(cwd)  # a relative --auth FILE is read from where the docs' blocks run
        try:
            self.proc, ready = start_dev(
                "up", "--namesrv-port", "0", "--broker-port", "0", "--data-dir", str(data), *shlex.split(options)
            )
        finally:
            os.chdir(old)
        self.namesrv = ready["namesrvAddr"]
        self.brokers = {b["name"]: b["addr"] for b in ready["brokers"]}

    def stop(self) -> None:
        self.proc.stop()


def shell_env(home: Path, bin_dir: Path, namesrv: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MQADMIN_", "ROCKETMQ_"))}
    env.update(HOME=str(home), NAMESRV_ADDR=namesrv, NO_COLOR="1", PATH=f"{bin_dir}:{env.get('PATH', '')}")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def mqadmin_on_path(bin_dir: Path) -> None:
    """``mqadmin`` on PATH: this tree's, run by this interpreter."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    shim = bin_dir / "mqadmin"
    shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m mqadmin "$@"\n')
    shim.chmod(0o755)


def run_shell(block: Block, cluster: Cluster, cwd: Path, env: dict[str, str]) -> None:
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", script(block, cluster.namesrv)],
        cwd=cwd, env={**env, "NAMESRV_ADDR": cluster.namesrv}, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, f"{block} does not run as written:\n{done.stderr}\n{done.stdout}"


def run_transcript(block: Block, cluster: Cluster, cwd: Path, env: dict[str, str]) -> None:
    """Each ``$ COMMAND`` prints the lines shown below it (spacing aside)."""
    steps: list[tuple[str, list[str]]] = []
    for line in block.body.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
    assert steps, f"{block}: a console block shows no $ command"
    for command, shown in steps:
        line = command.replace(DOCUMENTED_NAMESRV, cluster.namesrv)
        done = subprocess.run(
            ["bash", "--norc", "--noprofile", "-o", "pipefail", "-c", line],
            cwd=cwd, env={**env, "NAMESRV_ADDR": cluster.namesrv}, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, f"{block}: {command} exited {done.returncode}:\n{done.stderr}"
        printed = done.stdout
        for name, addr in cluster.brokers.items():
            printed = printed.replace(addr, DOCUMENTED_BROKERS.get(name, addr))
        assert [ln.split() for ln in printed.splitlines()] == [ln.split() for ln in shown], (
            f"{block}: {command} printed\n{printed}"
        )


def runnable(doc: Path) -> list[Block]:
    return [b for b in blocks(doc) if b.lang in SHELLS and "norun" not in b.words]


@pytest.mark.parametrize("doc", [d for d in DOCS if runnable(d)], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shell_block_runs_as_written(doc: Path, tmp_path: Path) -> None:
    found = blocks(doc)
    work, home, bin_dir = tmp_path / "work", tmp_path / "home", tmp_path / "bin"
    work.mkdir()
    home.mkdir()
    mqadmin_on_path(bin_dir)
    for b in found:
        if "file" in b.words:
            (work / b.words["file"]).write_text(b.body)
    shared: Cluster | None = None
    started: list[Cluster] = []
    try:
        for b in runnable(doc):
            if "dev-up" in b.words:
                cluster = Cluster(work, b.words["dev-up"])
                started.append(cluster)
            else:
                if shared is None:
                    shared = Cluster(work)
                    started.append(shared)
                cluster = shared
            env = shell_env(home, bin_dir, cluster.namesrv)
            (run_transcript if b.lang == "console" else run_shell)(b, cluster, work, env)
    finally:
        for c in started:
            c.stop()


def test_the_docs_that_run() -> None:
    """The files with blocks meant to run (a file whose blocks all became norun would silently drop out)."""
    assert [str(d.relative_to(ROOT)) for d in DOCS if runnable(d)] == [
        "README.md",
        "docs/audit.md",
        "docs/cli.md",
        "docs/dev-cluster.md",
        "docs/topology.md",
    ]


def test_dev_demo_help_keeps_its_numbered_list() -> None:
    help_text = subprocess.run(
        [sys.executable, "-m", "mqadmin", "dev", "demo", "--help"], capture_output=True, text=True, check=True
    ).stdout
    lines = [ln.strip() for ln in help_text.splitlines()]
    assert any(ln.startswith("1. Pre-created") for ln in lines) and any(
        ln.startswith("2. Auto-created") for ln in lines
    )


def test_norun_is_used_only_on_shell_blocks_and_files_are_named() -> None:
    for doc in DOCS:
        for b in blocks(doc):
            assert "norun" not in b.words or b.lang in SHELLS, f"{b}: norun on a {b.lang or 'plain'} block"
            assert set(b.words) <= {"norun", "file", "dev-up"}, f"{b}: unknown words {set(b.words)}"


def test_the_exit_code_tables_are_the_codes_one_list() -> None:
    stale = [rel for rel, text in spliced_files(ROOT).items() if (ROOT / rel).read_text() != text]
    assert sorted(spliced_files(ROOT)) == ["README.md", "docs/cli.md"]
    assert not stale, f"exit-code table out of date in {stale}; regenerate with: python -m mqadmin.cli.generate"
