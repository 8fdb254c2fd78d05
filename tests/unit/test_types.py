"""The type checker (mypy, configured in pyproject.toml's [tool.mypy]) finds no error in ``mqadmin/``, and checks
the client layers and the shared model strictly: every function annotated, no ``Any`` returned where a type is
declared, no generic without its parameters, no ``# type: ignore`` left unused.

Its cache lives in ``.mypy_cache`` (ignored by git): a first run on a fresh machine checks every module (about
8 s), a run after a change only what the change touches."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
STRICT_LAYERS = ("mqadmin.wire", "mqadmin.transport", "mqadmin.model", "mqadmin.admin")


def mypy_config() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mypy"]


STRICT_FLAGS = {
    "disallow_any_generics", "disallow_subclassing_any", "disallow_untyped_calls", "disallow_untyped_defs",
    "disallow_incomplete_defs", "check_untyped_defs", "disallow_untyped_decorators", "warn_return_any",
    "strict_equality", "extra_checks",
}  # fmt: skip
"""What ``--strict`` turns on per module (besides ``implicit_reexport = false`` and the two global flags)."""


def test_the_client_layers_and_the_model_are_checked_strictly() -> None:
    config = mypy_config()
    assert config["warn_unused_ignores"] and config["warn_redundant_casts"]
    strict = {
        m
        for o in config["overrides"]
        if all(o.get(flag) is True for flag in STRICT_FLAGS) and o.get("implicit_reexport") is False
        for m in o["module"]
    }
    for layer in STRICT_LAYERS:
        assert {layer, f"{layer}.*"} <= strict, f"{layer} is not checked strictly"


def test_mypy_finds_no_error_in_mqadmin() -> None:
    assert mypy_config()["files"] == ["mqadmin"]
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(REPO / ".mypy_cache")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Success: no issues found"), done.stdout
