"""``mqadmin dev up --auth FILE`` as a real process, used by the CLI as a real process: ACL 2.0
authentication on the name server and the brokers, authorization on the brokers, and the user/ACL
commands against the embedded brokers (kept across a restart)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.devprocs import start_dev

SUPER_SECRET = "admin-Secret-1"
ALICE_SECRET = "alice-Secret-2"
CAROL_SECRET = "carol-Secret-4"
AUTH = f"""
[[users]]
username = "admin"
password = "{SUPER_SECRET}"
type = "Super"

[[users]]
username = "alice"
password = "{ALICE_SECRET}"

[[users]]
username = "carol"
password = "{CAROL_SECRET}"

[[acls]]
subject = "User:alice"
policies = [{{ resource = "Topic:Orders", actions = ["Pub"], decision = "Allow" }}]

[[acls]]
subject = "User:carol"
policies = [
  {{ resource = "Topic:Ord*", actions = ["Sub", "Get"], decision = "Allow" }},
  {{ resource = "Group:Carol*", actions = ["All"], decision = "Allow" }},
  {{ resource = "Group:CarolNot", actions = ["Sub"], decision = "Deny" }},
]
"""
AUTH_EXIT = 5


def up(data: Path, auth: Path) -> tuple[object, dict]:
    return start_dev("up", "--namesrv-port", "0", "--broker-port", "0", "--data-dir", str(data), "--auth", str(auth))


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    root = tmp_path_factory.mktemp("auth")
    auth = root / "auth.toml"
    auth.write_text(AUTH)
    proc, info = up(root / "data", auth)
    assert info["authEnabled"] is True
    state = info | {"root": root, "auth": auth, "proc": proc}
    yield state
    state["proc"].stop()  # the one running now (a test restarts the cluster)


def mqadmin(
    cluster: dict, *args: str, key: str | None = None, secret: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ROCKETMQ_", "MQADMIN_", "NAMESRV_ADDR"))}
    env |= {"NAMESRV_ADDR": cluster["namesrvAddr"], "MQADMIN_CONFIG": str(cluster["root"] / "none.toml")}
    creds = ["--access-key", key, "--secret-key", secret] if key else []
    cmd = [sys.executable, "-m", "mqadmin", *creds, *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)


def admin(cluster: dict, *args: str) -> subprocess.CompletedProcess[str]:
    return mqadmin(cluster, *args, key="admin", secret=SUPER_SECRET)


def alice(cluster: dict, *args: str) -> subprocess.CompletedProcess[str]:
    return mqadmin(cluster, *args, key="alice", secret=ALICE_SECRET)


def no_secret_in(*results: subprocess.CompletedProcess[str]) -> None:
    for r in results:
        for secret in (SUPER_SECRET, ALICE_SECRET, CAROL_SECRET, "bob-Secret-3"):
            assert secret not in r.stdout and secret not in r.stderr


def test_the_super_user_administers_the_cluster(cluster):
    created = admin(cluster, "--format", "json", "updateTopic", "-c", "DefaultCluster", "-t", "Orders")
    assert created.returncode == 0, created.stderr
    statuses = [r["status"] for r in json.loads(created.stdout)["results"]]
    assert len(statuses) == 2 and set(statuses) <= {"created", "unchanged"}  # unchanged: a retried request
    route = admin(cluster, "--format", "json", "topicRoute", "-t", "Orders")
    assert route.returncode == 0, route.stderr
    assert len(json.loads(route.stdout)["brokers"]) == 2
    listed = admin(cluster, "clusterList")
    assert listed.returncode == 0 and "broker-a" in listed.stdout and "broker-b" in listed.stdout
    traced = admin(cluster, "--debug", "topicRoute", "-t", "Orders")
    assert traced.returncode == 0 and "AccessKey" in traced.stderr
    no_secret_in(created, route, listed, traced)


@pytest.mark.parametrize(
    ("key", "secret", "remark"),
    [
        ("admin", "wrong", "check signature failed."),
        ("nobody", "x", "User:nobody is not found."),
        (None, None, "username cannot be null."),
    ],
)
def test_bad_credentials_are_refused_with_the_auth_exit_code(cluster, key, secret, remark):
    broker_a = cluster["brokers"][0]["addr"]
    single = mqadmin(cluster, "brokerStatus", "-b", broker_a, key=key, secret=secret)
    assert single.returncode == AUTH_EXIT, single.stderr
    error = [line for line in single.stderr.splitlines() if line.startswith("mqadmin: error:")]
    assert len(error) == 1 and f"{broker_a} answered NO_PERMISSION (16): {remark}" in error[0]
    fanout = mqadmin(cluster, "updateTopic", "-c", "DefaultCluster", "-t", "Refused", key=key, secret=secret)
    assert fanout.returncode == AUTH_EXIT
    assert fanout.stdout.count(f"NO_PERMISSION (16): {remark}") == 2  # one row per broker
    assert len([line for line in fanout.stderr.splitlines() if line.startswith("mqadmin: error:")]) == 1
    no_secret_in(single, fanout)


def test_the_name_server_checks_nothing_as_apaches(cluster):
    route = mqadmin(cluster, "--format", "json", "clusterList")  # cluster info from the name server, then the brokers
    assert route.returncode == AUTH_EXIT and "refused on every target" in route.stderr


def test_a_normal_user_may_only_do_what_its_acl_allows(cluster):
    assert admin(cluster, "updateTopic", "-c", "DefaultCluster", "-t", "Orders").returncode == 0
    assert admin(cluster, "updateTopic", "-c", "DefaultCluster", "-t", "Other").returncode == 0
    sent = alice(cluster, "--format", "json", "sendMessage", "-t", "Orders", "-p", "hello")
    assert sent.returncode == 0, sent.stderr
    assert json.loads(sent.stdout)["status"] == "SEND_OK"
    other = alice(cluster, "sendMessage", "-t", "Other", "-p", "hello")
    assert other.returncode == AUTH_EXIT
    assert "User:alice has no permission to access Topic:Other from 127.0.0.1, no matched policies." in other.stderr
    create = alice(cluster, "updateTopic", "-c", "DefaultCluster", "-t", "AliceTopic")
    assert create.returncode == AUTH_EXIT
    assert "no permission to access Topic:AliceTopic" in create.stdout
    users = alice(cluster, "listUser", "-c", "DefaultCluster")
    assert users.returncode == AUTH_EXIT and "Cluster:DefaultCluster" in users.stdout + users.stderr
    no_secret_in(sent, other, create, users)


def test_a_consumer_needs_sub_on_the_topic_and_the_group(cluster):
    assert admin(cluster, "updateTopic", "-c", "DefaultCluster", "-t", "Orders").returncode == 0
    assert alice(cluster, "sendMessage", "-t", "Orders", "-p", "for carol").returncode == 0

    def carol(*args: str) -> subprocess.CompletedProcess[str]:
        return mqadmin(cluster, "--format", "json", *args, key="carol", secret=CAROL_SECRET)

    read = carol("consumeMessage", "-t", "Orders", "-g", "CarolGroup", "-c", "1")
    assert read.returncode == 0, read.stderr
    assert len(json.loads(read.stdout)["messages"]) == 1
    denied = carol("consumeMessage", "-t", "Orders", "-g", "CarolNot", "-c", "1")
    assert denied.returncode == AUTH_EXIT
    assert "access Group:CarolNot from 127.0.0.1, the decision is deny." in denied.stderr
    other = carol("consumeMessage", "-t", "Orders", "-g", "SomeoneElse", "-c", "1")
    assert other.returncode == AUTH_EXIT and "Group:SomeoneElse" in other.stderr
    no_secret_in(read, denied, other)


def test_users_and_acls_are_managed_and_kept_across_a_restart(cluster, tmp_path):
    pw = tmp_path / "bob.pw"
    pw.write_text("bob-Secret-3")
    pw.chmod(0o600)
    steps = [
        admin(cluster, "createUser", "-c", "DefaultCluster", "-u", "bob", "--password-file", str(pw)),
        admin(
            cluster,
            "createAcl",
            "-c",
            "DefaultCluster",
            "-s",
            "User:bob",
            "-r",
            "Topic:Ord*",
            "-a",
            "Pub",
            "-d",
            "Allow",
        ),  # fmt: skip
    ]
    assert [s.returncode for s in steps] == [0, 0], [s.stderr for s in steps]
    bob = mqadmin(cluster, "sendMessage", "-t", "Orders", "-p", "from bob", key="bob", secret="bob-Secret-3")
    assert bob.returncode == 0, bob.stderr
    users = admin(cluster, "--format", "json", "listUser", "-c", "DefaultCluster")
    acls = admin(cluster, "--format", "json", "listAcl", "-c", "DefaultCluster", "-s", "User:bob")
    assert users.returncode == 0 and acls.returncode == 0, users.stderr + acls.stderr
    assert "bob" in users.stdout and "Topic:Ord*" in acls.stdout
    no_secret_in(*steps, bob, users, acls)

    cluster["proc"].stop()
    proc, info = up(cluster["root"] / "data", cluster["auth"])
    cluster.update(info, proc=proc)
    user = admin(cluster, "--format", "json", "getUser", "-c", "DefaultCluster", "-u", "bob")
    assert user.returncode == 0, user.stderr
    assert "Normal" in user.stdout
    bob = mqadmin(cluster, "sendMessage", "-t", "Orders", "-p", "again", key="bob", secret="bob-Secret-3")
    assert bob.returncode == 0, bob.stderr
    gone = admin(cluster, "deleteUser", "-c", "DefaultCluster", "-u", "bob")
    assert gone.returncode == 0, gone.stderr
    refused = mqadmin(cluster, "brokerStatus", "-b", cluster["brokers"][0]["addr"], key="bob", secret="bob-Secret-3")
    assert refused.returncode == AUTH_EXIT and "User:bob is not found." in refused.stderr
    no_secret_in(user, bob, gone, refused)


def test_a_bad_auth_file_stops_dev_up_with_one_line(tmp_path):
    bad = tmp_path / "auth.toml"
    bad.write_text('[[users]]\nusername = "a"\npassword = "p"\n')
    r = subprocess.run(
        [sys.executable, "-m", "mqadmin", "dev", "up", "--namesrv-port", "0", "--broker-port", "0", "--auth", str(bad)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert r.returncode == 2
    error = [line for line in r.stderr.splitlines() if line.startswith("mqadmin: error:")]
    assert len(error) == 1 and f"--auth {bad}: no Super user" in error[0]


@pytest.mark.conformance
def test_real_java_mqadmin_signs_with_aclclientrpchook(cluster):
    """Java mqadmin 5.3.3 (AclClientRPCHook from conf/tools.yml) against ``dev up --auth``."""
    from tests.realrmq import apache

    if (reason := apache.skip_reason()) is not None:
        pytest.skip(reason)
    ns = cluster["namesrvAddr"]

    def java(args: list[str], credentials: tuple[str, str] | None) -> str:
        done = apache.java_mqadmin(apache.V5, args, ns, credentials=credentials)
        return done.stdout + done.stderr

    su = ("admin", SUPER_SECRET)
    assert "broker-a" in java(["clusterList"], su)
    assert java(["updateTopic", "-c", "DefaultCluster", "-t", "JavaOrders"], su).count("success") == 2
    assert "alice" in java(["listUser", "-c", "DefaultCluster"], su)
    create = ["updateTopic", "-b", cluster["brokers"][0]["addr"], "-t", "JavaRefused"]
    assert "CODE: 16  DESC: check signature failed." in java(create, ("admin", "wrong"))
    assert "CODE: 16  DESC: username cannot be null." in java(create, None)
    sent = java(["sendMessage", "-t", "Orders", "-p", "from java"], ("alice", ALICE_SECRET))
    assert "SEND_OK" in sent, sent
    refused = java(["sendMessage", "-t", "JavaOrders", "-p", "from java"], ("alice", ALICE_SECRET))
    assert "User:alice has no permission to access Topic:JavaOrders" in refused, refused
    consume = ["consumeMessage", "-t", "Orders", "-g", "CarolJava", "-c", "64"]
    consumed = java(consume, ("carol", CAROL_SECRET))
    assert "from java" in consumed, consumed
    assert "CODE: 16  DESC: check signature failed." in java(consume, ("carol", "wrong")), "an unsigned pull"


def test_remarks_echo_only_a_short_prefix_of_client_input(cluster):
    """A megabyte AccessKey, or a megabyte where a number belongs, is refused with a remark of a few dozen
    characters of it, not the megabyte."""
    import asyncio

    from mqadmin.model.rpc import messages
    from mqadmin.transport.credentials import Credentials
    from mqadmin.transport.tcp import TcpTransport
    from mqadmin.wire.codes import ResponseCode
    from mqadmin.wire.frame import RemotingCommand

    broker = cluster["brokers"][0]["addr"]
    huge = "k" * (1 << 20)

    async def ask(credentials: Credentials, cmd: RemotingCommand) -> RemotingCommand:
        async with TcpTransport(timeout=60.0, credentials=credentials) as transport:
            return await transport.request(broker, cmd)

    max_offset = messages.GET_MAX_OFFSET.request(messages.QueueHeader(topic="Orders", queue_id=0))
    unknown = asyncio.run(ask(Credentials(huge, "x"), max_offset))
    assert unknown.code == ResponseCode.NO_PERMISSION
    assert unknown.remark == f"User:{'k' * 48}… ({1 << 20} characters) is not found."
    raw = RemotingCommand(code=messages.GET_MAX_OFFSET.code, ext={"topic": "Orders", "queueId": huge})  # no number
    not_a_number = asyncio.run(ask(Credentials("admin", SUPER_SECRET), raw))
    assert not_a_number.code == ResponseCode.SYSTEM_ERROR
    assert not_a_number.remark == f"the custom field <queueId> is not a number: {'k' * 48!r}… ({1 << 20} characters)"
