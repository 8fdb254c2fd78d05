"""Where the config file is: ``$MQADMIN_CONFIG``, else ``$XDG_CONFIG_HOME/mqadmin/config.toml``, else
``~/.config/mqadmin/config.toml``. Every command looks and most find none, so this is apart from the module
that reads one (``mqadmin.cli.config``, with its profile classes)."""

from __future__ import annotations

import os

CONFIG_ENV = "MQADMIN_CONFIG"


def config_path(env: dict[str, str] | os._Environ[str] | None = None) -> str:
    """The config file's path (a string: pathlib costs start-up)."""
    env = os.environ if env is None else env
    if env.get(CONFIG_ENV):
        return os.path.expanduser(env[CONFIG_ENV])
    xdg = env.get("XDG_CONFIG_HOME", "")
    base = xdg if xdg and os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "mqadmin", "config.toml")
