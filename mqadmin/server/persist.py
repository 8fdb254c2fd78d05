"""Atomic JSON config files with a ``.bak`` fall-back.

Writing: the new content goes to ``f.tmp`` and is fsynced; the current ``f`` is kept as
``f.bak``; ``f.tmp`` is renamed over ``f``; the directory is fsynced. A crash at any point
leaves either the old or the new file whole, and ``load`` falls back to ``f.bak`` when ``f`` is
missing, empty or unreadable.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from mqadmin.wire import fastjson


def atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    if path.exists():
        bak = path.with_name(path.name + ".bak")
        with contextlib.suppress(FileNotFoundError):
            os.replace(path, bak)
    os.replace(tmp, path)
    fsync_dir(path.parent)


def fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_json(path: Path, obj: Any) -> None:
    """Pretty, key-sorted JSON (readable by Java's fastjson and by people)."""
    atomic_write(path, json.dumps(obj, indent="\t", sort_keys=True, ensure_ascii=False).encode())


def load_json(path: Path) -> Any | None:
    """The content of ``path``, else of ``path.bak``, else None. Accepts fastjson's relaxed form."""
    for candidate in (path, path.with_name(path.name + ".bak")):
        try:
            data = candidate.read_bytes()
        except FileNotFoundError:
            continue
        if not data.strip():
            continue
        try:
            return fastjson.loads(data)
        except (ValueError, UnicodeDecodeError):
            continue
    return None
