"""``pip install`` of the wheel brings the man page and the completion scripts: built from this tree, installed
into a fresh virtual environment, ``man mqadmin`` finds the page through PATH alone and bash completes from
the installed script."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WHAT_THE_WHEEL_IS_BUILT_FROM = ("pyproject.toml", "README.md", "mqadmin", "man", "completions")


def run(*args: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, env=env, cwd=cwd, check=False)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel installed (offline: the build uses this environment's
    setuptools, and the wheel's dependencies come from this environment's site-packages through a .pth)."""
    tmp = tmp_path_factory.mktemp("installed")
    src = tmp / "src"
    for name in WHAT_THE_WHEEL_IS_BUILT_FROM:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            src.mkdir(exist_ok=True)
            shutil.copy(ROOT / name, src / name)
    pip = (sys.executable, "-m", "pip", "--disable-pip-version-check")
    run(*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", tmp / "dist", ".", cwd=src)
    [wheel] = (tmp / "dist").glob("mqadmin-*.whl")
    env_dir = tmp / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", env_dir)
    python = env_dir / "bin" / "python"
    alone = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # PYTHONPATH would hold an installed mqadmin
    run(*pip, "--python", python, "install", "--no-deps", "--no-index", "-q", wheel, env=alone)
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip())
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return env_dir


def person_env(venv: Path) -> dict[str, str]:
    """A shell of someone who activated the environment: its bin first on PATH, no MANPATH, nothing of ours
    on PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("MANPATH", "PYTHONPATH")}
    env["PATH"] = f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin"
    env["HOME"] = str(venv.parent / "home")
    return env


def test_the_installed_command_is_the_wheel(venv: Path) -> None:
    env = person_env(venv)
    assert run("mqadmin", "--version", env=env).startswith("mqadmin ")
    where = run(venv / "bin" / "python", "-c", "import mqadmin; print(mqadmin.__file__)", env=env, cwd=venv)
    assert where.startswith(str(venv)), where


def test_the_installed_command_has_the_json_schemas(venv: Path) -> None:
    import json

    from mqadmin.cli.documents import CONTRACT_VERSION

    env = person_env(venv)
    schema = json.loads(run("mqadmin", "help", "topicList", "--schema", env=env, cwd=venv))
    assert (schema["$id"], schema["contractVersion"]) == (
        f"urn:mqadmin:json:{CONTRACT_VERSION}:topicList",
        CONTRACT_VERSION,
    )
    assert "topics[].clusters" in run("mqadmin", "help", "topicList", env=env, cwd=venv)


def test_man_finds_the_page_through_path(venv: Path) -> None:
    env = person_env(venv)
    assert run("man", "-w", "mqadmin", env=env).strip() == str(venv / "share" / "man" / "man1" / "mqadmin.1")
    page = run("man", "mqadmin", env={**env, "MANPAGER": "cat", "MANWIDTH": "100", "LC_ALL": "C.UTF-8"})
    assert "mqadmin - " in page and "updateTopic" in page and "EXIT STATUS" in page, page[:500]


def test_the_completion_scripts_are_installed(venv: Path) -> None:
    share = venv / "share"
    for shell in ("bash", "zsh", "fish"):
        script = (ROOT / "completions" / f"mqadmin.{shell}").read_text()
        assert (share / "mqadmin" / "completions" / f"mqadmin.{shell}").read_text() == script
    installed = share / "bash-completion" / "completions" / "mqadmin.bash"
    assert installed.read_text() == (ROOT / "completions" / "mqadmin.bash").read_text()


def test_bash_completes_from_the_installed_script_and_command(venv: Path) -> None:
    script = venv / "share" / "bash-completion" / "completions" / "mqadmin.bash"
    line = (
        f"source {script}; COMP_LINE='mqadmin updateTopi'; COMP_POINT=${{#COMP_LINE}}; "
        "COMP_WORDS=(mqadmin updateTopi); COMP_CWORD=1; _mqadmin_complete mqadmin; printf '%s\\n' \"${COMPREPLY[@]}\""
    )
    assert sorted(run("bash", "--norc", "--noprofile", "-c", line, env=person_env(venv), cwd=venv).split()) == [
        "updateTopic",
        "updateTopicList",
        "updateTopicPerm",
    ]
