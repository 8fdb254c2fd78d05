"""The names a completing option offers (``mqadmin.cli.complete``), asked of the cluster with a short timeout and
kept a few seconds in the user's cache directory, so that a burst of Tabs asks once."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient

TIMEOUT = 1.0
CACHE_SECONDS = 5.0


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mqadmin" / "completion"


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
