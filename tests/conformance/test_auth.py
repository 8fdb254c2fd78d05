"""Against Apache RocketMQ with ACL 2.0 authentication and authorization on (5.3.3; 5.5.0 once the harness has
it): our CLI with the right keys runs the core commands and the user/ACL commands, the Java mqadmin of the
same version sees the users and policies ours created, a wrong key and a user without permission are
refused with exit 5, the JSON documents are the ones docs/commands/auth.md shows, and no output contains a
secret. The servers also run TLS in permissive mode, so plaintext and TLS both reach them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_json_contract import assert_contract
from tests.cli_output import document
from tests.conformance.backends import Backend
from tests.conformance.secured import (
    SECURED_VERSIONS,
    SUPER_USER,
    SecuredCluster,
    TlsSetup,
    secured_cluster,
    version_skip_reason,
)
from tests.conftest import wait_until
from tests.tlscerts import make_certs
from tests.tlscerts import skip_reason as certs_skip_reason

pytestmark = [pytest.mark.conformance, pytest.mark.timeout(1200)]  # a secured cluster starts slowly on a busy machine

ROOT, ROOT_SECRET = SUPER_USER


@dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return document(self.code, self.out, self.err)

    def assert_no_secret(self, *secrets: str) -> None:
        for s in secrets:
            assert s not in self.out and s not in self.err


def mq(*args: str, env: dict[str, str] | None = None, stdin: str | None = None) -> Run:
    """Our CLI as a process; credentials only from ``env`` (nothing of the test runner's own)."""
    base = {k: v for k, v in os.environ.items() if k not in ("NAMESRV_ADDR", "NO_COLOR")}
    done = subprocess.run(
        [sys.executable, "-m", "mqadmin", *args],
        capture_output=True, text=True, env={**base, **(env or {})}, input=stdin, timeout=120,
    )  # fmt: skip
    return Run(done.returncode, done.stdout, done.stderr)


def as_user(user: str, secret: str) -> dict[str, str]:
    return {"ROCKETMQ_ACCESS_KEY": user, "ROCKETMQ_SECRET_KEY": secret}


ROOT_ENV = as_user(ROOT, ROOT_SECRET)


@pytest.fixture(scope="module", params=SECURED_VERSIONS)
def secured(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecuredCluster]:
    reason = version_skip_reason(request.param) or certs_skip_reason()
    if reason:
        pytest.skip(reason)
    work = tmp_path_factory.mktemp(f"secured-{request.param}")
    tls = TlsSetup(make_certs(work / "certs"), mode="permissive")
    with secured_cluster(request.param, work, auth=True, tls=tls, brokers=2) as cluster:
        yield cluster


def n(c: SecuredCluster) -> list[str]:
    return ["-n", c.namesrv_addr]


def new_name(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:8]}"


def test_core_commands_with_the_right_keys(secured: SecuredCluster) -> None:
    topic = new_name("Orders_")
    c = ["-c", secured.cluster]
    for args in (
        ["clusterList"],
        ["brokerStatus", *c],
        ["updateTopic", *c, "-t", topic],
        ["topicRoute", "-t", topic],
        ["topicStatus", "-t", topic],
        ["sendMessage", "-t", topic, "-p", "hello"],
        ["consumeMessage", "-t", topic, "-c", "1"],
        ["topicList"],
    ):
        r = mq(*args, *n(secured), "--debug", env=ROOT_ENV)
        assert r.code == 0, (args, r.err)
        assert "Signature=***" in r.err
        r.assert_no_secret(ROOT_SECRET)
    java = secured.java_output(["topicRoute", "-t", topic])
    assert "broker-a" in java and "broker-b" in java, java
    assert mq("deleteTopic", *n(secured), *c, "-t", topic, env=ROOT_ENV).code == 0


def test_tls_and_plaintext_both_reach_permissive_servers(secured: SecuredCluster) -> None:
    assert secured.tls is not None
    plain = mq("clusterList", *n(secured), env=ROOT_ENV)
    tls = mq("clusterList", *n(secured), "--tls-ca", str(secured.tls.certs.ca), env=ROOT_ENV)
    assert plain.code == 0 and tls.code == 0, plain.err + tls.err
    for out in (plain.out, tls.out):
        assert "broker-a" in out and "broker-b" in out


@pytest.mark.parametrize(
    ("env", "reason", "hint"),
    [
        (as_user(ROOT, "wrong-secret"), "check signature failed", f"did not accept access key '{ROOT}'"),
        (as_user("nobody", "x"), "User:nobody is not found", "did not accept access key 'nobody'"),
        ({}, "username cannot be null", "the broker requires credentials"),
    ],
)
def test_refused_credentials_exit_5(secured: SecuredCluster, env: dict[str, str], reason: str, hint: str) -> None:
    r = mq("updateTopic", *n(secured), "-c", secured.cluster, "-t", new_name("Refused_"), env=env)
    assert r.code == 5, r.out + r.err
    assert reason in r.out and hint in r.err
    r.assert_no_secret("wrong-secret", ROOT_SECRET)
    single = mq("brokerStatus", *n(secured), "-b", secured.brokers["broker-a"], env=env)
    assert single.code == 5 and reason in single.err


def test_a_user_without_permission_is_refused_exit_5(secured: SecuredCluster) -> None:
    user, secret = new_name("reader"), "reader-Secret-1"
    c = ["-c", secured.cluster]
    assert mq("createUser", *n(secured), *c, "-u", user, "--password-stdin", env=ROOT_ENV, stdin=secret).code == 0
    topic = new_name("Readable_")
    assert mq("updateTopic", *n(secured), *c, "-t", topic, env=ROOT_ENV).code == 0
    grant = ["-s", f"User:{user}", "-r", f"Topic:{topic}", "-a", "Sub,Get", "-d", "Allow"]
    assert mq("createAcl", *n(secured), *c, *grant, env=ROOT_ENV).code == 0
    r = mq("updateTopic", *n(secured), *c, "-t", new_name("NotAllowed_"), env=as_user(user, secret))
    assert r.code == 5, r.out + r.err
    assert "has no permission to access" in r.out and f"user '{user}'" in r.err
    r = mq("sendMessage", *n(secured), "-t", topic, "-p", "x", env=as_user(user, secret))
    assert r.code == 5 and "has no permission" in r.err
    r.assert_no_secret(secret)


def test_user_and_acl_commands_seen_by_java_mqadmin(secured: SecuredCluster) -> None:
    user, secret = new_name("alice"), "alice-Secret-1"
    a, b = secured.brokers["broker-a"], secured.brokers["broker-b"]
    c = ["-c", secured.cluster]

    def ours(name: str, *args: str, stdin: str | None = None) -> Any:
        r = mq(name, *n(secured), *args, "--format", "json", env=ROOT_ENV, stdin=stdin)
        assert r.code == 0, (name, r.out, r.err)
        r.assert_no_secret(secret, ROOT_SECRET)
        doc = r.json()
        assert_contract(name, doc)
        return doc

    def java(*args: str) -> str:
        return secured.java_output(args)

    created = ours("createUser", *c, "-u", user, "--password-stdin", stdin=secret)
    assert [x["status"] for x in created["results"]] == ["created", "created"]
    for broker in (a, b):
        row = next(line.split() for line in java("getUser", "-b", broker, "-u", user).splitlines() if user in line)
        assert row == [user, secret, "Normal", "enable"]  # Java prints the password; ours never does
    assert [x["status"] for x in ours("createUser", *c, "-u", user, "--password-stdin", stdin=secret)["results"]] == [
        "unchanged",
        "unchanged",
    ]
    ours("updateUser", "-b", a, "-u", user, "-s", "disable")
    assert f"{user}" in java("listUser", "-b", a) and "disable" in java("getUser", "-b", a, "-u", user)
    listed = ours("listUser", *c, "-f", user)
    assert {x["users"][0]["userStatus"] for x in listed["brokers"]} == {"disable", "enable"}

    ours("createAcl", *c, "-s", f"User:{user}", "-r", "Topic:Orders,Group:billing", "-a", "Pub,Sub", "-d", "Allow",
         "-i", "127.0.0.1,10.0.0.0/8")  # fmt: skip
    updated = ours("updateAcl", "-b", a, "-s", f"User:{user}", "-r", "Topic:Orders", "-a", "Sub", "-d", "Deny")
    assert updated["results"][0]["changes"] == {
        "Topic:Orders": {"old": "Pub,Sub Allow from 127.0.0.1,10.0.0.0/8", "new": "Sub Deny"}
    }
    java_acl = java("getAcl", "-b", a, "-s", f"User:{user}")
    orders = next(line for line in java_acl.splitlines() if "Topic:Orders" in line)
    assert "Deny" in orders and "Sub" in orders
    assert "Group:billing" in java_acl and "10.0.0.0/8" in java_acl
    got = ours("getAcl", *c, "-s", f"User:{user}")
    assert {e["resource"] for br in got["brokers"] for p in br["acl"]["policies"] for e in p["entries"]} == {
        "Topic:Orders",
        "Group:billing",
    }
    assert user in json.dumps(ours("listAcl", "-b", b, "-s", user))
    ours("deleteAcl", "-b", a, "-s", f"User:{user}", "-r", "Group:billing")
    assert "Group:billing" not in java("getAcl", "-b", a, "-s", f"User:{user}")

    ours("deleteUser", "-b", b, "-u", user)
    assert user not in java("listUser", "-b", b)
    copied = ours("copyUser", "-f", a, "-t", b, "-u", user)
    assert copied["results"][0]["status"] == "created"
    row = next(line.split() for line in java("getUser", "-b", b, "-u", user).splitlines() if user in line)
    assert row == [user, secret, "Normal", "disable"]  # the password came along
    ours("copyAcl", "-f", a, "-t", b, "-s", f"User:{user}")
    assert "Topic:Orders" in java("getAcl", "-b", b, "-s", f"User:{user}")

    deleted = ours("deleteUser", *c, "-u", user)
    assert [x["status"] for x in deleted["results"]] == ["deleted", "deleted"]
    assert user not in java("listUser", "-b", a) + java("listUser", "-b", b)


def test_java_created_users_are_seen_and_secrets_are_never_shown(secured: SecuredCluster) -> None:
    user = new_name("bob")
    a = secured.brokers["broker-a"]
    create = ["createUser", "-b", a, "-u", user, "-p", "bob-Secret-9", "-t", "Super"]

    def java_created() -> bool:  # again after a client-side timeout; "existed" means an earlier try got through
        done = secured.java_mqadmin(create)
        return "success" in done.stdout or "The user is existed" in done.stdout + done.stderr

    wait_until(java_created, timeout=300, interval=1, what=f"Java mqadmin creating {user}")
    r = mq("getUser", *n(secured), "-b", a, "-u", user, "--debug", env=ROOT_ENV)
    assert r.code == 0 and user in r.out and "Super" in r.out
    r.assert_no_secret("bob-Secret-9", ROOT_SECRET)
    assert mq("deleteUser", *n(secured), "-b", a, "-u", user, env=ROOT_ENV).code == 0


def test_profile_flow_on_a_secured_cluster(secured: SecuredCluster, tmp_path: Path) -> None:
    """The issue's "done" flow: a profile with the credentials (secret from a command) and TLS, then a topic."""
    assert secured.tls is not None
    secret_file = tmp_path / "root.secret"
    secret_file.write_text(ROOT_SECRET + "\n")
    secret_file.chmod(0o600)
    created = mq("profile", "create", "prod", "-n", secured.namesrv_addr, "--access-key", ROOT,
                 "--secret-command", f"cat {secret_file}", "--tls-ca", str(secured.tls.certs.ca), "--use")  # fmt: skip
    assert created.code == 0, created.err
    created.assert_no_secret(ROOT_SECRET)
    topic = new_name("Orders_")
    r = mq("--profile", "prod", "updateTopic", "-c", secured.cluster, "-t", topic)
    assert r.code == 0, r.err
    assert r.out.count("created") == 2
    wait_until(lambda: topic in secured.java_mqadmin(["topicList"]).stdout, timeout=60, interval=1, what=topic)
    shown = mq("profile", "show", "--resolved")
    assert shown.code == 0 and "*** (secret_command)" in shown.out
    shown.assert_no_secret(ROOT_SECRET)


def test_brokers_without_acl_2_are_named(backend: Backend) -> None:
    """Apache 5.3 without authentication, 4.9, and the embedded broker: a clear error, exit 1."""
    r = mq("listUser", "-n", backend.namesrv_addr, "-c", backend.cluster, env=ROOT_ENV)
    assert r.code == 1, r.out + r.err
    assert "ACL 2.0 is not enabled on" in r.err and "authenticationEnabled=true" in r.err
