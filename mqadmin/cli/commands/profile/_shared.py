"""What the profile commands share: loading the config file (errors as usage errors) and showing a profile
without its secrets."""

from __future__ import annotations

from typing import Any

from mqadmin.cli.config import Config, ConfigError, Profile, load_config
from mqadmin.cli.errors import usage_error

JSON_KEYS = {
    "namesrv": "namesrv",
    "access_key": "accessKey",
    "secret_key": "secretKey",
    "secret_file": "secretFile",
    "secret_command": "secretCommand",
    "security_token": "securityToken",
    "timeout": "timeout",
    "format": "format",
    "tls": "tls",
    "tls_ca": "tlsCa",
    "tls_cert": "tlsCert",
    "tls_key": "tlsKey",
    "tls_server_name": "tlsServerName",
    "tls_insecure": "tlsInsecure",
    "broker_addr_map": "brokerAddrMap",
}
"""Profile keys (as in the file) -> their names in JSON output."""


def load() -> Config:
    try:
        return load_config()
    except ConfigError as e:
        raise usage_error(str(e), "fix it with: mqadmin profile edit") from None


def get(config: Config, name: str) -> Profile:
    if name not in config.profiles:
        known = ", ".join(sorted(config.profiles)) or "none"
        raise usage_error(f"no profile {name!r} in {config.path} (profiles: {known})", "see: mqadmin profile list")
    return config.profiles[name]


def settings_json(profile: Profile) -> dict[str, Any]:
    """Every key (null when not set), secrets as ``***``."""
    shown = profile.shown()
    return {camel: shown.get(key) for key, camel in JSON_KEYS.items()}


def print_profile(profile: Profile) -> None:
    """KEY VALUE rows of what the profile sets (secrets as ***)."""
    from mqadmin.cli.render import Column, print_table

    rows: list[tuple[str, str]] = []
    for key, value in profile.shown().items():
        if isinstance(value, dict):
            rows += [(f"{key}.{k}", v) for k, v in value.items()]
        else:
            rows.append((key, str(value).lower() if isinstance(value, bool) else str(value)))
    print_table([Column("KEY"), Column("VALUE")], rows)
