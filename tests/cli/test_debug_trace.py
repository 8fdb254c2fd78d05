"""``--debug`` and ``MQADMIN_DEBUG`` print each request and answer on stderr, never on stdout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.devprocs import start_dev


def test_debug_traces_requests_and_answers(tmp_path: Path) -> None:
    ns, info = start_dev("namesrv", "--port", "0", "--data-dir", str(tmp_path))
    try:
        addr = info["namesrvAddr"]
        run = [sys.executable, "-m", "mqadmin", "topicRoute", "-t", "Nope", "-n", addr]
        done = subprocess.run([*run, "--debug"], capture_output=True, text=True, timeout=60)
        env_done = subprocess.run(run, capture_output=True, text=True, timeout=60, env={**_env(), "MQADMIN_DEBUG": "1"})
    finally:
        ns.stop()
    assert done.returncode == env_done.returncode == 1
    for result in (done, env_done):
        assert (
            f"mqadmin: > {addr} #1 GET_ROUTEINFO_BY_TOPIC(105) acceptStandardJsonOnly=true topic=Nope" in result.stderr
        )
        assert f"mqadmin: < {addr} #1 TOPIC_NOT_EXIST(17)" in result.stderr
        assert result.stdout == ""
    plain = subprocess.run(run, capture_output=True, text=True, timeout=60)
    assert "GET_ROUTEINFO_BY_TOPIC" not in plain.stderr


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)
