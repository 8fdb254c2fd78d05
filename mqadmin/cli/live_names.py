"""The names a Tab offers (``mqadmin.cli.complete``): live ones asked of the cluster the command line selects
(``-n``, ``NAMESRV_ADDR`` or ``--profile``, with the line's credentials, TLS and broker address map), over
blocking sockets within ``DEADLINE`` seconds in all, and kept ``CACHE_SECONDS`` in the user's cache directory per
cluster (a burst of Tabs asks once); name-server addresses and profiles from the config file.

Any failure (no name server, a refusal, a timeout, a bad profile, an unwritable cache) is raised to the caller,
which completes nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient

REQUEST_TIMEOUT = 0.5
DEADLINE = 0.9
"""Seconds a live lookup may take in all, whatever the network does (a Tab answers within about a second)."""
CACHE_SECONDS = 10.0

_CONNECTION = {
    "--profile": "profile",
    "--access-key": "access_key",
    "--secret-key": "secret_key",
    "--secret-key-file": "secret_key_file",
    "--security-token": "security_token",
    "--tls": "tls",
    "--tls-ca": "tls_ca",
    "--tls-cert": "tls_cert",
    "--tls-key": "tls_key",
    "--tls-server-name": "tls_server_name",
    "--tls-insecure": "tls_insecure",
    "--broker-addr-map": "broker_addr_map",
}
"""The command line's options that choose how to reach the cluster (``given``'s keys) -> ``GLOBAL``'s fields."""


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mqadmin" / "completion"


def live_names(kind: str, given: dict[str, list[Any]]) -> list[str]:
    """The names of ``kind`` (topic, group, cluster, broker, addr, user, subject) in the cluster that the command
    line's options ``given`` (long name -> the values given) select, sorted."""
    from mqadmin.cli import settings
    from mqadmin.cli.options import GLOBAL

    for option, field in _CONNECTION.items():
        if option in given:
            values = given[option]
            setattr(GLOBAL, field, values if field == "broker_addr_map" else values[-1])
    GLOBAL.timeout_flag = REQUEST_TIMEOUT
    namesrv = given.get("--namesrvAddr", [None])[-1]
    selection = [settings.profile()[0], settings.namesrv(namesrv).value, GLOBAL.access_key, kind]
    path = cache_dir() / (hashlib.sha256(repr(selection).encode()).hexdigest()[:24] + ".json")
    try:
        if time.time() - path.stat().st_mtime < CACHE_SECONDS:
            return list(json.loads(path.read_text()))
    except (OSError, ValueError):
        pass
    names = sorted(set(_within_deadline(lambda: _ask(namesrv, kind))))
    _store(path, names)
    return names


def _within_deadline(ask: Any) -> Any:
    """``ask()``, interrupted (TimeoutError) once ``DEADLINE`` has passed: a connect or a read that hangs, an
    address server that does not answer, a secret command that waits."""

    def expired(signum: int, frame: Any) -> None:
        raise TimeoutError("completion deadline")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, DEADLINE)
    try:
        return ask()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _store(path: Path, names: list[str]) -> None:
    from mqadmin.files import atomic_write

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(names).encode())
    except OSError:
        pass


def _ask(namesrv: str | None, kind: str) -> list[str]:
    from mqadmin.cli.runner import run_lookup

    async def names(admin: AdminClient) -> list[str]:
        return await _names(admin, kind)

    return run_lookup(namesrv, names)


async def _names(admin: AdminClient, kind: str) -> list[str]:
    from mqadmin.transport.gather import gather

    if kind == "topic":
        return await admin.topic_list()
    info = await admin.cluster_info()
    if kind == "cluster":
        return list(info.clusters)
    if kind == "broker":
        return list(info.brokers)
    if kind == "addr":
        return [a for b in info.brokers.values() for a in b.broker_addrs.values()]
    masters = [b.master_addr for b in info.brokers.values() if b.master_addr]
    ask = {
        "group": admin.subscription_groups,
        "user": lambda addr: _usernames(admin, addr),
        "subject": lambda addr: _subjects(admin, addr),
    }[kind]
    found: list[Any] = await gather(*(ask(a) for a in masters), return_exceptions=True)
    return [name for names in found if not isinstance(names, BaseException) for name in names]


async def _usernames(admin: AdminClient, addr: str) -> list[str]:
    return [u.username for u in await admin.list_users(addr)]


async def _subjects(admin: AdminClient, addr: str) -> list[str]:
    return [a.subject for a in await admin.list_acls(addr)]


def config_names(kind: str) -> list[str]:
    """``profile``: the config file's profiles; ``namesrv``: the name servers of NAMESRV_ADDR and of every
    profile (each list whole and each of its addresses)."""
    from mqadmin.cli import settings

    cfg = settings.config()
    profiles = {} if cfg is None else cfg.profiles
    if kind == "profile":
        return sorted(profiles)
    values = [os.environ.get("NAMESRV_ADDR") or "", *(p.namesrv or "" for p in profiles.values())]
    found = {v.strip() for v in values} | {a.strip() for v in values if ";" in v for a in v.split(";")}
    return sorted(found - {""})
