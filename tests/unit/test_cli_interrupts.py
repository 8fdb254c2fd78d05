"""Ctrl-C in a bulk command, pressed on a real ``python -m mqadmin`` process while its requests are in flight: it
stops sending, lets what is in flight finish, says what was done and what was not and how to go on, exits 130."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mqadmin.model.group import SubscriptionGroupConfig
from mqadmin.model.rpc import topics as topic_rpc
from mqadmin.server.remoting import RemotingServer
from mqadmin.wire.codes import RequestCode
from mqadmin.wire.frame import RemotingCommand
from tests.unit.cli_helpers import default_sigint
from tests.unit.fake_remoting import FakeBroker, FakeNamesrv
from tests.unit.test_cli_message import Store
from tests.unit.test_cli_process import _free_addr, mqadmin


@contextlib.asynccontextmanager
async def served(*fakes: FakeNamesrv | FakeBroker) -> AsyncIterator[None]:
    """Serve each fake on the port its address names (bound to 127.0.0.1)."""
    servers = []
    for fake in fakes:
        server = RemotingServer(fake.addr)
        for code in (code for name, code in vars(RequestCode).items() if name.isupper()):
            server.register(code, lambda cmd, ch, f=fake: f.handle(cmd))
        await server.start("127.0.0.1", int(fake.addr.rsplit(":", 1)[1]))
        servers.append(server)
    try:
        yield
    finally:
        for s in servers:
            await s.close()


WRITES = frozenset({topic_rpc.UPDATE_AND_CREATE_TOPIC.code, topic_rpc.UPDATE_AND_CREATE_TOPIC_LIST.code})


class Gate:
    """A broker hook answering the first ``free`` topic writes at once and holding the next ones until ``open``;
    ``held`` is set when ``hold`` of them wait."""

    def __init__(self, free: int, hold: int, codes: frozenset[int] = WRITES) -> None:
        self.free, self.hold, self.codes = free, hold, codes
        self.writes = 0
        self.waiting = 0
        self.held = asyncio.Event()
        self.open = asyncio.Event()

    async def __call__(self, cmd: RemotingCommand) -> RemotingCommand | None:
        if cmd.code not in self.codes:
            return None
        self.writes += 1
        if self.writes > self.free:
            self.waiting += 1
            if self.waiting == self.hold:
                self.held.set()
            await self.open.wait()
        return None


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
    broker = FakeBroker("broker-a", _free_addr(), before=gate)
    ns = FakeNamesrv(_free_addr(), [broker])
    file = topology(tmp_path / "topology.toml", 20)
    async with served(ns, broker):
        args = ("apply", "-f", str(file), "-n", ns.addr, "--batch-size", "1", "--concurrency", "2")
        code, out, err = await interrupt_when_held(gate, *args)
        assert code == 130, err
        assert out.count(" on broker-a: created\n") == 5  # four answered at once, one in flight at Ctrl-C
        assert out.count(" on broker-a: not sent: interrupted (Ctrl-C)\n") == 15
        assert "mqadmin: error: apply interrupted (Ctrl-C): 5 of 20 change(s) done, 15 not sent" in err
        assert "hint: run the same apply again" in err and "Traceback" not in err
        assert len(broker.topics) == 5

        code, out, err = await mqadmin(*args)
        assert code == 0, err
        assert out.count(" on broker-a: created\n") == 15
        assert len(broker.topics) == 20


def old_broker_and_forty_topics(tmp_path: Path) -> tuple[Gate, FakeBroker, FakeNamesrv, Path]:
    """A 4.9 broker (it refuses the list request, then gets one request per topic, 16 in flight) holding the
    writes after the first four, and a file of 40 topics."""
    gate = Gate(free=4, hold=16, codes=frozenset({topic_rpc.UPDATE_AND_CREATE_TOPIC.code}))
    broker = FakeBroker("broker-a", _free_addr(), version=409, before=gate)
    file = tmp_path / "topics.json"
    file.write_text(json.dumps([{"topicName": f"T{i:02}"} for i in range(40)]))
    return gate, broker, FakeNamesrv(_free_addr(), [broker]), file


async def test_update_topic_list_reports_the_topics_not_sent(tmp_path: Path) -> None:
    gate, broker, ns, file = old_broker_and_forty_topics(tmp_path)
    async with served(ns, broker):
        args = ("updateTopicList", "-f", str(file), "-n", ns.addr, "-b", broker.addr)
        code, out, err = await interrupt_when_held(gate, *args)
        assert code == 130, err
        results = [line.split()[3] for line in out.splitlines()[1:]]
        assert results.count("created") == 20 and results.count("not") == 20, out
        assert "mqadmin: error: updateTopicList interrupted (Ctrl-C): 20 of 40 topic result(s) done, 20 not sent" in err
        assert "hint: run the same command again" in err
        assert len(broker.topics) == 20

        code, out, err = await mqadmin(*args)  # the gate is open now
        assert code == 0, err
        results = [line.split()[3] for line in out.splitlines()[1:]]
        assert results.count("unchanged") == 20 and results.count("created") == 20


async def test_update_topic_list_json_says_it_was_interrupted(tmp_path: Path) -> None:
    gate, broker, ns, file = old_broker_and_forty_topics(tmp_path)
    async with served(ns, broker):
        args = ("--format", "json", "updateTopicList", "-f", str(file), "-n", ns.addr, "-b", broker.addr)
        code, out, err = await interrupt_when_held(gate, *args)
    assert (code, out) == (130, ""), err
    error = json.loads(err.splitlines()[-1])  # what was done is in the error document, stdout has nothing
    assert error["error"]["code"] == "INTERRUPTED"
    doc = error["document"]
    assert doc["outcome"] == "interrupted"
    assert [r["status"] for r in doc["results"]].count("not sent") == 20


async def test_export_metadata_writes_what_it_collected_and_names_the_rest(tmp_path: Path) -> None:
    gate = Gate(free=0, hold=2, codes=frozenset({topic_rpc.GET_ALL_TOPIC_CONFIG.code}))  # both masters' topic reads
    groups = {"OrdersConsumer": SubscriptionGroupConfig("OrdersConsumer")}  # its lag is read after the topics
    a = FakeBroker("broker-a", _free_addr(), groups=dict(groups), before=gate)
    b = FakeBroker("broker-b", _free_addr(), groups=dict(groups), before=gate)
    ns = FakeNamesrv(_free_addr(), [a, b])
    out = tmp_path / "export"
    async with served(ns, a, b):
        code, stdout, err = await interrupt_when_held(gate, "exportMetadata", "-n", ns.addr, "--out", str(out))
    assert code == 130, err
    assert "exportMetadata interrupted (Ctrl-C): 0 of 2 master(s) collected whole" in err  # lag not read
    assert stdout.count("not sent: interrupted (Ctrl-C)") == 2, stdout
    assert f"{out} holds what was collected and manifest.json names what was not" in err
    assert "hint: run it again with a new --out" in err and "Traceback" not in err
    manifest = json.loads((out / "manifest.json").read_text())
    assert [b["broker_name"] for c in manifest["sources"][0]["clusters"] for b in c["brokers"]] == [
        "broker-a",
        "broker-b",
    ]


async def test_consume_message_prints_what_it_read_and_where_to_read_on() -> None:
    pulls = Gate(free=1, hold=1, codes=frozenset({RequestCode.PULL_MESSAGE}))  # broker-a queue 1's pull in flight
    a = FakeBroker("broker-a", _free_addr())
    b = FakeBroker("broker-b", _free_addr())
    ns = FakeNamesrv(_free_addr(), [a, b])
    stores = {a.name: Store(a), b.name: Store(b)}
    for (name, queue), bodies in {("broker-a", 0): "abc", ("broker-a", 1): "def", ("broker-b", 0): "ghi"}.items():
        for body in bodies:
            stores[name].add("Orders", body.encode(), queue)

    def gated(store: Store) -> Any:
        async def hook(cmd: RemotingCommand) -> RemotingCommand | None:
            await pulls(cmd)
            return await store.handle(cmd)

        return hook

    a.before, b.before = gated(stores["broker-a"]), gated(stores["broker-b"])
    async with served(ns, a, b):
        code, out, err = await interrupt_when_held(pulls, "consumeMessage", "-t", "Orders", "-n", ns.addr, "-c", "100")
    assert code == 130, err
    assert [line.split()[-1] for line in out.splitlines()[1:]] == list("abcdef")  # read before and in flight
    assert (
        "mqadmin: error: consumeMessage interrupted (Ctrl-C): 6 message(s) read; stopped at broker-b queue 0 offset 0, "
        "4 queue(s) not read to their end" in err
    )
    assert "hint: read on with: mqadmin consumeMessage -t Orders -b broker-b -i 0 -o 0 -c 94; 3 more queue(s)" in err


async def test_a_second_ctrl_c_quits_at_once(tmp_path: Path) -> None:
    gate = Gate(free=0, hold=1)
    broker = FakeBroker("broker-a", _free_addr(), before=gate)
    ns = FakeNamesrv(_free_addr(), [broker])
    file = topology(tmp_path / "topology.toml", 3)
    env = {k: v for k, v in os.environ.items() if k not in ("NAMESRV_ADDR", "NO_COLOR")}
    async with served(ns, broker):
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "mqadmin", "apply", "-f", str(file), "-n", ns.addr, env=env,
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
