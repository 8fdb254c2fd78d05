"""Building file paths from names, confined to the directory they belong in.

Every path the servers make from a name (a topic's consume-queue directory, a queue file, a
config file) is made by ``child``: the name must be one plain path component, and the path,
resolved (symbolic links followed), must be a direct child of its resolved parent directory.
Anything else raises ``UnsafePath`` before a file is created, written or deleted.

Names from the wire are validated long before (``mqadmin.model.names``: no ``.``, ``/`` or NUL can
pass), so this is defence in depth: it also covers names read back from the commit log or the
data directory, which may predate validation or have been put there by hand.
"""

from __future__ import annotations

import os
from pathlib import Path

NAME_MAX_BYTES = 255
"""The longest file name most file systems accept (NAME_MAX)."""


class UnsafePath(ValueError):
    """A name that would make a path outside its directory (or no valid file name at all)."""


def child(directory: Path, name: str) -> Path:
    """``directory/name``, checked to stay a direct child of ``directory`` once resolved."""
    if not name or name in (".", "..") or "/" in name or "\x00" in name:
        raise UnsafePath(f"{name!r} is not a plain file name (in {directory})")
    try:
        encoded = os.fsencode(name)
    except UnicodeEncodeError:
        raise UnsafePath(f"{name[:40]!r} cannot be a file name (not valid Unicode) (in {directory})") from None
    if len(encoded) > NAME_MAX_BYTES:
        raise UnsafePath(f"{name[:40]!r}… is longer than {NAME_MAX_BYTES} bytes (in {directory})")
    base = directory.resolve()
    path = base / name
    resolved = path.resolve()
    if resolved.parent != base or resolved.name != name:
        raise UnsafePath(f"{path} resolves to {resolved}, outside {base}")
    return path
