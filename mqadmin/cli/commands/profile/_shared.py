"""What the profile commands share: loading the config file (errors as usage errors) and showing a profile
without its secrets."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqadmin.cli.config import Config, ConfigError, Profile, load_config
from mqadmin.cli.errors import usage_error

if TYPE_CHECKING:
    from mqadmin.cli.commands.profile._docs import ProfileDoc, ProfileSettingsDoc


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


def profile_json(config: Config, name: str) -> ProfileDoc:
    """The document of ``profile create`` and ``profile show``: profile ``name`` of ``config``."""
    return {
        "profile": name,
        "current": config.current == name,
        "path": str(config.path),
        "settings": settings_json(config.profiles[name]),
    }


def settings_json(profile: Profile) -> ProfileSettingsDoc:
    """Every key (null when not set), secrets as ``***``."""
    shown = profile.shown()
    return {
        "namesrv": shown.get("namesrv"),
        "accessKey": shown.get("access_key"),
        "secretKey": shown.get("secret_key"),
        "secretFile": shown.get("secret_file"),
        "secretCommand": shown.get("secret_command"),
        "securityToken": shown.get("security_token"),
        "timeout": shown.get("timeout"),
        "format": shown.get("format"),
        "tls": shown.get("tls"),
        "tlsCa": shown.get("tls_ca"),
        "tlsCert": shown.get("tls_cert"),
        "tlsKey": shown.get("tls_key"),
        "tlsServerName": shown.get("tls_server_name"),
        "tlsInsecure": shown.get("tls_insecure"),
        "brokerAddrMap": shown.get("broker_addr_map"),
    }


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
