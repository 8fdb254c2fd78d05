"""The profile commands: create (checked values, one secret source, absolute paths), use, list, show (never a
secret), delete (--dry-run), edit (only a valid file is kept); their JSON documents are validated in
tests/cli/test_json_contract.py."""

from __future__ import annotations

import io
import os
import stat
import sys
import tomllib
from pathlib import Path

import pytest

from mqadmin.cli import runner
from mqadmin.model.rpc import namesrv, topics
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode
from tests.mock_transport import MockTransport, cluster_info, ok, refuse, routes
from tests.unit.cli_helpers import assert_one_line_error
from tests.unit.test_settings import run, write_config

SECRET = "prof1le-secret"


def config() -> dict:
    return tomllib.loads(Path(os.environ["MQADMIN_CONFIG"]).read_text())


def test_create_then_use_it(monkeypatch, capsys, tmp_path) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO(SECRET + "\n"))
    r = run(monkeypatch, capsys, "profile", "create", "prod", "-n", "127.0.0.1:9876; 127.0.0.2:9876",
            "--access-key", "admin", "--secret-stdin", "--tls-ca", "ca.pem", "--timeout", "7")  # fmt: skip
    assert r.code == 0, r.err
    assert SECRET not in r.out + r.err and "***" in r.out
    path = Path(os.environ["MQADMIN_CONFIG"])
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert config() == {
        "current": "prod",  # the first profile becomes current
        "profiles": {
            "prod": {"namesrv": "127.0.0.1:9876;127.0.0.2:9876", "access_key": "admin", "secret_key": SECRET,
                     "tls_ca": str(ca), "timeout": 7.0},
        },
    }  # fmt: skip
    a, b = "127.0.0.1:10911", "127.0.0.1:10921"
    answers = {
        namesrv.GET_BROKER_CLUSTER_INFO: ok(cluster_info(("broker-a", 0, a), ("broker-b", 0, b))),
        topics.GET_TOPIC_CONFIG: refuse(ResponseCode.TOPIC_NOT_EXIST, "No topic in this broker."),
        topics.UPDATE_AND_CREATE_TOPIC: ok(),
    }
    transport = MockTransport(routes(answers))
    monkeypatch.setattr(runner, "transport_factory", lambda: transport)
    r = run(monkeypatch, capsys, "--profile", "prod", "updateTopic", "-c", "DefaultCluster", "-t", "Orders")
    assert r.code == 0, r.err
    created = [(addr, c.ext["topic"]) for addr, c in transport.sent if c.code == RC.UPDATE_AND_CREATE_TOPIC]
    assert sorted(created) == [(a, "Orders"), (b, "Orders")]
    assert {addr for addr, c in transport.sent if c.code == RC.GET_BROKER_CLUSTER_INFO} <= {
        "127.0.0.1:9876",
        "127.0.0.2:9876",
    }


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["bad name"], "bad profile name 'bad name'"),
        (["p", "-n", "127.0.0.1"], "bad name server address '127.0.0.1'"),
        (["p", "--access-key", "a"], "--access-key without a secret"),
        (["p", "--secret-command", "pass x"], "--secret-command without --access-key"),
        (["p", "--access-key", "a", "--secret-key", "x", "--secret-command", "y"], "give one secret source"),
        (["p", "--tls-ca", "/nonexistent.pem"], "--tls-ca /nonexistent.pem: no readable file there"),
        (["p", "--broker-addr-map", "a=b"], "--broker-addr-map: 'a=b': bad address 'a'"),
    ],
)
def test_create_checks_what_it_stores(monkeypatch, capsys, args, fragment) -> None:
    r = run(monkeypatch, capsys, "profile", "create", *args)
    assert r.code == 2
    assert_one_line_error(r, fragment)
    assert not Path(os.environ["MQADMIN_CONFIG"]).exists()


def test_create_does_not_replace_without_force(monkeypatch, capsys) -> None:
    assert run(monkeypatch, capsys, "profile", "create", "p", "-n", "127.0.0.1:9876").code == 0
    r = run(monkeypatch, capsys, "profile", "create", "p", "-n", "127.0.0.2:9876")
    assert r.code == 2 and "--force replaces it" in r.err
    assert run(monkeypatch, capsys, "profile", "create", "p", "-n", "127.0.0.2:9876", "--force").code == 0
    assert config()["profiles"]["p"]["namesrv"] == "127.0.0.2:9876"


def test_use_list_show_delete(monkeypatch, capsys) -> None:
    write_config(
        f'current = "a"\n[profiles.a]\nnamesrv = "127.0.0.1:9876"\n'
        f'[profiles.b]\naccess_key = "ak"\nsecret_key = "{SECRET}"\nsecurity_token = "tok-{SECRET}"\ntls = true\n'
    )
    assert run(monkeypatch, capsys, "profile", "use", "b").code == 0
    assert config()["current"] == "b"
    listed = run(monkeypatch, capsys, "profile", "list").out.splitlines()
    assert listed[1].split() == ["a", "127.0.0.1:9876"] and listed[2].split() == ["*", "b", "ak", "on"]
    for args in (["show"], ["show", "b"], ["show", "--resolved"], ["list"], ["delete", "b", "--dry-run"]):
        for fmt in ("table", "json"):
            r = run(monkeypatch, capsys, "profile", *args, "--format", fmt)
            assert r.code == 0, (args, r.err)
            assert SECRET not in r.out + r.err, args
    r = run(monkeypatch, capsys, "profile", "delete", "b")
    assert r.code == 0 and "it was the current one" in r.err
    assert "b" not in config()["profiles"] and "current" not in config()
    r = run(monkeypatch, capsys, "profile", "use", "b")
    assert r.code == 2 and "no profile 'b'" in r.err and "(profiles: a)" in r.err


def test_edit_keeps_only_a_valid_file(monkeypatch, capsys, tmp_path) -> None:
    path = write_config('[profiles.a]\nnamesrv = "127.0.0.1:9876"\n')
    editor = tmp_path / "editor.py"
    editor.write_text("import sys, os\nopen(sys.argv[1], 'a').write(os.environ['APPEND'])\n")
    monkeypatch.setenv("VISUAL", f"{sys.executable} {editor}")
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # not a terminal: no second try
    monkeypatch.setenv("APPEND", "timeout = -1\n")
    r = run(monkeypatch, capsys, "profile", "edit")
    assert r.code == 2 and "timeout must be a number of seconds" in r.err and "left as it was" in r.err
    assert path.read_text() == '[profiles.a]\nnamesrv = "127.0.0.1:9876"\n'
    monkeypatch.setenv("APPEND", "timeout = 4  # a comment stays\n")
    assert run(monkeypatch, capsys, "profile", "edit").code == 0
    assert path.read_text().endswith("timeout = 4  # a comment stays\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(os.listdir(path.parent)) == ["config.toml"]
    monkeypatch.setenv("VISUAL", "false")
    assert run(monkeypatch, capsys, "profile", "edit").code == 2
