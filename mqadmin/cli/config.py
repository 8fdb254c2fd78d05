"""The config file: named profiles (name servers or an address-server URL, credentials, TLS, timeout,
output format, broker address map) in TOML.

Where: ``$MQADMIN_CONFIG``, else ``$XDG_CONFIG_HOME/mqadmin/config.toml``, else
``~/.config/mqadmin/config.toml``. Read with tomllib, checked key by key (an unknown key or a wrong type is
an error naming the profile and the key), written with tomli-w atomically (a temporary file in the same
directory, mode 0600, fsync, rename), so a crash never leaves half a file and secrets are never readable
by others. docs/profiles.md describes the format.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from dataclasses import dataclass, field, fields
from typing import Any

from mqadmin.cli.config_path import CONFIG_ENV as CONFIG_ENV  # re-exported: the config file's API is here
from mqadmin.cli.config_path import config_path

PROFILE_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"  # compiled when first used: most runs check no name
FORMATS = ("table", "json")


class ConfigError(ValueError):
    """The config file cannot be read or holds something mqadmin does not accept."""


@dataclass
class Profile:
    """One profile; None means "not set here" (the environment or the default applies)."""

    namesrv: str | None = None
    """``host:port;host:port`` or an address-server URL (``http://host:8080/rocketmq/nsaddr``)."""
    access_key: str | None = None
    secret_key: str | None = field(default=None, repr=False)
    """Inline secret (prefer ``secret_file`` or ``secret_command``)."""
    secret_file: str | None = None
    secret_command: str | None = None
    """A command printing the secret key on its first line, e.g. ``pass show rocketmq/prod``."""
    security_token: str | None = field(default=None, repr=False)
    timeout: float | None = None
    format: str | None = None
    tls: bool | None = None
    tls_ca: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    tls_server_name: str | None = None
    tls_insecure: bool | None = None
    broker_addr_map: dict[str, str] = field(default_factory=dict)

    SECRETS = ("secret_key", "security_token")
    """Keys whose values are never shown."""

    def to_toml(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None and value != {}:
                out[f.name] = dict(value) if isinstance(value, dict) else value
        return out

    def shown(self) -> dict[str, Any]:
        """The profile as ``profile show`` prints it: secrets masked."""
        return {k: ("***" if k in self.SECRETS else v) for k, v in self.to_toml().items()}


_TYPES: dict[str, tuple[type, ...]] = {
    "namesrv": (str,),
    "access_key": (str,),
    "secret_key": (str,),
    "secret_file": (str,),
    "secret_command": (str,),
    "security_token": (str,),
    "timeout": (int, float),
    "format": (str,),
    "tls": (bool,),
    "tls_ca": (str,),
    "tls_cert": (str,),
    "tls_key": (str,),
    "tls_server_name": (str,),
    "tls_insecure": (bool,),
    "broker_addr_map": (dict,),
}


def profile_from_toml(name: str, table: Any) -> Profile:
    """A checked Profile from its TOML table; ``ConfigError`` names the profile and the bad key."""
    where = f"profile {name!r}"
    if not isinstance(table, dict):
        raise ConfigError(f"{where} is not a table ([profiles.{name}])")
    unknown = sorted(set(table) - set(_TYPES))
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(_TYPES)})")
    for key, value in table.items():
        kinds = _TYPES[key]
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            want = {str: "a string", bool: "true or false", dict: "a table"}.get(kinds[0], "a number")
            raise ConfigError(f"{where}: {key} must be {want}, not {value!r}")
    if "timeout" in table and not 0 < float(table["timeout"]) <= 3600:
        raise ConfigError(f"{where}: timeout must be a number of seconds in (0, 3600], not {table['timeout']!r}")
    if "format" in table and table["format"] not in FORMATS:
        raise ConfigError(f"{where}: format must be one of {', '.join(FORMATS)}, not {table['format']!r}")
    given = [k for k in ("secret_key", "secret_file", "secret_command") if k in table]
    if len(given) > 1:
        raise ConfigError(f"{where}: give one of secret_key, secret_file, secret_command (found {', '.join(given)})")
    amap = table.get("broker_addr_map", {})
    if not all(isinstance(v, str) for v in amap.values()):
        raise ConfigError(f'{where}: broker_addr_map values must be "host:port" strings')
    _check_addr_map(where, amap)
    values = dict(table)
    if "timeout" in values:
        values["timeout"] = float(values["timeout"])
    return Profile(**values)


def _check_addr_map(where: str, amap: dict[str, str]) -> None:
    from mqadmin.transport.addrmap import BadAddressMap, parse_addr_map

    try:
        parse_addr_map(f"{k}={v}" for k, v in amap.items())
    except BadAddressMap as e:
        raise ConfigError(f"{where}: broker_addr_map: {e}") from None


def check_profile_name(name: str) -> str | None:
    """Why ``name`` cannot name a profile, or None."""
    if re.match(PROFILE_NAME, name):
        return None
    return f"bad profile name {name!r}: use letters, digits, '.', '_' or '-' (at most 64, not starting with . _ -)"


@dataclass
class Config:
    path: str | os.PathLike[str]
    profiles: dict[str, Profile] = field(default_factory=dict)
    current: str | None = None
    mode: int | None = None
    """The file's permission bits when it was read (None: there was no file)."""

    def to_toml(self) -> dict[str, Any]:
        doc: dict[str, Any] = {}
        if self.current:
            doc["current"] = self.current
        doc["profiles"] = {name: p.to_toml() for name, p in sorted(self.profiles.items())}
        return doc

    def readable_by_others(self) -> bool:
        return self.mode is not None and bool(self.mode & (stat.S_IRWXG | stat.S_IRWXO))


def parse_config(text: str, path: str | os.PathLike[str]) -> Config:
    """A checked Config from the file's text; ``ConfigError`` says what is wrong and where."""
    import tomllib  # here, not at the top: most runs have no config file, and start-up counts

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path} is not valid TOML: {e}") from None
    unknown = sorted(set(doc) - {"current", "profiles"})
    if unknown:
        raise ConfigError(f"{path}: unknown top-level key {unknown[0]!r} (known: current, profiles)")
    tables = doc.get("profiles", {})
    if not isinstance(tables, dict):
        raise ConfigError(f"{path}: profiles must be a table ([profiles.NAME])")
    profiles = {}
    for name, table in tables.items():
        if problem := check_profile_name(name):
            raise ConfigError(f"{path}: {problem}")
        try:
            profiles[name] = profile_from_toml(name, table)
        except ConfigError as e:
            raise ConfigError(f"{path}: {e}") from None
    current = doc.get("current")
    if current is not None and (not isinstance(current, str) or current not in profiles):
        raise ConfigError(f"{path}: current = {current!r} is not one of the profiles ({', '.join(profiles) or 'none'})")
    return Config(path, profiles, current)


def load_config(path: str | os.PathLike[str] | None = None) -> Config:
    """The config file (an empty Config when there is none)."""
    path = path or config_path()
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return Config(path)
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
    config = parse_config(text, path)
    config.mode = mode
    return config


def render_config(config: Config) -> str:
    import tomli_w

    header = "# mqadmin profiles (docs/profiles.md). Written by mqadmin; comments are not kept.\n"
    return header + tomli_w.dumps(config.to_toml())


def save_config(config: Config) -> None:
    """Write the file atomically with mode 0600 (its directory 0700 when created)."""
    write_private(config.path, render_config(config))
    config.mode = 0o600


def write_private(path: str | os.PathLike[str], text: str) -> None:
    """Replace ``path`` by ``text`` atomically: a temporary file (0600) in the same directory, fsync, rename."""
    import tempfile
    from pathlib import Path  # only the profile commands write

    path = Path(path)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # the rename itself survives a crash once the directory is synced
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
