"""The real Java client (rocketmq-client 4.9.8) against ``mqadmin dev up --tls``: it sends and consumes over TLS
(``-Dtls.enable=true``; its test mode trusts our throw-away certificate), finding the name server either as
given or through dev up's address server (``-Drocketmq.namesrv.domain=127.0.0.1:PORT``)."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator

import pytest

from tests.peers.harness import PeerUnavailable, ensure_peer, run_peer
from tests.peers.test_peers_apache import CONSUME_TIMEOUT, CONSUME_WAIT, COUNT, PRODUCE_TIMEOUT, _describe
from tests.tlscerts import skip_reason

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.timeout(300),
    pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or ""),
]

TLS = "-Dtls.enable=true -Dtls.test.mode.enable=true"


@pytest.fixture(scope="module")
def java_peer() -> None:
    try:
        ensure_peer("java")
    except PeerUnavailable as e:
        pytest.skip(f"java peer unavailable: {e.reason}")


@pytest.fixture(scope="module")
def dev(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    cmd = [sys.executable, "-m", "mqadmin", "--format", "json", "dev", "up", "--tls", "--namesrv-port", "0",
           "--broker-port", "0", "--data-dir", str(tmp_path_factory.mktemp("embedded-tls"))]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        info = json.loads(proc.stdout.readline())  # type: ignore[union-attr]
        yield info
    finally:
        proc.terminate()
        assert proc.wait(30) == 0


def create_topic(dev: dict, topic: str) -> None:
    cmd = [sys.executable, "-m", "mqadmin", "updateTopic", "-n", dev["namesrvAddr"], "--tls", "--tls-ca",
           dev["tlsCa"], "-c", "DefaultCluster", "-t", topic, "-r", "4", "-w", "4"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def java(mode: str, args: list, java_options: str, timeout: float, **env: str) -> list[dict]:
    rc, recs, err = run_peer("java", mode, args, timeout=timeout, env={"JAVA_TOOL_OPTIONS": java_options, **env})
    expected = args[-1] if mode == "produce" else args[-2]
    assert rc == 0 and len(recs) == expected, _describe(f"java {mode}", rc, recs, err)
    return recs


def test_java_client_sends_and_consumes_over_tls(dev, java_peer):
    topic = f"EmbTls_{uuid.uuid4().hex[:8]}"
    create_topic(dev, topic)
    prefix = f"tls-{uuid.uuid4().hex[:8]}"
    sent = java("produce", [dev["namesrvAddr"], topic, COUNT], TLS, PRODUCE_TIMEOUT, PEER_BODY_PREFIX=prefix)
    assert all(r["status"] == "SEND_OK" for r in sent)
    got = java("consume", [dev["namesrvAddr"], topic, f"CG_tls_{uuid.uuid4().hex[:8]}", COUNT, CONSUME_WAIT], TLS,
               CONSUME_TIMEOUT)  # fmt: skip
    assert sorted(r["body"] for r in got) == sorted(f"{prefix}-{i}" for i in range(COUNT))


def test_java_client_finds_the_name_server_through_the_address_server(dev, java_peer, monkeypatch):
    monkeypatch.delenv("NAMESRV_ADDR", raising=False)  # else the Java client would not ask the address server
    topic = f"EmbNsaddr_{uuid.uuid4().hex[:8]}"
    create_topic(dev, topic)
    domain = dev["nsaddrUrl"].split("/")[2]
    sent = java("produce", ["-", topic, COUNT], f"{TLS} -Drocketmq.namesrv.domain={domain}", PRODUCE_TIMEOUT)
    assert all(r["status"] == "SEND_OK" and r["topic"] == topic for r in sent)
