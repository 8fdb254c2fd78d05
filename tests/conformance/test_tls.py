"""Against Apache RocketMQ name server and broker with TLS enforcing and client certificates required (mutual
TLS), and ACL 2.0 on: our CLI reaches them with the CA, its certificate and the keys (flags or a profile),
creates a topic the Java mqadmin (over TLS too) sees, sends and consumes; and each way of getting TLS wrong
is its own clear error."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conformance.secured import (
    SECURED_VERSIONS,
    SUPER_USER,
    SecuredCluster,
    TlsSetup,
    secured_cluster,
    version_skip_reason,
)
from tests.conformance.test_auth import ROOT_ENV, mq, new_name
from tests.tlscerts import make_certs
from tests.tlscerts import skip_reason as certs_skip_reason

pytestmark = [pytest.mark.conformance, pytest.mark.timeout(1200)]  # a secured cluster starts slowly on a busy machine


@pytest.fixture(scope="module", params=SECURED_VERSIONS)
def enforcing(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecuredCluster]:
    reason = version_skip_reason(request.param) or certs_skip_reason()
    if reason:
        pytest.skip(reason)
    work = tmp_path_factory.mktemp(f"tls-{request.param}")
    tls = TlsSetup(make_certs(work / "certs"), mode="enforcing", mutual=True)
    with secured_cluster(request.param, work, auth=True, tls=tls, brokers=1) as cluster:
        yield cluster


def tls_flags(c: SecuredCluster, *, cert: bool = True) -> list[str]:
    assert c.tls is not None
    certs = c.tls.certs
    flags = ["--tls-ca", str(certs.ca)]
    return flags + (["--tls-cert", str(certs.client_cert), "--tls-key", str(certs.client_key)] if cert else [])


def test_profile_with_tls_and_credentials_creates_a_topic(enforcing: SecuredCluster, tmp_path: Path) -> None:
    assert enforcing.tls is not None
    certs = enforcing.tls.certs
    created = mq("profile", "create", "prod", "-n", enforcing.namesrv_addr, "--access-key", SUPER_USER[0],
                 "--secret-stdin", "--tls", "--tls-ca", str(certs.ca), "--tls-cert", str(certs.client_cert),
                 "--tls-key", str(certs.client_key), stdin=SUPER_USER[1])  # fmt: skip
    assert created.code == 0, created.err
    topic = new_name("Orders_")
    r = mq("--profile", "prod", "updateTopic", "-c", enforcing.cluster, "-t", topic)
    assert r.code == 0, r.err
    assert "created" in r.out
    assert "broker-a" in enforcing.java_output(["topicRoute", "-t", topic])
    listed = mq("--profile", "prod", "topicList")  # over blocking sockets (no asyncio), TLS and signed too
    assert listed.code == 0 and topic in listed.out.split(), listed.err
    assert mq("--profile", "prod", "sendMessage", "-t", topic, "-p", "over-tls").code == 0
    got = mq("--profile", "prod", "consumeMessage", "-t", topic, "-c", "1", "--format", "json")
    assert got.code == 0 and "over-tls" in got.out, got.err
    user = new_name("tlsuser")
    made = mq("--profile", "prod", "createUser", "-c", enforcing.cluster, "-u", user, "--password-stdin", stdin="pw-1")
    assert made.code == 0, made.err
    assert user in enforcing.java_output(["listUser", "-b", enforcing.brokers["broker-a"]])


def test_plaintext_to_an_enforcing_server_says_pass_tls(enforcing: SecuredCluster) -> None:
    r = mq("clusterList", "-n", enforcing.namesrv_addr, env=ROOT_ENV)
    assert r.code == 4
    assert "if it enforces TLS (tls.server.mode=enforcing), pass --tls" in r.err


@pytest.mark.parametrize("command", ["clusterList", "topicList"])  # asyncio, and blocking sockets
def test_each_tls_mistake_is_its_own_error(enforcing: SecuredCluster, command: str) -> None:
    assert enforcing.tls is not None
    n = [command, "-n", enforcing.namesrv_addr]
    no_cert = mq(*n, *tls_flags(enforcing, cert=False), env=ROOT_ENV)
    assert no_cert.code == 4, no_cert.err  # the server requires a client certificate
    wrong_ca = mq(*n, *tls_flags(enforcing), "--tls-ca", str(enforcing.tls.certs.other_ca), env=ROOT_ENV)
    assert wrong_ca.code == 4 and "certificate was not accepted" in wrong_ca.err and "--tls-ca" in wrong_ca.err
    wrong_name = mq(*n, *tls_flags(enforcing), "--tls-server-name", "elsewhere.test", env=ROOT_ENV)
    assert wrong_name.code == 4 and "elsewhere.test" in wrong_name.err
    renamed = mq(*n, *tls_flags(enforcing), "--tls-server-name", "rocketmq.test", env=ROOT_ENV)
    assert renamed.code == 0, renamed.err
    insecure = mq(*n, "--tls-insecure", "--tls-cert", str(enforcing.tls.certs.client_cert),
                  "--tls-key", str(enforcing.tls.certs.client_key), env=ROOT_ENV)  # fmt: skip
    assert insecure.code == 0 and "without verifying server certificates" in insecure.err
