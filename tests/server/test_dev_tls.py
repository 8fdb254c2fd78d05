"""Integration: ``mqadmin dev up --tls`` (every port TLS, a CA made at start) and its address server
(``/rocketmq/nsaddr``), driven by our CLI as separate processes on 127.0.0.1."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqadmin.wire.codes import RequestCode
from mqadmin.wire.frame import RemotingCommand, encode_frame
from tests.devprocs import MQADMIN, Proc, start_dev
from tests.tlscerts import skip_reason

pytestmark = pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Proc, dict]]:
    data = tmp_path_factory.mktemp("dev-tls")
    p, info = start_dev("up", "--tls", "--namesrv-port", "0", "--broker-port", "0", "--data-dir", str(data))
    yield p, info
    p.p.send_signal(signal.SIGTERM)
    assert p.p.wait(15) == 0
    stderr = p.p.stderr.read()
    assert f"mqadmin: TLS on every port, plain TCP refused; CA certificate: {info['tlsCa']}" in stderr
    assert f"(clients: --tls --tls-ca {info['tlsCa']})" in stderr
    p.stop()


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MQADMIN, *args], capture_output=True, text=True, timeout=60)


def tls_args(info: dict) -> list[str]:
    return ["--tls", "--tls-ca", info["tlsCa"]]


def cluster_brokers(info: dict, *ns: str) -> dict[str, str]:
    done = cli("--format", "json", "clusterList", *(ns or ("-n", info["namesrvAddr"])), *tls_args(info))
    assert done.returncode == 0, done.stderr
    brokers = json.loads(done.stdout)["brokers"]
    assert all(b["error"] is None and b["version"] for b in brokers), brokers  # each broker answered over TLS
    return {b["broker"]: b["addr"] for b in brokers}


def test_ready_line_names_the_ca_and_the_address_server(cluster):
    p, info = cluster
    ca = Path(info["tlsCa"])
    assert ca.name == "ca.pem" and ca.parent == Path(info["dataDir"]) / "tls"
    assert ca.read_text().startswith("-----BEGIN CERTIFICATE-----")
    assert not (ca.parent / "ca.key").exists()  # the CA signs nothing more
    assert info["nsaddrUrl"].startswith("http://127.0.0.1:") and info["nsaddrUrl"].endswith("/rocketmq/nsaddr")


def test_cli_manages_the_cluster_over_tls(cluster):
    _, info = cluster
    expected = {b["name"]: b["addr"] for b in info["brokers"]}
    assert cluster_brokers(info) == expected  # the brokers registered over TLS

    ns = ["-n", info["namesrvAddr"], *tls_args(info)]
    done = cli("--format", "json", "updateTopic", *ns, "-c", "DefaultCluster", "-t", "TlsOrders")
    assert done.returncode == 0, done.stderr
    assert sorted(r["status"] for r in json.loads(done.stdout)["results"]) == ["created", "created"]

    done = cli("--format", "json", "topicRoute", *ns, "-t", "TlsOrders")
    assert done.returncode == 0, done.stderr
    assert sorted(q["broker"] for q in json.loads(done.stdout)["queues"]) == ["broker-a", "broker-b"]


def test_plain_clients_are_refused_and_the_servers_stay_up(cluster):
    p, info = cluster
    done = cli("clusterList", "-n", info["namesrvAddr"])
    assert done.returncode == 4
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 2 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith("mqadmin: error: no name server answered")
    assert lines[1].startswith("  hint: ") and "pass --tls" in lines[1]

    broker = info["brokers"][0]["addr"]
    frame = encode_frame(RemotingCommand(int(RequestCode.GET_BROKER_CLUSTER_INFO), 1))
    for addr in (info["namesrvAddr"], broker):
        host, port = addr.rsplit(":", 1)
        for data in (frame, b"\x16\x03\x01\x00\x05hello", b"\x00" * 64):  # a plain frame, a broken hello, noise
            with socket.create_connection((host, int(port)), timeout=10) as s:
                s.sendall(data)
                s.shutdown(socket.SHUT_WR)
                assert s.recv(4096) == b""  # closed without an answer

    assert p.p.poll() is None
    assert cluster_brokers(info) == {b["name"]: b["addr"] for b in info["brokers"]}


def test_a_certificate_without_our_ca_is_refused(cluster, tmp_path):
    _, info = cluster
    done = cli("clusterList", "-n", info["namesrvAddr"], "--tls")  # the system's CAs do not know ours
    assert done.returncode == 4 and "Traceback" not in done.stderr
    assert "certificate" in done.stderr


def test_the_address_server_lists_the_name_server(cluster):
    _, info = cluster
    url = info["nsaddrUrl"]
    assert cluster_brokers(info, "-n", url) == {b["name"]: b["addr"] for b in info["brokers"]}


def http(url: str, request: bytes) -> bytes:
    host, port = url.split("/")[2].rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(request)
        s.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := s.recv(4096):
            chunks.append(chunk)
    return b"".join(chunks)


def test_the_address_server_answers_only_its_path(cluster):
    _, info = cluster
    url = info["nsaddrUrl"]
    ok = http(url, b"GET /rocketmq/nsaddr?nofix=1 HTTP/1.1\r\nHost: x\r\n\r\n")
    assert ok.startswith(b"HTTP/1.1 200 ") and ok.endswith(b"\r\n\r\n" + info["namesrvAddr"].encode())
    assert http(url, b"GET /other HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 404 ")
    assert http(url, b"POST /rocketmq/nsaddr HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 405 ")
    assert http(url, b"\xff\xfe garbage\r\n\r\n").startswith(b"HTTP/1.1 400 ")
    assert http(url, b"GET /rocketmq/nsaddr HTTP/1.1\r\n") == b""  # cut short: closed, nothing else
    assert http(url, b"GET /rocketmq/nsaddr HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 200 ")


def test_tls_without_openssl_is_a_one_line_error(tmp_path):
    """Nothing listens: the error comes before any server starts."""
    env = {"PATH": str(tmp_path), "HOME": str(tmp_path)}
    done = subprocess.run(
        [*MQADMIN, "--tls", "dev", "up", "--namesrv-port", "0", "--broker-port", "0"],  # --tls before the command
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert lines == [
        "mqadmin: error: cannot start with --tls: TLS needs the openssl command to make a certificate, "
        "and it is not on PATH",
        "  hint: install openssl, or start without --tls",
    ]


# --- permissive: TLS and plain TCP on the same ports ---------------------------------------------


@pytest.fixture(scope="module")
def permissive(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Proc, dict]]:
    data = tmp_path_factory.mktemp("dev-permissive")
    p, info = start_dev(
        "up", "--tls-mode", "permissive", "--frame-timeout", "1", "--namesrv-port", "0", "--broker-port", "0",
        "--data-dir", str(data),
    )  # fmt: skip
    yield p, info
    assert p.stop() == 0


def test_permissive_serves_tls_and_plain_clients_alike(permissive):
    _, info = permissive
    assert info["tlsMode"] == "permissive"
    expected = {b["name"]: b["addr"] for b in info["brokers"]}
    assert cluster_brokers(info) == expected  # TLS, and the brokers registered over TLS

    plain = cli("--format", "json", "updateTopic", "-n", info["namesrvAddr"], "-c", "DefaultCluster", "-t", "Mixed")
    assert plain.returncode == 0, plain.stderr
    assert sorted(r["status"] for r in json.loads(plain.stdout)["results"]) == ["created", "created"]
    done = cli("--format", "json", "topicRoute", "-n", info["namesrvAddr"], *tls_args(info), "-t", "Mixed")
    assert done.returncode == 0, done.stderr
    assert sorted(q["broker"] for q in json.loads(done.stdout)["queues"]) == ["broker-a", "broker-b"]


def test_permissive_drops_silent_and_broken_clients_only(permissive):
    p, info = permissive
    for addr in (info["namesrvAddr"], info["brokers"][0]["addr"]):
        host, port = addr.rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=30) as silent:  # sends nothing: closed after
            assert silent.recv(1) == b""  # --frame-timeout
        with socket.create_connection((host, int(port)), timeout=30) as broken:
            broken.sendall(b"\x16\x03\x01\x00\x05hello")
            broken.shutdown(socket.SHUT_WR)
            assert broken.recv(4096) == b""
    assert p.p.poll() is None
    assert cluster_brokers(info) == {b["name"]: b["addr"] for b in info["brokers"]}
