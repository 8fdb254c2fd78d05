"""Live shell completion: ``-t``, ``-g``, ``-c`` and ``-b`` complete the names the cluster holds.

The shell runs ``mqadmin`` with ``_MQADMIN_COMPLETE`` set at each Tab; the option's ``autocompletion`` callback
asks the cluster of ``-n`` (when already on the command line), NAMESRV_ADDR or the current profile, with a short
timeout, and keeps the answer a few seconds in the user's cache directory (a burst of Tabs asks once). Any failure
(no name server, a timeout, a bad profile, an unwritable cache) completes nothing and prints nothing.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient

TIMEOUT = 1.0
CACHE_SECONDS = 5.0


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mqadmin" / "completion"


def completer(kind: str) -> Callable[[typer.Context, str], list[str]]:
    # Typer reads the callback's annotations at run time to know what to pass: typer.Context must be importable.
    """The ``autocompletion`` callback of an option completing ``kind``: topic, group, cluster, broker or addr."""

    def complete(ctx: typer.Context, incomplete: str) -> list[str]:
        try:
            names = live_names(kind, ctx.params.get("namesrv"))
        except Exception:  # noqa: BLE001 - completion never fails loudly
            return []
        return [n for n in names if n.startswith(incomplete)]

    return complete


def live_names(kind: str, namesrv: str | None) -> list[str]:
    from mqadmin.cli import settings
    from mqadmin.cli.runner import namesrv_addrs

    addrs = namesrv_addrs(namesrv if isinstance(namesrv, str) else None)
    key = hashlib.sha256(f"{settings.profile()[0]}|{';'.join(addrs)}|{kind}".encode()).hexdigest()[:24]
    path = cache_dir() / f"{key}.json"
    try:
        if time.time() - path.stat().st_mtime < CACHE_SECONDS:
            return list(json.loads(path.read_text()))
    except (OSError, ValueError):
        pass
    names = sorted(set(asyncio.run(_ask(addrs, kind))))
    _store(path, names)
    return names


def _store(path: Path, names: list[str]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(names))
        os.replace(tmp, path)
    except OSError:
        pass


async def _ask(addrs: list[str], kind: str) -> list[str]:
    from mqadmin.admin import AdminClient
    from mqadmin.cli.runner import connection_transport

    transport = connection_transport(addrs)
    try:
        async with AdminClient(addrs, transport=transport, timeout=TIMEOUT) as admin:
            return await asyncio.wait_for(_names(admin, kind), TIMEOUT * 2)
    finally:
        await transport.aclose()


async def _names(admin: AdminClient, kind: str) -> list[str]:
    if kind == "topic":
        return await admin.topic_list()
    info = await admin.cluster_info()
    if kind == "cluster":
        return list(info.clusters)
    if kind == "broker":
        return list(info.brokers)
    masters = [b.master_addr for b in info.brokers.values() if b.master_addr]
    if kind == "addr":
        return masters
    groups: list[Any] = await asyncio.gather(*(admin.subscription_groups(a) for a in masters), return_exceptions=True)
    return [g for found in groups if isinstance(found, dict) for g in found]
