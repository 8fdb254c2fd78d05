"""The config file: where it is, strict reading (errors name the file, profile and key), and writes that are
atomic and private (0600 in a 0700 directory, no temporary file left, the old file intact on failure)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mqadmin.cli.config import Config, ConfigError, Profile, config_path, load_config, parse_config, save_config


def test_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert config_path({"MQADMIN_CONFIG": "/x/c.toml", "XDG_CONFIG_HOME": "/y"}) == "/x/c.toml"
    assert config_path({"XDG_CONFIG_HOME": "/y"}) == "/y/mqadmin/config.toml"
    monkeypatch.setenv("HOME", str(tmp_path))
    assert config_path({"MQADMIN_CONFIG": "~/c.toml"}) == str(tmp_path / "c.toml")
    assert config_path({"XDG_CONFIG_HOME": "relative"}) == str(tmp_path / ".config" / "mqadmin" / "config.toml")
    assert config_path({}) == str(tmp_path / ".config" / "mqadmin" / "config.toml")


def test_write_is_private_atomic_and_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "new" / "dir" / "config.toml"
    profile = Profile(namesrv="a:9876", access_key="ak", secret_key="sk", timeout=2.5, tls=True,
                      broker_addr_map={"10.0.0.5:10911": "127.0.0.1:30911"})  # fmt: skip
    save_config(Config(path, {"prod": profile}, "prod"))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert os.listdir(path.parent) == ["config.toml"]
    loaded = load_config(path)
    assert loaded.profiles == {"prod": profile} and loaded.current == "prod" and not loaded.readable_by_others()
    path.chmod(0o644)
    assert load_config(path).readable_by_others()
    save_config(loaded)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "config.toml"
    save_config(Config(path, {"a": Profile(namesrv="a:9876")}))
    before = path.read_text()

    def fail(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError):
        save_config(Config(path, {"b": Profile(namesrv="b:9876")}))
    assert path.read_text() == before
    assert os.listdir(tmp_path) == ["config.toml"]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[profiles.p\n", "is not valid TOML"),
        ("colour = 1\n", "unknown top-level key 'colour'"),
        ('current = "q"\n[profiles.p]\n', "current = 'q' is not one of the profiles (p)"),
        ("[profiles.p]\ntimeuot = 3\n", "profile 'p': unknown key 'timeuot'"),
        ('[profiles.p]\ntimeout = "3"\n', "profile 'p': timeout must be a number, not '3'"),
        ("[profiles.p]\ntimeout = 0\n", "timeout must be a number of seconds in (0, 3600]"),
        ("[profiles.p]\ntls = 1\n", "tls must be true or false, not 1"),
        ('[profiles.p]\nformat = "yaml"\n', "format must be one of table, json"),
        ('[profiles.p]\nsecret_key = "a"\nsecret_command = "b"\n', "give one of secret_key, secret_file"),
        ('[profiles.p.broker_addr_map]\n"10.0.0.5" = "127.0.0.1:1"\n', "broker_addr_map: '10.0.0.5=127.0.0.1:1'"),
        ('[profiles."-bad"]\n', "bad profile name '-bad'"),
    ],
)
def test_bad_files_are_named_precisely(text: str, fragment: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse_config(text, Path("/etc/mq.toml"))
    assert str(e.value).startswith("/etc/mq.toml")
    assert fragment in str(e.value)


def test_secrets_are_masked_when_shown() -> None:
    p = Profile(access_key="ak", secret_key="sk", security_token="tok", secret_command="pass show x")
    assert p.shown() == {
        "access_key": "ak",
        "secret_key": "***",
        "secret_command": "pass show x",
        "security_token": "***",
    }
    assert "sk" not in repr(p) and "tok" not in repr(p)
