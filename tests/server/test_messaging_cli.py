"""sendMessage and consumeMessage as real processes against ``mqadmin dev up``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqadmin.model.tags import java_string_hash


def start_dev(data_dir: Path, *extra: str) -> tuple[subprocess.Popen[str], dict]:
    cmd = [sys.executable, "-m", "mqadmin", "--format", "json", "dev", "up", "--namesrv-port", "0",
           "--broker-port", "0", "--data-dir", str(data_dir), *extra]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return proc, json.loads(proc.stdout.readline())  # type: ignore[union-attr]


def stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    proc.wait(30)


@pytest.fixture(scope="module")
def dev(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    proc, info = start_dev(tmp_path_factory.mktemp("dev"), "--brokers", "2")
    yield info
    stop(proc)


def mqadmin(*args: str, namesrv: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NAMESRV_ADDR", "NO_COLOR")}
    if namesrv:
        env["NAMESRV_ADDR"] = namesrv
    return subprocess.run([sys.executable, "-m", "mqadmin", *args], env=env, capture_output=True, text=True, timeout=60)


def route_of(topic: str, namesrv: str, timeout: float = 30.0) -> dict:
    """The topic's route once the name server has it (a broker announces a new topic right after
    creating it, but a loaded machine can take a moment)."""
    deadline = time.monotonic() + timeout
    while True:
        r = mqadmin("--format", "json", "topicRoute", "-t", topic, namesrv=namesrv)
        if r.returncode == 0:
            return json.loads(r.stdout)
        assert time.monotonic() < deadline, f"no route for {topic}: {r.stderr}"


def test_send_to_a_new_topic_creates_it_through_tbw102(dev):
    r = mqadmin("sendMessage", "-t", "CliNew", "-p", "hello", "-k", "k1 k2", "-c", "TagA", namesrv=dev["namesrvAddr"])
    assert r.returncode == 0, r.stderr
    header, row = r.stdout.splitlines()
    assert header.split() == ["BROKER", "QUEUE", "OFFSET", "MSG", "ID", "OFFSET", "MSG", "ID", "STATUS"]
    assert row.split()[0] in ("broker-a", "broker-b") and row.split()[-1] == "SEND_OK"
    assert "sent through TBW102" in r.stderr
    route = route_of("CliNew", dev["namesrvAddr"])
    # the auto-create trap (docs/protocol.md, "Broker"): the topic lives on the broker the send reached
    assert len(route["brokers"]) == 1


def test_send_json_then_consume_json(dev):
    ns = dev["namesrvAddr"]
    sent = [json.loads(mqadmin("--format", "json", "sendMessage", "-t", "CliRT", "-p", f"body {i}", "-k", f"key{i}",
                               namesrv=ns).stdout) for i in range(3)]  # fmt: skip
    assert {s["status"] for s in sent} == {"SEND_OK"} and all(len(s["offsetMsgId"]) == 32 for s in sent)
    r = mqadmin("--format", "json", "consumeMessage", "-t", "CliRT", namesrv=ns)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)["messages"]
    assert sorted(m["body"] for m in got) == ["body 0", "body 1", "body 2"]
    assert {m["msgId"] for m in got} == {s["msgId"] for s in sent}
    one = json.loads(mqadmin("--format", "json", "consumeMessage", "-t", "CliRT", "-c", "1", namesrv=ns).stdout)
    one = one["messages"]
    assert len(one) == 1
    table = mqadmin("consumeMessage", "-t", "CliRT", namesrv=ns)
    assert table.stdout.splitlines()[0].split() == ["BROKER", "QUEUE", "OFFSET", "MSG", "ID", "KEYS", "TAGS", "BODY"]


def test_pinned_broker_and_queue(dev):
    ns = dev["namesrvAddr"]
    mqadmin("sendMessage", "-t", "CliPinned", "-p", "create", namesrv=ns)
    route = route_of("CliPinned", ns)
    broker = route["brokers"][0]["broker"]
    r = mqadmin("--format", "json", "sendMessage", "-t", "CliPinned", "-p", "x", "-b", broker, "-i", "2", namesrv=ns)
    sent = json.loads(r.stdout)
    assert (sent["broker"], sent["queueId"]) == (broker, 2)
    args = ["-b", broker, "-i", "2", "-o", str(sent["queueOffset"])]
    got = json.loads(mqadmin("--format", "json", "consumeMessage", "-t", "CliPinned", *args, namesrv=ns).stdout)
    got = got["messages"]
    assert [(m["body"], m["queueId"]) for m in got] == [("x", 2)]
    bad = mqadmin("sendMessage", "-t", "CliPinned", "-p", "x", "-b", broker, "-i", "99", namesrv=ns)
    assert bad.returncode == 1 and "request queueId[99] is illegal" in bad.stderr
    assert bad.stderr.startswith("mqadmin: error:") and "Traceback" not in bad.stderr


def test_order_key_selects_the_hash_queue(dev):
    ns = dev["namesrvAddr"]
    mqadmin("sendMessage", "-t", "CliOrder", "-p", "create", namesrv=ns)
    route_of("CliOrder", ns)
    r = mqadmin("--format", "json", "sendMessage", "-t", "CliOrder", "-p", "x", "--order-key", "order-9", namesrv=ns)
    assert json.loads(r.stdout)["queueId"] == abs(java_string_hash("order-9")) % 4


def test_bad_input_is_a_usage_error(dev):
    ns = dev["namesrvAddr"]
    r = mqadmin("sendMessage", "-t", "bad topic", "-p", "x", namesrv=ns)
    assert r.returncode == 2 and "illegal characters" in r.stderr
    r = mqadmin("sendMessage", "-t", "T", "-p", "x", "-i", "1", "--order-key", "k", namesrv=ns)
    assert r.returncode == 2
    r = mqadmin("consumeMessage", "-t", "NoSuchTopicAnywhere", namesrv=ns)
    assert r.returncode == 1 and "TOPIC_NOT_EXIST" in r.stderr


def test_no_auto_create_refuses_unknown_topics(tmp_path: Path):
    proc, info = start_dev(tmp_path, "--brokers", "1", "--no-auto-create")
    try:
        r = mqadmin("sendMessage", "-t", "NotThere", "-p", "x", namesrv=info["namesrvAddr"])
        assert r.returncode == 1
        assert "does not exist" in r.stderr and "updateTopic" in r.stderr
    finally:
        stop(proc)
