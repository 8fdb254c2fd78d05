"""Ctrl-C in a bulk command, pressed on a real ``python -m mqadmin`` process while its requests are in flight: it
stops sending, lets what is in flight finish, says what was done and what was not and how to go on, exits 130.
The servers are mqadmin's embedded ones, with a gate holding the requests of the test's choosing."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

from mqadmin.model.group import GroupWrite, SubscriptionGroupConfig
from mqadmin.model.rpc import groups, messages
from mqadmin.model.rpc import topics as topic_rpc
from mqadmin.model.topic import TopicConfig
from mqadmin.server.broker.broker import Broker
from mqadmin.server.dev import DevCluster, start_cluster
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire.codes import RequestCode, ResponseCode
from mqadmin.wire.message import encode_properties, new_uniq_key
from tests.unit.cli_helpers import default_sigint
from tests.unit.test_cli_process import mqadmin


@contextlib.asynccontextmanager
async def embedded(tmp_path: Path, brokers: int = 1) -> AsyncIterator[DevCluster]:
    """mqadmin's name server and ``brokers`` brokers on loopback, on this test's event loop (the gates below hold
    their requests on it)."""
    cluster = await start_cluster(data_dir=tmp_path / "cluster", brokers=brokers, namesrv_port=0, broker_port=0)
    try:
        yield cluster
    finally:
        await cluster.stop()


WRITES = frozenset({topic_rpc.UPDATE_AND_CREATE_TOPIC.code, topic_rpc.UPDATE_AND_CREATE_TOPIC_LIST.code})


class Gate:
    """Answers the first ``free`` requests of ``codes`` at once and holds the next ones until ``open``; ``held``
    is set when ``hold`` of them wait. ``install`` puts it in front of a broker's handlers of those codes."""

    def __init__(self, free: int, hold: int, codes: frozenset[int] = WRITES) -> None:
        self.free, self.hold, self.codes = free, hold, codes
        self.writes = 0
        self.waiting = 0
        self.held = asyncio.Event()
        self.open = asyncio.Event()

    async def wait_turn(self) -> None:
        self.writes += 1
        if self.writes > self.free:
            self.waiting += 1
            if self.waiting == self.hold:
                self.held.set()
            await self.open.wait()

    def install(self, broker: Broker) -> None:
        for code in self.codes:
            broker.server.intercept(code, self._gated)

    def _gated(self, handler: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
        async def gated(*args: Any) -> Any:
            await self.wait_turn()
            answer = handler(*args)
            return await answer if asyncio.iscoroutine(answer) or isinstance(answer, asyncio.Future) else answer

        return gated


def without_list_request(broker: Broker) -> None:
    """The broker answers UPDATE_AND_CREATE_TOPIC_LIST as a 4.9 one does: not supported (one request per topic)."""
    broker.server.unserve(topic_rpc.UPDATE_AND_CREATE_TOPIC_LIST.code)


def numbered_topics(broker: Broker) -> list[str]:
    """The broker's topics T00, T01, … (the ones the tests write)."""
    return [t for t in broker.topics.all() if t.startswith("T") and t[1:].isdigit()]


async def ask(addr: str, rpcs: Iterable[tuple[Any, Any, Any]]) -> None:
    """Requests built from their declarations ((rpc, header, body) each), each answered with success."""
    transport = TcpTransport(timeout=30)
    try:
        for rpc, header, body in rpcs:
            resp = await transport.request(addr, rpc.request(header, body))
            assert resp.code == ResponseCode.SUCCESS, (rpc.name, resp.remark)
    finally:
        await transport.aclose()


def create_topic(cfg: TopicConfig) -> tuple[Any, Any, Any]:
    return topic_rpc.UPDATE_AND_CREATE_TOPIC, topic_rpc.CreateTopicHeader.of(cfg), None


def send(topic: str, queue_id: int, body: bytes) -> tuple[Any, Any, Any]:
    header = messages.SendHeaderV2(
        producer_group="PG", topic=topic, default_topic="TBW102", default_topic_queue_nums=4, queue_id=queue_id,
        sys_flag=0, born_timestamp=int(time.time() * 1000), flag=0,
        properties=encode_properties({"UNIQ_KEY": new_uniq_key()}),
    )  # fmt: skip
    return messages.SEND_MESSAGE_V2, header, body


async def interrupt_when_held(gate: Gate, *args: str) -> tuple[int, str, str]:
    """Run mqadmin ARGS; once ``gate`` holds its writes, press Ctrl-C, wait for the command to say it is stopping,
    then let the held writes through and collect the output."""
    env = {k: v for k, v in os.environ.items() if k not in ("NAMESRV_ADDR", "NO_COLOR")}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mqadmin", *args, env=env, preexec_fn=default_sigint,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    out_task = asyncio.ensure_future(proc.stdout.read())
    await asyncio.wait_for(gate.held.wait(), 60)
    proc.send_signal(signal.SIGINT)
    err = ""
    while "stopping" not in err:
        line = (await asyncio.wait_for(proc.stderr.readline(), 60)).decode()
        assert line, f"mqadmin ended without saying it stops: {err}"
        err += line
    writes_when_stopping = gate.writes
    gate.open.set()
    err += (await asyncio.wait_for(proc.stderr.read(), 60)).decode()
    out = (await asyncio.wait_for(out_task, 60)).decode()
    await asyncio.wait_for(proc.wait(), 60)
    assert gate.writes == writes_when_stopping, "a request was sent after Ctrl-C"
    return proc.returncode or 0, out, err


def topology(path: Path, n: int) -> Path:
    path.write_text('[clusters.local]\ncluster = "DefaultCluster"\n' + "".join(f"[topics.T{i:02}]\n" for i in range(n)))
    return path


async def test_apply_reports_what_ctrl_c_left_undone_and_a_rerun_finishes(tmp_path: Path) -> None:
    gate = Gate(free=4, hold=1)  # a broker's topic batches go one after the other
    file = topology(tmp_path / "topology.toml", 20)
    async with embedded(tmp_path) as cluster:
        (broker,) = cluster.brokers
        gate.install(broker)
        args = ("apply", "-f", str(file), "-n", cluster.namesrv_addr, "--batch-size", "1", "--concurrency", "2")
        code, out, err = await interrupt_when_held(gate, *args)
        assert code == 130, err
        assert out.count(" on broker-a: created\n") == 5  # four answered at once, one in flight at Ctrl-C
        assert out.count(" on broker-a: not sent: interrupted (Ctrl-C)\n") == 15
        assert "mqadmin: error: apply interrupted (Ctrl-C): 5 of 20 change(s) done, 15 not sent" in err
        assert "hint: run the same apply again" in err and "Traceback" not in err
        assert len(numbered_topics(broker)) == 5

        code, out, err = await mqadmin(*args)
        assert code == 0, err
        assert out.count(" on broker-a: created\n") == 15
        assert len(numbered_topics(broker)) == 20


def forty_topics(tmp_path: Path) -> tuple[Gate, Path]:
    """A gate holding the topic writes after the first four until 16 wait (one request per topic, 16 in flight,
    on a broker without the list request), and a file of 40 topics."""
    gate = Gate(free=4, hold=16, codes=frozenset({topic_rpc.UPDATE_AND_CREATE_TOPIC.code}))
    file = tmp_path / "topics.json"
    file.write_text(json.dumps([{"topicName": f"T{i:02}"} for i in range(40)]))
    return gate, file


async def test_update_topic_list_reports_the_topics_not_sent(tmp_path: Path) -> None:
    gate, file = forty_topics(tmp_path)
    async with embedded(tmp_path) as cluster:
        (broker,) = cluster.brokers
        without_list_request(broker)
        gate.install(broker)
        args = ("updateTopicList", "-f", str(file), "-n", cluster.namesrv_addr, "-b", broker.config.addr)
        code, out, err = await interrupt_when_held(gate, *args)
        assert code == 130, err
        results = [line.split()[3] for line in out.splitlines()[1:]]
        assert results.count("created") == 20 and results.count("not") == 20, out
        assert "mqadmin: error: updateTopicList interrupted (Ctrl-C): 20 of 40 topic result(s) done, 20 not sent" in err
        assert "hint: run the same command again" in err
        assert len(numbered_topics(broker)) == 20

        code, out, err = await mqadmin(*args)  # the gate is open now
        assert code == 0, err
        results = [line.split()[3] for line in out.splitlines()[1:]]
        assert results.count("unchanged") == 20 and results.count("created") == 20


async def test_update_topic_list_json_says_it_was_interrupted(tmp_path: Path) -> None:
    gate, file = forty_topics(tmp_path)
    async with embedded(tmp_path) as cluster:
        (broker,) = cluster.brokers
        without_list_request(broker)
        gate.install(broker)
        args = ("--format", "json", "updateTopicList", "-f", str(file), "-n", cluster.namesrv_addr,
                "-b", broker.config.addr)  # fmt: skip
        code, out, err = await interrupt_when_held(gate, *args)
    assert (code, out) == (130, ""), err
    error = json.loads(err.splitlines()[-1])  # what was done is in the error document, stdout has nothing
    assert error["error"]["code"] == "INTERRUPTED"
    doc = error["document"]
    assert doc["outcome"] == "interrupted"
    assert [r["status"] for r in doc["results"]].count("not sent") == 20


async def test_export_metadata_writes_what_it_collected_and_names_the_rest(tmp_path: Path) -> None:
    gate = Gate(free=0, hold=2, codes=frozenset({topic_rpc.GET_ALL_TOPIC_CONFIG.code}))  # both masters' topic reads
    out = tmp_path / "export"
    async with embedded(tmp_path, brokers=2) as cluster:
        for broker in cluster.brokers:  # the group's lag is read after the topics
            write = GroupWrite(SubscriptionGroupConfig("OrdersConsumer"))
            await ask(broker.config.addr, [(groups.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, None, write)])
            gate.install(broker)
        args = ("exportMetadata", "-n", cluster.namesrv_addr, "--out", str(out))
        code, stdout, err = await interrupt_when_held(gate, *args)
    assert code == 130, err
    assert "exportMetadata interrupted (Ctrl-C): 0 of 2 master(s) collected whole" in err  # lag not read
    # each master's lag reads (its groups: OrdersConsumer and the broker's own defaults) were not sent
    not_sent = [r for r in stdout.split("; ") if "not sent: interrupted (Ctrl-C)" in r]
    assert {r.split(": consume stats of ")[0].split()[-1] for r in not_sent} == {"broker-a", "broker-b"}, stdout
    assert all(": consume stats of " in r for r in not_sent), stdout
    assert f"{out} holds what was collected and manifest.json names what was not" in err
    assert "hint: run it again with a new --out" in err and "Traceback" not in err
    manifest = json.loads((out / "manifest.json").read_text())
    assert [b["brokerName"] for c in manifest["sources"][0]["clusters"] for b in c["brokers"]] == [
        "broker-a",
        "broker-b",
    ]


async def test_consume_message_prints_what_it_read_and_where_to_read_on(tmp_path: Path) -> None:
    pulls = Gate(free=1, hold=1, codes=frozenset({RequestCode.PULL_MESSAGE}))  # broker-a queue 1's pull in flight
    held = {("broker-a", 0): "abc", ("broker-a", 1): "def", ("broker-b", 0): "ghi"}
    async with embedded(tmp_path, brokers=2) as cluster:
        for broker in cluster.brokers:
            name = broker.config.broker_name
            sends = [
                send("Orders", q, body.encode()) for (b, q), bodies in held.items() if b == name for body in bodies
            ]
            await ask(broker.config.addr, [create_topic(TopicConfig("Orders", 4, 4, 6)), *sends])
            pulls.install(broker)
        args = ("consumeMessage", "-t", "Orders", "-n", cluster.namesrv_addr, "-c", "100")
        code, out, err = await interrupt_when_held(pulls, *args)
    assert code == 130, err
    assert [line.split()[-1] for line in out.splitlines()[1:]] == list("abcdef")  # read before and in flight
    assert (
        "mqadmin: error: consumeMessage interrupted (Ctrl-C): 6 message(s) read; stopped at broker-b queue 0 offset 0, "
        "4 queue(s) not read to their end" in err
    )
    assert "hint: read on with: mqadmin consumeMessage -t Orders -b broker-b -i 0 -o 0 -c 94; 3 more queue(s)" in err


async def test_a_second_ctrl_c_quits_at_once(tmp_path: Path) -> None:
    gate = Gate(free=0, hold=1)
    file = topology(tmp_path / "topology.toml", 3)
    env = {k: v for k, v in os.environ.items() if k not in ("NAMESRV_ADDR", "NO_COLOR")}
    async with embedded(tmp_path) as cluster:
        gate.install(cluster.brokers[0])
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "mqadmin", "apply", "-f", str(file), "-n", cluster.namesrv_addr, env=env,
            preexec_fn=default_sigint, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert proc.stderr is not None
        await asyncio.wait_for(gate.held.wait(), 60)
        proc.send_signal(signal.SIGINT)
        err = b""
        while b"stopping" not in err:
            err += await asyncio.wait_for(proc.stderr.readline(), 60)
        proc.send_signal(signal.SIGINT)  # the held write is still in flight: nothing waits for it
        _, rest = await asyncio.wait_for(proc.communicate(), 60)
        gate.open.set()
    assert proc.returncode == 130
    assert b"Traceback" not in err + rest
