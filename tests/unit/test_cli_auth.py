"""The user and ACL commands against fake ACL 2.0 brokers: options and checks, per-broker rows, reading
before writing (unchanged on a re-run), JSON documents as docs/commands/auth.md shows them, passwords
never shown, refusals exiting 5 and brokers without ACL 2.0 named as such."""

from __future__ import annotations

import io
import sys

import pytest

from mqadmin.model.auth import AclInfo, UserInfo
from tests.cli.test_json_contract import documented_shapes, mismatch
from tests.unit.cli_helpers import Cli, assert_one_line_error
from tests.unit.fake_acl import acl_cluster

SECRET = "s3cret-Passw0rd"


@pytest.fixture
def cluster(monkeypatch, capsys):
    ns, a, b = acl_cluster()
    return Cli(monkeypatch, capsys, ns, a, b), a, b


@pytest.fixture
def pwfile(tmp_path):
    path = tmp_path / "pw"
    path.write_text(SECRET + "\n")
    path.chmod(0o600)
    return str(path)


def test_create_user_on_every_broker_then_unchanged(cluster, pwfile) -> None:
    cli, a, b = cluster
    r = cli("createUser", "-c", "DefaultCluster", "-u", "alice", "--password-file", pwfile)
    assert r.code == 0, r.err
    assert [line.split()[2] for line in r.out.splitlines()[1:]] == ["created", "created"]
    assert a.users["alice"] == UserInfo("alice", SECRET, "Normal", "enable") == b.users["alice"]
    again = cli("createUser", "-c", "DefaultCluster", "-u", "alice", "--password-file", pwfile)
    assert again.code == 0 and again.out.count("unchanged") == 2
    assert SECRET not in r.out + r.err + again.out + again.err


def test_create_user_that_exists_with_other_settings_fails_there(cluster, pwfile) -> None:
    cli, a, b = cluster
    a.users["alice"] = UserInfo("alice", "other", "Normal", "enable")
    r = cli("createUser", "-c", "DefaultCluster", "-u", "alice", "--password-file", pwfile)
    assert r.code == 3, r.err
    assert "exists with other settings" in r.out and "created" in r.out
    assert a.users["alice"].password == "other"


def test_password_sources(cluster, monkeypatch, pwfile) -> None:
    cli, a, _ = cluster
    monkeypatch.setattr(sys, "stdin", io.StringIO(SECRET + "\nsecond line\n"))
    r = cli("createUser", "-b", a.addr, "-u", "bob", "--password-stdin", "-t", "super")
    assert r.code == 0, r.err
    assert a.users["bob"] == UserInfo("bob", SECRET, "Super", "enable")
    r = cli("createUser", "-b", a.addr, "-u", "carol", "-p", SECRET)
    assert r.code == 0 and "shell history" in r.err and SECRET not in r.out + r.err
    r = cli("createUser", "-b", a.addr, "-u", "dave", "-p", SECRET, "--password-file", pwfile)
    assert r.code == 2 and "give the password once" in r.err and SECRET not in r.err
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    r = cli("createUser", "-b", a.addr, "-u", "erin")
    assert r.code == 2
    assert_one_line_error(r, "no password given and stdin is not a terminal", "--password-file")


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
def test_bad_values_are_usage_errors_before_anything_is_sent(cluster, args, fragment) -> None:
    cli, a, _ = cluster
    r = cli(*args, "-b", a.addr)
    assert r.code == 2
    assert_one_line_error(r, fragment)
    assert cli.transport.sent == []


def test_update_user_changes_only_what_is_given(cluster) -> None:
    cli, a, b = cluster
    a.users["alice"] = b.users["alice"] = UserInfo("alice", SECRET, "Normal", "enable")
    r = cli("updateUser", "-c", "DefaultCluster", "-u", "alice", "-s", "disable", "--format", "json")
    assert r.code == 0, r.err
    doc = r.json()
    assert [x["changes"] for x in doc["results"]] == [{"userStatus": {"old": "enable", "new": "disable"}}] * 2
    assert a.users["alice"] == UserInfo("alice", SECRET, "Normal", "disable")
    r = cli("updateUser", "-c", "DefaultCluster", "-u", "alice", "-p", "new-one")
    assert "password ***→***" in r.out and "new-one" not in r.out + r.err.replace("-p puts", "")
    assert a.users["alice"].password == "new-one"
    r = cli("updateUser", "-b", a.addr, "-u", "nobody", "-t", "Super")
    assert r.code == 1 and "no user nobody" in r.out


def test_delete_user_dry_run_then_for_real(cluster) -> None:
    cli, a, b = cluster
    a.users["alice"] = UserInfo("alice", SECRET, "Normal", "enable")
    r = cli("deleteUser", "-c", "DefaultCluster", "-u", "alice", "--dry-run")
    assert r.code == 0 and "deleted" in r.out and "not found" in r.out
    assert "alice" in a.users
    r = cli("deleteUser", "-c", "DefaultCluster", "-u", "alice")
    assert r.code == 0 and "alice" not in a.users


def test_reads_never_show_passwords(cluster) -> None:
    cli, a, b = cluster
    a.users["alice"] = b.users["alice"] = UserInfo("alice", SECRET, "Super", "enable")
    for args in (["getUser", "-u", "alice"], ["listUser"], ["listUser", "-f", "ali"]):
        for fmt in ("table", "json"):
            r = cli(*args, "-c", "DefaultCluster", "--format", fmt, "--debug")
            assert r.code == 0, r.err
            assert "alice" in r.out and SECRET not in r.out + r.err
    assert cli("getUser", "-c", "DefaultCluster", "-u", "nobody").code == 1


def test_acl_created_unchanged_updated_and_deleted(cluster) -> None:
    cli, a, b = cluster
    a.users["alice"] = b.users["alice"] = UserInfo("alice", SECRET)
    create = ["createAcl", "-c", "DefaultCluster", "-s", "User:alice", "-r", "Topic:Orders,Group:g", "-a", "pub,Sub"]
    r = cli(*create, "-d", "allow")
    assert r.code == 0 and r.out.count("created") == 2, r.out + r.err
    entry = a.acls["User:alice"].policies[0].entries[0]
    assert (entry.resource, entry.actions, entry.decision) == ("Topic:Orders", ("Pub", "Sub"), "Allow")
    assert cli(*create, "-d", "Allow").out.count("unchanged") == 2
    r = cli("updateAcl", "-b", a.addr, "-s", "User:alice", "-r", "Topic:Orders", "-a", "Sub", "-d", "Deny")
    assert r.code == 0 and "Topic:Orders Pub,Sub Allow→Sub Deny" in r.out
    r = cli("deleteAcl", "-b", a.addr, "-s", "User:alice", "-r", "Group:g", "--format", "json")
    assert r.json()["results"][0]["changes"] == {"Group:g": {"old": "Pub,Sub Allow", "new": None}}
    assert [e.resource for e in a.acls["User:alice"].policies[0].entries] == ["Topic:Orders"]
    r = cli("deleteAcl", "-c", "DefaultCluster", "-s", "User:alice")
    assert r.code == 0 and "User:alice" not in a.acls and "User:alice" not in b.acls
    assert cli("deleteAcl", "-c", "DefaultCluster", "-s", "User:alice").out.count("not found") == 2


def test_acl_for_a_missing_user_fails_on_that_broker(cluster) -> None:
    cli, a, b = cluster
    a.users["alice"] = UserInfo("alice", SECRET)
    r = cli("createAcl", "-c", "DefaultCluster", "-s", "User:alice", "-r", "Topic:T", "-a", "Pub", "-d", "Allow")
    assert r.code == 3  # a broker's error answer with code 16, not a refusal of the credentials (5)
    assert "NO_PERMISSION (16): The subject of User:alice is not exist." in r.out


def test_copy_users_and_acls(cluster) -> None:
    cli, a, b = cluster
    a.users["alice"] = UserInfo("alice", SECRET, "Normal", "enable")
    a.users["bob"] = UserInfo("bob", "pw2", "Super", "enable")
    b.users["bob"] = UserInfo("bob", "old", "Super", "enable")
    a.acls["User:alice"] = AclInfo.of("User:alice", ["Topic:T"], ["Pub"], "Allow")
    r = cli("copyUser", "-f", a.addr, "-t", b.addr)
    assert r.code == 0, r.err
    assert "USER" in r.out.splitlines()[0] and "created" in r.out and "updated" in r.out
    assert b.users == a.users and SECRET not in r.out + r.err
    r = cli("copyAcl", "-f", a.addr, "-t", b.addr, "-s", "User:alice")
    assert r.code == 0 and "created" in r.out
    assert b.acls["User:alice"].policies[0].entries == a.acls["User:alice"].policies[0].entries
    assert "unchanged" in cli("copyUser", "-f", a.addr, "-t", b.addr, "-u", "alice").out


def test_refused_credentials_exit_5_with_a_hint(cluster, monkeypatch) -> None:
    cli, a, b = cluster
    monkeypatch.setenv("ROCKETMQ_ACCESS_KEY", "ops")
    monkeypatch.setenv("ROCKETMQ_SECRET_KEY", SECRET)
    a.refuse = b.refuse = (16, "check signature failed.")
    r = cli("listUser", "-c", "DefaultCluster")
    assert r.code == 5
    assert "access key 'ops' (from environment ($ROCKETMQ_ACCESS_KEY))" in r.err and SECRET not in r.err
    r = cli("updateTopic", "-b", a.addr, "-t", "Orders")
    assert r.code == 5 and "refused on every target" in r.err
    a.refuse = (16, "User:ops has no permission to access Topic:Orders from 127.0.0.1, DENY by default")
    b.refuse = None
    b.users["x"] = UserInfo("x", "y")
    r = cli("listUser", "-c", "DefaultCluster")
    assert r.code == 3  # one refused, one answered: partial


def test_a_single_refusal_exits_5(cluster) -> None:
    cli, a, _ = cluster
    a.refuse = (16, "username cannot be null.")
    r = cli("brokerStatus", "-b", a.addr)
    assert r.code == 5
    assert_one_line_error(r, "NO_PERMISSION (16): username cannot be null.", "the broker requires credentials")


def test_brokers_without_acl_2_are_named(cluster) -> None:
    cli, a, b = cluster
    a.acl_enabled = False
    b.version = 409
    r = cli("listUser", "-c", "DefaultCluster")
    assert r.code == 1
    assert f"ACL 2.0 is not enabled on {a.addr} (it answered SYSTEM_ERROR (1)" in r.err
    assert f"ACL 2.0 is not enabled on {b.addr}" in r.err
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
    "copyUser": ["-f", "127.0.0.1:10911", "-t", "127.0.0.1:10921"],
    "copyAcl": ["-f", "127.0.0.1:10911", "-t", "127.0.0.1:10921"],
    "deleteAcl": ["-c", "DefaultCluster", "-s", "User:u1", "-r", "Topic:T"],
    "deleteUser": ["-c", "DefaultCluster", "-u", "u1"],
}
"""Run in this order: the user exists for the ACL commands until deleteUser."""


def test_json_documents_match_docs(cluster) -> None:
    cli, _, _ = cluster
    shapes = documented_shapes()
    for name, args in AUTH_CASES.items():
        r = cli(name, *args, "--format", "json")
        assert r.code == 0, (name, r.err)
        reasons = [mismatch(doc, r.json()) for doc in shapes[name]]
        assert not all(reasons), (name, reasons)
