"""The user and ACL commands against the embedded ACL 2.0 brokers (one cluster for the module, run as its Super
user): options and checks, per-broker rows, reading before writing (unchanged on a re-run), JSON documents as
docs/commands/auth.md shows them, passwords never shown, refusals exiting 5; brokers without ACL 2.0 (scripted
answers: the embedded brokers always have it) named as such."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator

import pytest

from mqadmin.model.auth import AclInfo, UserInfo
from mqadmin.model.route import BrokerData, ClusterInfo
from mqadmin.model.rpc import auth as auth_rpc
from mqadmin.model.rpc import namesrv
from mqadmin.server.auth.config import AuthSettings
from mqadmin.server.auth.store import AuthStore
from mqadmin.wire.codes import ResponseCode
from tests.cli.test_json_contract import assert_contract
from tests.embedded import ThreadedCluster
from tests.mock_transport import MockTransport, ok, refuse, routes
from tests.unit.cli_helpers import Cli, assert_one_line_error

SECRET = "s3cret-Passw0rd"
ADMIN_SECRET = "admin-Secret-1"


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadedCluster]:
    admin = UserInfo("admin", ADMIN_SECRET, "Super", "enable")
    with ThreadedCluster(tmp_path_factory.mktemp("auth"), auth=AuthSettings((admin,))) as c:
        yield c


class Broker:
    """One embedded broker's name, address and ACL 2.0 store (read and set between commands)."""

    def __init__(self, embedded: ThreadedCluster, name: str) -> None:
        self.embedded, self.name, self.addr = embedded, name, embedded.addr[name]

    @property
    def store(self) -> AuthStore:
        store = self.embedded.broker(self.name).auth
        assert store is not None
        return store

    def user(self, name: str) -> UserInfo | None:
        return self.embedded.call(lambda: self.store.user(name))

    def acl(self, subject: str) -> AclInfo | None:
        return self.embedded.call(lambda: self.store.acl(subject))

    def add_user(self, user: UserInfo) -> None:
        self.embedded.call(lambda: self.store.create_user(user))

    def add_acl(self, acl: AclInfo) -> None:
        self.embedded.call(lambda: self.store.put_acl(acl))


@pytest.fixture
def cluster(embedded, monkeypatch, capsys):
    cli = Cli(monkeypatch, capsys, namesrvs=[embedded.namesrv_addr])
    monkeypatch.setenv("ROCKETMQ_ACCESS_KEY", "admin")
    monkeypatch.setenv("ROCKETMQ_SECRET_KEY", ADMIN_SECRET)
    return cli, Broker(embedded, "broker-a"), Broker(embedded, "broker-b")


@pytest.fixture
def pwfile(tmp_path):
    path = tmp_path / "pw"
    path.write_text(SECRET + "\n")
    path.chmod(0o600)
    return str(path)


def test_create_user_on_every_broker_then_unchanged(cluster, pwfile) -> None:
    cli, a, b = cluster
    r = cli("createUser", "-c", "DefaultCluster", "-u", "alice1", "--password-file", pwfile)
    assert r.code == 0, r.err
    assert [line.split()[2] for line in r.out.splitlines()[1:]] == ["created", "created"]
    assert a.user("alice1") == UserInfo("alice1", SECRET, "Normal", "enable") == b.user("alice1")
    again = cli("createUser", "-c", "DefaultCluster", "-u", "alice1", "--password-file", pwfile)
    assert again.code == 0 and again.out.count("unchanged") == 2
    assert SECRET not in r.out + r.err + again.out + again.err


def test_create_user_that_exists_with_other_settings_fails_there(cluster, pwfile) -> None:
    cli, a, b = cluster
    a.add_user(UserInfo("alice2", "other", "Normal", "enable"))
    r = cli("createUser", "-c", "DefaultCluster", "-u", "alice2", "--password-file", pwfile)
    assert r.code == 3, r.err
    assert "exists with other settings" in r.out and "created" in r.out
    assert a.user("alice2").password == "other"
    assert b.user("alice2") == UserInfo("alice2", SECRET, "Normal", "enable")


def test_password_sources(cluster, monkeypatch, pwfile) -> None:
    cli, a, _ = cluster
    monkeypatch.setattr(sys, "stdin", io.StringIO(SECRET + "\nsecond line\n"))
    r = cli("createUser", "-b", a.addr, "-u", "bob3", "--password-stdin", "-t", "super")
    assert r.code == 0, r.err
    assert a.user("bob3") == UserInfo("bob3", SECRET, "Super", "enable")
    r = cli("createUser", "-b", a.addr, "-u", "carol3", "-p", SECRET)
    assert r.code == 0 and "shell history" in r.err and SECRET not in r.out + r.err
    r = cli("createUser", "-b", a.addr, "-u", "dave3", "-p", SECRET, "--password-file", pwfile)
    assert r.code == 2 and "give the password once" in r.err and SECRET not in r.err
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    r = cli("createUser", "-b", a.addr, "-u", "erin3")
    assert r.code == 2
    assert_one_line_error(r, "no password given and stdin is not a terminal", "--password-file")
    assert a.user("dave3") is None and a.user("erin3") is None


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["createUser", "-u", "x", "-t", "Supper", "-p", "pw"], "-t: 'Supper' is not a known user type"),
        (["updateUser", "-u", "x", "-s", "off"], "-s: 'off' is not a known user status"),
        (["createAcl", "-s", "alice", "-r", "Topic:T", "-a", "Pub", "-d", "Allow"], "write User:NAME"),
        (["createAcl", "-s", "User:a", "-r", "Topik:T", "-a", "Pub", "-d", "Allow"], "'Topik' is not a known resource"),
        (["createAcl", "-s", "User:a", "-r", "Topic:T", "-a", "Publish", "-d", "Allow"], "'Publish' is not a known"),
        (["createAcl", "-s", "User:a", "-r", "Topic:T", "-a", "Pub", "-d", "Permit"], "'Permit' is not a known"),
        (["updateAcl", "-s", "User:a", "-r", "Topic:T", "-a", "Pub", "-d", "Allow", "-i", "10.0.0.300"], "CIDR"),
        (["deleteAcl", "-s", "User:a", "-r", "Topic"], "is not a resource"),
    ],
)
def test_bad_values_are_usage_errors_before_anything_is_sent(monkeypatch, capsys, args, fragment) -> None:
    transport = MockTransport(routes({}))
    cli = Cli(monkeypatch, capsys, namesrvs=["127.0.0.1:9876"], transport=transport)
    r = cli(*args, "-b", "127.0.0.1:10911")
    assert r.code == 2
    assert_one_line_error(r, fragment)
    assert transport.sent == []


def test_update_user_changes_only_what_is_given(cluster) -> None:
    cli, a, b = cluster
    for broker in (a, b):
        broker.add_user(UserInfo("alice5", SECRET, "Normal", "enable"))
    r = cli("updateUser", "-c", "DefaultCluster", "-u", "alice5", "-s", "disable", "--format", "json")
    assert r.code == 0, r.err
    doc = r.json()
    assert [x["changes"] for x in doc["results"]] == [{"userStatus": {"old": "enable", "new": "disable"}}] * 2
    assert a.user("alice5") == UserInfo("alice5", SECRET, "Normal", "disable")
    r = cli("updateUser", "-c", "DefaultCluster", "-u", "alice5", "-p", "new-one")
    assert "password ***→***" in r.out and "new-one" not in r.out + r.err.replace("-p puts", "")
    assert a.user("alice5").password == "new-one"
    r = cli("updateUser", "-b", a.addr, "-u", "nobody", "-t", "Super")
    assert r.code == 1 and "no user nobody" in r.out


def test_delete_user_dry_run_then_for_real(cluster) -> None:
    cli, a, b = cluster
    a.add_user(UserInfo("alice6", SECRET, "Normal", "enable"))
    r = cli("deleteUser", "-c", "DefaultCluster", "-u", "alice6", "--dry-run")
    assert r.code == 0 and "deleted" in r.out and "not found" in r.out
    assert a.user("alice6") is not None
    r = cli("deleteUser", "-c", "DefaultCluster", "-u", "alice6")
    assert r.code == 0 and a.user("alice6") is None


def test_reads_never_show_passwords(cluster) -> None:
    cli, a, b = cluster
    for broker in (a, b):
        broker.add_user(UserInfo("alice7", SECRET, "Super", "enable"))
    for args in (["getUser", "-u", "alice7"], ["listUser"], ["listUser", "-f", "ali"]):
        for fmt in ("table", "json"):
            r = cli(*args, "-c", "DefaultCluster", "--format", fmt, "--debug")
            assert r.code == 0, r.err
            assert "alice7" in r.out and SECRET not in r.out + r.err and ADMIN_SECRET not in r.out + r.err
    assert cli("getUser", "-c", "DefaultCluster", "-u", "nobody").code == 1


def test_acl_created_unchanged_updated_and_deleted(cluster) -> None:
    cli, a, b = cluster
    for broker in (a, b):
        broker.add_user(UserInfo("alice8", SECRET))
    create = ["createAcl", "-c", "DefaultCluster", "-s", "User:alice8", "-r", "Topic:Orders,Group:g", "-a", "pub,Sub"]
    r = cli(*create, "-d", "allow")
    assert r.code == 0 and r.out.count("created") == 2, r.out + r.err
    entry = a.acl("User:alice8").policies[0].entries[0]
    assert (entry.resource, entry.actions, entry.decision) == ("Topic:Orders", ("Pub", "Sub"), "Allow")
    assert cli(*create, "-d", "Allow").out.count("unchanged") == 2
    r = cli("updateAcl", "-b", a.addr, "-s", "User:alice8", "-r", "Topic:Orders", "-a", "Sub", "-d", "Deny")
    assert r.code == 0 and "Topic:Orders Pub,Sub Allow→Sub Deny" in r.out
    r = cli("deleteAcl", "-b", a.addr, "-s", "User:alice8", "-r", "Group:g", "--format", "json")
    assert r.json()["results"][0]["changes"] == {"Group:g": {"old": "Pub,Sub Allow", "new": None}}
    assert [e.resource for e in a.acl("User:alice8").policies[0].entries] == ["Topic:Orders"]
    r = cli("deleteAcl", "-c", "DefaultCluster", "-s", "User:alice8")
    assert r.code == 0 and a.acl("User:alice8") is None and b.acl("User:alice8") is None
    assert cli("deleteAcl", "-c", "DefaultCluster", "-s", "User:alice8").out.count("not found") == 2


def test_acl_for_a_missing_user_fails_on_that_broker(cluster) -> None:
    cli, a, b = cluster
    a.add_user(UserInfo("alice9", SECRET))
    r = cli("createAcl", "-c", "DefaultCluster", "-s", "User:alice9", "-r", "Topic:T", "-a", "Pub", "-d", "Allow")
    assert r.code == 3  # a broker's error answer with code 16, not a refusal of the credentials (5)
    assert "NO_PERMISSION (16): The subject of User:alice9 is not exist." in r.out
    assert a.acl("User:alice9") is not None and b.acl("User:alice9") is None


def test_copy_users_and_acls(cluster) -> None:
    cli, a, b = cluster
    a.add_user(UserInfo("alice10", SECRET, "Normal", "enable"))
    a.add_user(UserInfo("bob10", "pw2", "Super", "enable"))
    b.add_user(UserInfo("bob10", "old", "Super", "enable"))
    a.add_acl(AclInfo.of("User:alice10", ["Topic:T"], ["Pub"], "Allow"))
    r = cli("copyUser", "-f", a.addr, "-t", b.addr)
    assert r.code == 0, r.err
    assert "USER" in r.out.splitlines()[0] and "created" in r.out and "updated" in r.out
    copied = a.embedded.call(lambda: list(a.store.users.values()))
    assert [b.user(u.username) for u in copied] == copied and SECRET not in r.out + r.err
    r = cli("copyAcl", "-f", a.addr, "-t", b.addr, "-s", "User:alice10")
    assert r.code == 0 and "created" in r.out
    assert b.acl("User:alice10").policies[0].entries == a.acl("User:alice10").policies[0].entries
    assert "unchanged" in cli("copyUser", "-f", a.addr, "-t", b.addr, "-u", "alice10").out


def test_refused_credentials_exit_5_with_a_hint(cluster, monkeypatch) -> None:
    cli, a, b = cluster
    monkeypatch.setenv("ROCKETMQ_ACCESS_KEY", "ops")
    monkeypatch.setenv("ROCKETMQ_SECRET_KEY", SECRET)
    r = cli("listUser", "-c", "DefaultCluster")
    assert r.code == 5
    assert "access key 'ops' (from environment ($ROCKETMQ_ACCESS_KEY))" in r.err and SECRET not in r.err
    assert "User:ops is not found." in r.err + r.out
    r = cli("updateTopic", "-b", a.addr, "-t", "Orders")
    assert r.code == 5 and "refused on every target" in r.err
    a.add_user(UserInfo("ops", SECRET, "Super", "enable"))  # known to broker-a only
    r = cli("listUser", "-c", "DefaultCluster")
    assert r.code == 3  # one refused, one answered: partial


def test_a_single_refusal_exits_5(cluster, monkeypatch) -> None:
    cli, a, _ = cluster
    monkeypatch.delenv("ROCKETMQ_ACCESS_KEY")
    monkeypatch.delenv("ROCKETMQ_SECRET_KEY")
    r = cli("brokerStatus", "-b", a.addr)
    assert r.code == 5
    assert_one_line_error(r, "NO_PERMISSION (16): username cannot be null.", "the broker requires credentials")


def test_brokers_without_acl_2_are_named(monkeypatch, capsys) -> None:
    a, b = "127.0.0.1:10911", "127.0.0.1:10921"
    info = ClusterInfo(
        {"broker-a": BrokerData("DefaultCluster", "broker-a", {0: a}),
         "broker-b": BrokerData("DefaultCluster", "broker-b", {0: b})},
        {"DefaultCluster": ["broker-a", "broker-b"]},
    )  # fmt: skip

    def list_users(req, addr):
        if addr == a:  # a 5.x broker without authenticationEnabled
            return refuse(ResponseCode.SYSTEM_ERROR, "An system error occurred, please try again later.")
        return refuse(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, " request type 3005 not supported", version=409)

    transport = MockTransport(routes({namesrv.GET_BROKER_CLUSTER_INFO: ok(info), auth_rpc.AUTH_LIST_USER: list_users}))
    r = Cli(monkeypatch, capsys, namesrvs=["127.0.0.1:9876"], transport=transport)("listUser", "-c", "DefaultCluster")
    assert r.code == 1
    assert f"ACL 2.0 is not enabled on {a} (it answered SYSTEM_ERROR (1)" in r.err
    assert f"ACL 2.0 is not enabled on {b}" in r.err
    assert "authenticationEnabled=true" in r.err  # the hint says what to set


AUTH_CASES = {
    "createUser": ["-c", "DefaultCluster", "-u", "u1", "-p", "pw"],
    "updateUser": ["-c", "DefaultCluster", "-u", "u1", "-s", "disable"],
    "getUser": ["-c", "DefaultCluster", "-u", "u1"],
    "listUser": ["-c", "DefaultCluster"],
    "createAcl": ["-c", "DefaultCluster", "-s", "User:u1", "-r", "Topic:T", "-a", "Pub", "-d", "Allow"],
    "updateAcl": ["-c", "DefaultCluster", "-s", "User:u1", "-r", "Topic:T", "-a", "Sub", "-d", "Deny"],
    "getAcl": ["-c", "DefaultCluster", "-s", "User:u1"],
    "listAcl": ["-c", "DefaultCluster"],
    "copyUser": ["-f", "{a}", "-t", "{b}"],
    "copyAcl": ["-f", "{a}", "-t", "{b}"],
    "deleteAcl": ["-c", "DefaultCluster", "-s", "User:u1", "-r", "Topic:T"],
    "deleteUser": ["-c", "DefaultCluster", "-u", "u1"],
}
"""Run in this order: the user exists for the ACL commands until deleteUser."""


def test_json_documents_match_docs(cluster) -> None:
    cli, a, b = cluster
    for name, args in AUTH_CASES.items():
        r = cli(name, *(x.format(a=a.addr, b=b.addr) for x in args), "--format", "json")
        assert r.code == 0, (name, r.err)
        assert_contract(name, r.json())
