"""Integration: ``mqadmin dev namesrv|broker|up|demo`` as real processes on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqadmin.admin.client import AdminClient
from mqadmin.model.topic import TopicConfig
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode, ResponseCode
from mqadmin.wire.frame import RemotingCommand
from tests.conftest import wait_until
from tests.devprocs import MQADMIN, Proc, start_dev

from .conftest import topic_ext


@pytest.fixture
def procs() -> Iterator[list[Proc]]:
    started: list[Proc] = []
    yield started
    for p in started:
        if p.p.poll() is None:
            p.kill9()


def start(procs: list[Proc], *args: str) -> tuple[Proc, dict]:
    p, info = start_dev(*args)
    procs.append(p)
    return p, info


def run(coro):
    return asyncio.run(coro)


async def cluster_brokers(namesrv: str) -> dict[str, dict[int, str]]:
    async with AdminClient([namesrv], timeout=5) as admin:
        info = await admin.cluster_info()
    return {n: b.broker_addrs for n, b in info.brokers.items()}


async def create_topics(addr: str, names: list[str]) -> None:
    async with TcpTransport(timeout=30) as t:
        cmds = [RemotingCommand(int(RequestCode.UPDATE_AND_CREATE_TOPIC), ext=topic_ext(TopicConfig(n))) for n in names]
        resps = await asyncio.gather(*(t.request(addr, c) for c in cmds))
    assert all(r.code == ResponseCode.SUCCESS for r in resps)


async def broker_topics(addr: str) -> set[str]:
    async with TcpTransport(timeout=5) as t:
        resp = await t.request(addr, RemotingCommand(int(RequestCode.GET_ALL_TOPIC_CONFIG)))
    return set(fastjson.loads(resp.body)["topicConfigTable"])


def test_broker_process_registers_and_a_killed_broker_is_dropped_at_once(procs, tmp_path):
    _, ns = start(procs, "namesrv", "--port", "0", "--data-dir", str(tmp_path / "ns"))
    broker, b = start(procs, "broker", "-n", ns["namesrvAddr"], "--port", "0", "--data-dir", str(tmp_path / "b"))
    assert b["registered"] is True
    assert run(cluster_brokers(ns["namesrvAddr"])) == {"broker-a": {0: b["brokerAddr"]}}
    broker.kill9()
    # the connection closed with the process; no 120 s expiry needed
    wait_until(lambda: not run(cluster_brokers(ns["namesrvAddr"])), timeout=10, what="broker dropped")


def test_acknowledged_topics_survive_kill_9(procs, tmp_path):
    _, ns = start(procs, "namesrv", "--port", "0", "--data-dir", str(tmp_path / "ns"))
    data = str(tmp_path / "b")
    broker, b = start(
        procs,
        "broker",
        "-n",
        ns["namesrvAddr"],
        "--port",
        "0",
        "--data-dir",
        data,
    )
    names = [f"Durable{i}" for i in range(300)]
    run(create_topics(b["brokerAddr"], names))  # every one acknowledged ...
    broker.kill9()  # ... then the process dies without any chance to flush
    _, b2 = start(procs, "broker", "-n", ns["namesrvAddr"], "--port", "0", "--data-dir", data)
    assert set(names) <= run(broker_topics(b2["brokerAddr"]))

    async def routed() -> bool:
        async with AdminClient([ns["namesrvAddr"]]) as admin:
            return (await admin.topic_route("Durable299")).queue_datas[0].broker_name == "broker-a"

    assert run(routed())


def test_dev_up_prints_the_address_and_stops_cleanly_on_sigterm(procs):
    p = Proc("--format", "json", "dev", "up", "--namesrv-port", "0", "--broker-port", "0", "--brokers", "3")
    procs.append(p)
    info = p.json()
    assert [b["name"] for b in info["brokers"]] == ["broker-a", "broker-b", "broker-c"]
    brokers = run(cluster_brokers(info["namesrvAddr"]))
    assert sorted(brokers) == ["broker-a", "broker-b", "broker-c"]
    data_dir = Path(info["dataDir"])
    assert data_dir.is_dir() and info["temporaryDataDir"]
    assert p.stop(signal.SIGTERM) == 0
    assert not data_dir.exists()


def test_dev_up_table_output_and_ctrl_c(procs, tmp_path):
    p = Proc("dev", "up", "--namesrv-port", "0", "--broker-port", "0", "--data-dir", str(tmp_path / "d"))
    procs.append(p)
    first = p.line()
    assert first.startswith("NAMESRV_ADDR=127.0.0.1:")
    lines = [p.line() for _ in range(4)]
    assert lines[0].startswith("broker-a ") and lines[1].startswith("broker-b ")
    assert lines[2].startswith("address server  http://127.0.0.1:") and lines[2].rstrip().endswith("/rocketmq/nsaddr")
    assert lines[3].startswith("ready in ")
    assert p.stop(signal.SIGINT) == 0
    assert (tmp_path / "d" / "broker-a" / "config").is_dir()  # a given data dir is kept


def test_dev_up_without_auto_create_has_no_tbw102(procs):
    p = Proc("--format", "json", "dev", "up", "--namesrv-port", "0", "--broker-port", "0", "--no-auto-create")
    procs.append(p)
    info = p.json()
    assert info["autoCreateTopicEnable"] is False

    async def tbw102_code() -> int:
        async with TcpTransport(timeout=5) as t:
            cmd = RemotingCommand(int(RequestCode.GET_ROUTEINFO_BY_TOPIC), ext={"topic": "TBW102"})
            return (await t.request(info["namesrvAddr"], cmd)).code

    assert run(tbw102_code()) == ResponseCode.TOPIC_NOT_EXIST


def test_port_in_use_is_a_one_line_error(procs):
    _, ns = start(procs, "namesrv", "--port", "0")
    port = ns["namesrvAddr"].rsplit(":", 1)[1]
    done = subprocess.run([*MQADMIN, "dev", "namesrv", "--port", port], capture_output=True, text=True, timeout=30)
    assert done.returncode == 1
    assert "already in use" in done.stderr and "Traceback" not in done.stderr


def test_bad_data_dir_is_a_usage_error(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    done = subprocess.run([*MQADMIN, "dev", "up", "--data-dir", str(f)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and "not a directory" in done.stderr


def test_demo_shows_the_auto_created_topic_on_one_broker_only():
    done = subprocess.run([*MQADMIN, "--format", "json", "dev", "demo"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [q["broker"] for q in report["precreated"]["queues"]] == ["broker-a", "broker-b"]
    auto = report["autoCreated"]
    assert [q["broker"] for q in auto["queues"]] == [auto["sentTo"]]
    assert [b["broker"] for b in auto["brokers"]] == [auto["sentTo"]]


def test_demo_prints_both_routes_as_tables():
    done = subprocess.run([*MQADMIN, "dev", "demo"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Queues of DemoPrecreated" in out and "Queues of DemoAutoCreated" in out
    auto_part = out.split("Queues of DemoAutoCreated", 1)[1]
    assert sum(line.startswith("broker-") for line in auto_part.splitlines()) == 1
