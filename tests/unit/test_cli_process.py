"""The CLI as a real process (``python -m mqadmin``) against the embedded servers on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys

from tests.conftest import free_port
from tests.embedded import ThreadedCluster
from tests.unit.cli_helpers import default_sigint


async def mqadmin(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    full_env = {k: v for k, v in os.environ.items() if k not in ("NAMESRV_ADDR", "NO_COLOR")}
    full_env.update(env or {})
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "mqadmin",
        *args,
        env=full_env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    return proc.returncode or 0, out.decode(), err.decode()


def _free_addr() -> str:
    return f"127.0.0.1:{free_port()}"


async def test_help_lists_the_commands() -> None:
    code, out, _ = await mqadmin("--help")
    assert code == 0
    for command in ("updateTopic", "topicRoute", "clusterList", "topicList", "topicStatus", "deleteTopic"):
        assert command in out


async def test_update_topic_json_and_plain_output_from_a_process(embedded: ThreadedCluster) -> None:
    ns = embedded.namesrv_addr
    code, out, err = await mqadmin("--format", "json", "updateTopic", "-n", ns, "-c", "DefaultCluster", "-t", "T1")
    assert code == 0, err
    doc = json.loads(out)
    assert [(r["name"], r["status"]) for r in doc["results"]] == [("broker-a", "created"), ("broker-b", "created")]
    # Not a terminal: plain aligned text, no colour codes, and NAMESRV_ADDR works as -n.
    code, out, err = await mqadmin("updateTopic", "-c", "DefaultCluster", "-t", "T1", env={"NAMESRV_ADDR": ns})
    assert code == 0, err
    assert out.splitlines()[0].split() == ["BROKER", "ADDRESS", "RESULT"]
    assert "\x1b[" not in out
    assert [line.split()[2] for line in out.splitlines()[1:]] == ["unchanged", "unchanged"]


async def test_cluster_list_json_from_a_process(embedded: ThreadedCluster) -> None:
    code, out, err = await mqadmin("--format", "json", "clusterList", "-n", embedded.namesrv_addr)
    assert code == 0, err
    brokers = json.loads(out)["brokers"]
    assert [(x["broker"], x["addr"], x["inTps"], x["error"]) for x in brokers] == [
        (name, embedded.addr[name], 0.0, None) for name in ("broker-a", "broker-b")
    ]
    assert all(x["version"].startswith("V5_") for x in brokers)


async def test_dead_name_server_exits_4_with_a_one_line_hint() -> None:
    code, out, err = await mqadmin("clusterList", "-n", _free_addr())
    assert code == 4
    assert out == ""
    lines = err.strip().splitlines()
    assert lines[0].startswith("mqadmin: error: no name server answered")
    assert lines[1] == "  hint: is a name server running there? pass -n host:9876 or set NAMESRV_ADDR"
    assert len(lines) == 2


async def test_no_name_server_is_a_usage_error() -> None:
    code, out, err = await mqadmin("topicList")
    assert (code, out) == (2, "")
    assert err == (
        "mqadmin: error: no name server address given\n"
        "  hint: pass -n host:9876 or set NAMESRV_ADDR (or use a profile: mqadmin profile create NAME -n host:9876)\n"
    )


async def test_cluster_list_interval_ends_cleanly_on_ctrl_c(embedded: ThreadedCluster) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("NAMESRV_ADDR", "NO_COLOR")}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mqadmin", "--format", "json", "clusterList", "-n", embedded.namesrv_addr, "-i", "0.2",
        env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        preexec_fn=default_sigint,
    )  # fmt: skip
    assert proc.stdout is not None
    first = json.loads(await asyncio.wait_for(proc.stdout.readline(), 30))
    second = json.loads(await asyncio.wait_for(proc.stdout.readline(), 30))  # it repeats
    proc.send_signal(signal.SIGINT)
    await asyncio.wait_for(proc.wait(), 30)
    assert len(first["brokers"]) == len(second["brokers"]) == 2
    assert proc.returncode == 0
    assert "Traceback" not in (await proc.stderr.read()).decode()
