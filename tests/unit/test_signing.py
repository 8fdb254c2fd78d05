"""Credentials on the wire: every request to every server carries AccessKey (and SecurityToken) and a Signature
a RocketMQ broker would accept, from whichever source wins; and no secret appears in any output, --debug
trace included."""

from __future__ import annotations

import pytest

from mqadmin.wire.signing import sign
from tests.unit.recording_server import recording_server
from tests.unit.test_settings import run, write_config

SECRET = "sk-0123456789-secret"
TOKEN = "sts-token-abcdef"


def _signed_with(requests, access_key: str, secret: str) -> None:
    assert requests
    for cmd in requests:
        assert cmd.ext["AccessKey"] == access_key
        assert cmd.ext["Signature"] == sign(cmd.ext, cmd.body, secret), cmd.code


def test_every_request_is_signed_with_the_winning_credentials(monkeypatch, capsys, tmp_path) -> None:
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "tools.yml").write_text("accessKey: tools-ak\nsecretKey: tools-sk\n")
    monkeypatch.setenv("ROCKETMQ_HOME", str(tmp_path))
    with recording_server() as srv:
        # brokerStatus -b: one request to the name server, one to the broker (here the same server)
        args = ("brokerStatus", "-n", srv.addr, "-b", srv.addr)
        assert run(monkeypatch, capsys, *args).code == 0
        _signed_with(srv.requests, "tools-ak", "tools-sk")

        write_config(f'current = "p"\n[profiles.p]\naccess_key = "profile-ak"\nsecret_command = "echo {SECRET}x"\n')
        srv.requests.clear()
        assert run(monkeypatch, capsys, *args).code == 0
        _signed_with(srv.requests, "profile-ak", SECRET + "x")

        monkeypatch.setenv("ROCKETMQ_ACL_ACCESS_KEY", "env-ak")  # rocketmq-rust's names
        monkeypatch.setenv("ROCKETMQ_ACL_SECRET_KEY", SECRET + "y")
        monkeypatch.setenv("ROCKETMQ_SECURITY_TOKEN", TOKEN)
        srv.requests.clear()
        assert run(monkeypatch, capsys, *args).code == 0
        _signed_with(srv.requests, "env-ak", SECRET + "y")
        assert all(cmd.ext["SecurityToken"] == TOKEN for cmd in srv.requests)

        secret_file = tmp_path / "sk"
        secret_file.write_text(SECRET + "\n")
        secret_file.chmod(0o600)
        srv.requests.clear()
        assert (
            run(monkeypatch, capsys, *args, "--access-key", "flag-ak", "--secret-key-file", str(secret_file)).code == 0
        )
        _signed_with(srv.requests, "flag-ak", SECRET)
        assert all("SecurityToken" not in cmd.ext for cmd in srv.requests)  # the flags' set has no token


def test_no_secret_in_debug_traces_or_errors(monkeypatch, capsys) -> None:
    monkeypatch.setenv("ROCKETMQ_ACCESS_KEY", "ak")
    monkeypatch.setenv("ROCKETMQ_SECRET_KEY", SECRET)
    monkeypatch.setenv("ROCKETMQ_SECURITY_TOKEN", TOKEN)
    with recording_server() as srv:
        r = run(monkeypatch, capsys, "brokerStatus", "-n", srv.addr, "-b", srv.addr, "--debug")
        assert r.code == 0
        assert "Signature=***" in r.err and "SecurityToken=***" in r.err and "AccessKey=ak" in r.err
        assert "signing requests as AccessKey=ak" in r.err
        r2 = run(monkeypatch, capsys, "profile", "show", "--resolved")
        refused = run(monkeypatch, capsys, "topicList", "-n", "127.0.0.1:1", "--debug")
    for out in (r, r2, refused):
        assert SECRET not in out.out + out.err and TOKEN not in out.out + out.err


@pytest.mark.parametrize("command", ["false", "sh -c 'echo $((6*7))xyz; exit 3'"])
def test_a_failing_secret_command_is_named_without_its_output(monkeypatch, capsys, command) -> None:
    write_config(f'current = "p"\n[profiles.p]\naccess_key = "a"\nsecret_command = "{command}"\n')
    r = run(monkeypatch, capsys, "topicList", "-n", "127.0.0.1:1")
    assert r.code == 2 and "secret_command" in r.err and "failed (exit" in r.err
    assert "42xyz" not in r.out + r.err
