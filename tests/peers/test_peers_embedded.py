"""Real RocketMQ clients and the real Java mqadmin against OUR embedded cluster (``mqadmin dev up``).

Each peer (Java rocketmq-client 4.9.8 producer + push consumer, PyPI rocketmq 0.4.4 / C++ producer
+ pull consumer, npm ali-ons producer + consumer) produces and consumes on a pre-created topic
and on a topic our broker auto-creates through TBW102; the three read each other's messages; the
auto-create trap (docs/protocol.md, "Broker": an auto-created topic lives only on the broker the first send reached;
--no-auto-create refuses it); and Java mqadmin reads our consume/topic stats and queries messages.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.peers import test_peers_apache as on_apache
from tests.peers.harness import KINDS, run_peer
from tests.peers.test_peers_apache import COUNT, PRODUCE_TIMEOUT, _check_round_trip, _consume, _need, _produce

pytestmark = [pytest.mark.conformance, pytest.mark.timeout(300)]

peers = on_apache.peers
"""The same module fixture: kind -> None when the peer is usable, else why not."""


def _uid() -> str:
    return uuid.uuid4().hex[:8]


class DevUp:
    """``mqadmin dev up`` as its own process on free ports."""

    def __init__(self, data_dir: Path, *extra: str) -> None:
        cmd = [sys.executable, "-m", "mqadmin", "--format", "json", "dev", "up", "--namesrv-port", "0",
               "--broker-port", "0", "--data-dir", str(data_dir), *extra]  # fmt: skip
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.info = json.loads(self.proc.stdout.readline())  # type: ignore[union-attr]
        self.namesrv_addr: str = self.info["namesrvAddr"]

    def mqadmin(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "NAMESRV_ADDR": self.namesrv_addr}
        cmd = [sys.executable, "-m", "mqadmin", *args]
        return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)

    def route_brokers(self, topic: str) -> list[str]:
        r = self.mqadmin("--format", "json", "topicRoute", "-t", topic)
        if r.returncode != 0:
            return []
        return sorted(b["broker"] for b in json.loads(r.stdout)["brokers"])

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)


@pytest.fixture(scope="module")
def dev(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevUp]:
    d = DevUp(tmp_path_factory.mktemp("embedded"), "--brokers", "2")
    yield d
    d.stop()


def _create(dev: DevUp, topic: str) -> None:
    r = dev.mqadmin("updateTopic", "-c", "DefaultCluster", "-t", topic, "-r", "4", "-w", "4")
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_produce_consume_existing_topic(dev, peers, kind):
    _need(peers, kind)
    topic = f"EmbT_{kind}_{_uid()}"
    _create(dev, topic)
    produced = _produce(kind, "produce", dev.namesrv_addr, topic, f"{kind}-{_uid()}")
    consumed = _consume(kind, dev.namesrv_addr, topic, COUNT)
    _check_round_trip(kind, produced, consumed, topic)


@pytest.mark.parametrize("kind", KINDS)
def test_produce_auto_create_then_consume(dev, peers, kind):
    _need(peers, kind)
    topic = f"EmbAuto_{kind}_{_uid()}"
    produced = _produce(kind, "produce-auto", dev.namesrv_addr, topic, f"{kind}-auto-{_uid()}")
    consumed = _consume(kind, dev.namesrv_addr, topic, COUNT)
    _check_round_trip(kind, produced, consumed, topic)


def test_every_peer_reads_every_peer(dev, peers):
    usable = [k for k in KINDS if not peers[k]]
    if len(usable) < 2:
        pytest.skip("needs at least two usable peers")
    topic = f"EmbShared_{_uid()}"
    _create(dev, topic)
    produced = []
    for kind in usable:
        produced += _produce(kind, "produce", dev.namesrv_addr, topic, f"x-{kind}-{_uid()}")

    def consume(kind: str):
        return kind, _consume(kind, dev.namesrv_addr, topic, len(produced))

    with ThreadPoolExecutor(len(usable)) as pool:
        for kind, consumed in pool.map(consume, usable):
            assert sorted(r["body"] for r in consumed) == sorted(r["body"] for r in produced), kind


def test_seed_scenario_auto_created_topic_lives_on_the_broker_the_send_reached(dev, peers):
    """Seed 003: the first send goes through TBW102's route to one broker, which creates the topic;
    the name server then routes the topic to that broker only. updateTopic -c spreads it."""
    _need(peers, "java")
    topic = f"EmbSeed_{_uid()}"
    (rec,) = _produce_n("java", dev, topic, 1)
    assert dev.route_brokers(topic) == [rec["brokerName"]]
    _create(dev, topic)
    assert dev.route_brokers(topic) == ["broker-a", "broker-b"]


def _produce_n(kind: str, dev: DevUp, topic: str, n: int) -> list[dict]:
    rc, recs, err = run_peer(kind, "produce-auto", [dev.namesrv_addr, topic, n], timeout=PRODUCE_TIMEOUT)
    assert rc == 0 and len(recs) == n, err[-3000:]
    return recs


def test_no_auto_create_refuses_a_real_producer(tmp_path, peers):
    _need(peers, "java")
    dev = DevUp(tmp_path, "--brokers", "1", "--no-auto-create")
    try:
        topic = f"EmbRefused_{_uid()}"
        rc, recs, err = run_peer("java", "produce-auto", [dev.namesrv_addr, topic, 1], timeout=PRODUCE_TIMEOUT)
        assert rc != 0 and not recs
        assert "No route info" in err or "TOPIC_NOT_EXIST" in err or "CODE: 17" in err, err[-3000:]
        assert dev.route_brokers(topic) == []
    finally:
        dev.stop()


# --- the real Java mqadmin reading what our broker serves ---------------------------------------

try:
    from tests.realrmq import apache
except Exception:  # pragma: no cover - depends on the other harness
    apache = None


@pytest.fixture(scope="module")
def java_mqadmin():
    if apache is None:
        pytest.skip("tests.realrmq.apache unavailable")
    reason = apache.skip_reason(apache.V4) or apache.skip_reason(apache.V5)
    if reason:
        pytest.skip(reason)
    return apache.java_mqadmin


@pytest.fixture(scope="module")
def consumed_topic(dev, peers):
    """A topic with 5 messages from the Java producer, read by a Java push consumer group."""
    _need(peers, "java")
    topic, group = f"EmbTools_{_uid()}", f"CG_tools_{_uid()}"
    _create(dev, topic)
    produced = _produce("java", "produce", dev.namesrv_addr, topic, f"tools-{_uid()}")
    rc, recs, err = run_peer("java", "consume", [dev.namesrv_addr, topic, group, COUNT, 45], timeout=90)
    assert rc == 0 and len(recs) == COUNT, err[-3000:]
    return topic, group, produced


@pytest.mark.parametrize("version", ["4.9.8", "5.3.3"])
def test_java_topic_status_prints_our_offsets(dev, java_mqadmin, consumed_topic, version):
    topic, _group, produced = consumed_topic
    out = java_mqadmin(version, ["topicStatus", "-t", topic], dev.namesrv_addr).stdout
    rows = [line.split() for line in out.splitlines() if line.startswith("broker-")]
    assert len(rows) == 8, out
    assert sum(int(r[3]) for r in rows) == len(produced)  # #Max Offset column


@pytest.mark.parametrize("version", ["4.9.8", "5.3.3"])
def test_java_consumer_progress_prints_our_consume_stats(dev, java_mqadmin, consumed_topic, version):
    topic, group, produced = consumed_topic
    out = java_mqadmin(version, ["consumerProgress", "-g", group], dev.namesrv_addr).stdout
    rows = [line.split() for line in out.splitlines() if line.startswith(topic)]
    assert len(rows) == 8, out
    assert sum(int(r[3]) for r in rows) == len(produced)  # #Broker Offset
    assert "Diff Total" in out


def test_java_query_tools_find_our_messages(dev, java_mqadmin, consumed_topic):
    topic, _group, produced = consumed_topic
    rec = produced[0]
    by_key = java_mqadmin("4.9.8", ["queryMsgByKey", "-t", topic, "-k", rec["keys"]], dev.namesrv_addr).stdout
    assert rec["msgId"] in by_key, by_key
    by_id = java_mqadmin("4.9.8", ["queryMsgById", "-i", rec["offsetMsgId"]], dev.namesrv_addr).stdout
    assert f"Topic:               {topic}" in by_id and rec["keys"] in by_id, by_id
    args = ["queryMsgByUniqueKey", "-t", topic, "-i", rec["msgId"]]
    by_uniq = java_mqadmin("4.9.8", args, dev.namesrv_addr).stdout
    assert rec["keys"] in by_uniq, by_uniq
