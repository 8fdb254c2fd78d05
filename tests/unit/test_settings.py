"""One precedence for every setting: flag > environment > profile > default, checked source by source
through the CLI (``profile show --resolved`` says what a command would use and where it comes from),
and the errors for bad values in each source."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from mqadmin.cli import run as run_cli
from mqadmin.cli import runner
from mqadmin.model.rpc import namesrv
from tests.mock_transport import MockTransport, ok, routes
from tests.unit.cli_helpers import Outcome, assert_one_line_error

PROFILES = """
current = "main"

[profiles.main]
namesrv = "10.9.9.9:9876"
timeout = 9
access_key = "profile-ak"
secret_key = "profile-sk"
tls_ca = "/p/ca.pem"

[profiles.main.broker_addr_map]
"10.0.0.5:10911" = "127.0.0.1:1"

[profiles.other]
timeout = 8
format = "json"
"""


def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> Outcome:
    """``mqadmin ARGS`` in-process, as a user would run it."""
    capsys.readouterr()
    monkeypatch.setattr(sys, "argv", ["mqadmin", *args])
    with pytest.raises(SystemExit) as e:
        run_cli()
    captured = capsys.readouterr()
    return Outcome(int(e.value.code or 0), captured.out, captured.err)


def write_config(text: str) -> Path:
    path = Path(os.environ["MQADMIN_CONFIG"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o600)
    return path


def resolved(monkeypatch, capsys, *args: str) -> dict[str, tuple[str | None, str]]:
    r = run(monkeypatch, capsys, "profile", "show", "--resolved", "--format", "json", *args)
    assert r.code == 0, r.err
    return {k: (v["value"], v["from"]) for k, v in r.json()["resolved"].items()}


LEVELS = ("default", "profile", "env", "flag")

# setting: (flags, environment, {level: (value, from)})
PRECEDENCE = {
    "timeout": (
        ["--timeout", "3"],
        {"MQADMIN_TIMEOUT": "7"},
        {"default": ("5", "default"), "profile": ("9", "profile main"), "env": ("7", "$MQADMIN_TIMEOUT"),
         "flag": ("3", "--timeout")},
    ),
    "tls": (
        ["--tls-ca", "/f/ca.pem"],
        {"MQADMIN_TLS_CA": "/e/ca.pem"},
        {"default": ("off", "default"), "profile": ("on ca=/p/ca.pem", "profile main"),
         "env": ("on ca=/e/ca.pem", "$MQADMIN_TLS_CA"), "flag": ("on ca=/f/ca.pem", "--tls-ca")},
    ),
    "brokerAddrMap": (
        ["--broker-addr-map", "10.0.0.5:10911=127.0.0.1:3"],
        {"MQADMIN_BROKER_ADDR_MAP": "10.0.0.5:10911=127.0.0.1:2"},
        {"default": (None, "default"), "profile": ("10.0.0.5:10911=127.0.0.1:1", "profile main"),
         "env": ("10.0.0.5:10911=127.0.0.1:2", "$MQADMIN_BROKER_ADDR_MAP"),
         "flag": ("10.0.0.5:10911=127.0.0.1:3", "--broker-addr-map")},
    ),
    "accessKey": (
        ["--access-key", "flag-ak", "--secret-key", "flag-sk"],
        {"ROCKETMQ_ACCESS_KEY": "env-ak", "ROCKETMQ_SECRET_KEY": "env-sk"},
        {"default": (None, "default"), "profile": ("profile-ak", "profile main"),
         "env": ("env-ak", "environment ($ROCKETMQ_ACCESS_KEY)"), "flag": ("flag-ak", "command line")},
    ),
    "namesrv": (
        [],  # -n is a command option: see test_name_servers_flag_env_profile
        {"NAMESRV_ADDR": "10.1.1.1:9876"},
        {"default": (None, "default"), "profile": ("10.9.9.9:9876", "profile main"),
         "env": ("10.1.1.1:9876", "$NAMESRV_ADDR"), "flag": ("10.1.1.1:9876", "$NAMESRV_ADDR")},
    ),
    "profile": (
        ["--profile", "main"],
        {"MQADMIN_PROFILE": "other"},
        {"default": (None, "default"), "profile": ("main", "current in {config}"),
         "env": ("other", "$MQADMIN_PROFILE"), "flag": ("main", "--profile")},
    ),
}  # fmt: skip


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("setting", list(PRECEDENCE))
def test_flag_over_env_over_profile_over_default(monkeypatch, capsys, setting: str, level: str) -> None:
    flags, env, expected = PRECEDENCE[setting]
    rank = LEVELS.index(level)
    config = write_config(PROFILES) if rank >= 1 else Path(os.environ["MQADMIN_CONFIG"])
    if rank >= 2:
        for k, v in env.items():
            monkeypatch.setenv(k, v)
    value, origin = expected[level]
    got = resolved(monkeypatch, capsys, *(flags if rank == 3 else []))[setting]
    assert got == (value, origin.format(config=config))


def test_the_secret_follows_its_access_key(monkeypatch, capsys) -> None:
    """Credentials come as one set: the environment's key is never signed with the profile's secret."""
    write_config(PROFILES)
    monkeypatch.setenv("ROCKETMQ_ACCESS_KEY", "env-ak")
    r = run(monkeypatch, capsys, "topicList")
    assert r.code == 2
    assert_one_line_error(r, "credentials from environment ($ROCKETMQ_ACCESS_KEY) have an access key but no secret")
    monkeypatch.delenv("ROCKETMQ_ACCESS_KEY")
    monkeypatch.setenv("ROCKETMQ_ACL_SECRET_KEY", "x")  # rocketmq-rust's name
    r = run(monkeypatch, capsys, "topicList")
    assert r.code == 2 and "have no access key" in r.err


def test_tools_yml_only_when_nothing_else_gives_credentials(monkeypatch, capsys, tmp_path) -> None:
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "tools.yml").write_text("# stock\naccessKey: rocketmq2\nsecretKey: '12345678'\n")
    monkeypatch.setenv("ROCKETMQ_HOME", str(tmp_path))
    assert resolved(monkeypatch, capsys)["accessKey"] == ("rocketmq2", f"{tmp_path}/conf/tools.yml")
    write_config(PROFILES)
    assert resolved(monkeypatch, capsys)["accessKey"] == ("profile-ak", "profile main")


def test_name_servers_flag_env_profile(monkeypatch, capsys) -> None:
    transport = MockTransport(routes({namesrv.GET_ALL_TOPIC_LIST_FROM_NAMESERVER: ok([])}))
    monkeypatch.setattr(runner, "transport_factory", lambda: transport)
    write_config('[profiles.p]\nnamesrv = "127.0.0.3:9876"\n')

    def asked(*args: str) -> list[str]:
        transport.sent.clear()
        assert run(monkeypatch, capsys, "topicList", "--profile", "p", *args).code == 0
        return sorted({addr for addr, _ in transport.sent})

    assert asked() == ["127.0.0.3:9876"]
    monkeypatch.setenv("NAMESRV_ADDR", "127.0.0.2:9876")
    assert asked() == ["127.0.0.2:9876"]
    assert asked("-n", "127.0.0.1:9876") == ["127.0.0.1:9876"]


def test_output_format_and_timeout_from_the_profile(monkeypatch, capsys) -> None:
    write_config(PROFILES)
    assert run(monkeypatch, capsys, "profile", "list").out.startswith("CURRENT")
    doc = json.loads(run(monkeypatch, capsys, "--profile", "other", "profile", "list").out)
    assert doc["current"] == "main"
    monkeypatch.setenv("MQADMIN_FORMAT", "table")
    assert run(monkeypatch, capsys, "--profile", "other", "profile", "list").out.startswith("CURRENT")


@pytest.mark.parametrize(
    ("env", "fragment"),
    [
        ({"MQADMIN_TIMEOUT": "0"}, "$MQADMIN_TIMEOUT: '0' is not a number of seconds"),
        ({"MQADMIN_FORMAT": "yaml"}, "$MQADMIN_FORMAT='yaml' is not an output format"),
        ({"MQADMIN_TLS": "maybe"}, "$MQADMIN_TLS='maybe' is not a boolean"),
        ({"MQADMIN_BROKER_ADDR_MAP": "10.0.0.5:10911"}, "is not REGISTERED=REACHABLE"),
        ({"MQADMIN_PROFILE": "nope"}, "no profile 'nope' (from $MQADMIN_PROFILE)"),
    ],
)
def test_bad_environment_values_name_the_variable(monkeypatch, capsys, env, fragment) -> None:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    r = run(monkeypatch, capsys, "topicList", "-n", "127.0.0.1:9876")
    assert r.code == 2
    assert_one_line_error(r, fragment)


def test_a_broken_config_file_is_named_and_profile_edit_still_opens(monkeypatch, capsys, tmp_path) -> None:
    path = write_config('[profiles.p]\nnamesrv = "127.0.0.1:9876"\ntimeuot = 3\n')
    r = run(monkeypatch, capsys, "topicList")
    assert r.code == 2
    assert_one_line_error(r, f"{path}: profile 'p': unknown key 'timeuot'", "mqadmin profile edit")
    fixer = tmp_path / "fix.py"
    fixer.write_text(
        "import sys, pathlib\n"
        "p = pathlib.Path(sys.argv[1])\n"
        "p.write_text(p.read_text().replace('timeuot', 'timeout'))\n"
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {fixer}")
    assert run(monkeypatch, capsys, "profile", "edit").code == 0
    assert "timeout = 3" in path.read_text()
