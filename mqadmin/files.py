"""Writing a file atomically: a crash at any point leaves either the old or the new file whole.

The new content goes to ``f.tmp`` and is fsynced; the current ``f`` is kept as ``f.bak``; ``f.tmp``
is renamed over ``f``; the directory is fsynced. With ``backup=True`` (the servers' metadata files)
the very first write also leaves a ``.bak`` copy, so a backup exists from the first snapshot on.
``private=True`` (files holding secrets) makes the file and its backup readable by their owner only.
Used by the servers (``mqadmin.server.persist``) and the fleet export.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def atomic_write(path: Path, data: bytes, *, backup: bool = False, private: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    bak = backup_of(path)
    first = not path.exists()
    _write_synced(path.with_name(path.name + ".tmp"), data, private)
    if not first:
        with contextlib.suppress(FileNotFoundError):
            os.replace(path, bak)
    os.replace(path.with_name(path.name + ".tmp"), path)
    if first and backup:
        _write_synced(bak.with_name(bak.name + ".tmp"), data, private)
        os.replace(bak.with_name(bak.name + ".tmp"), bak)
    fsync_dir(path.parent)


def backup_of(path: Path) -> Path:
    """Where ``atomic_write`` keeps the previous version of ``path``."""
    return path.with_name(path.name + ".bak")


def _write_synced(path: Path, data: bytes, private: bool = False) -> None:
    with open(path, "wb") as f:
        if private:
            os.fchmod(f.fileno(), 0o600)
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
