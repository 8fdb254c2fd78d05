"""Per-queue index of the commit log: one fixed 20-byte entry per message, as in RocketMQ.

Entry = commit-log offset (i64) | record size (i32) | tags hash code (i64). Queue offset N is
entry N. The whole index is kept in memory (20 bytes per message) and appended to
``<data_dir>/consumequeue/<topic>/<queueId>`` by the store's flush; what a crash loses of it is
rebuilt from the commit log at the next start.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

ENTRY = struct.Struct(">qiq")
ENTRY_SIZE = ENTRY.size


class ConsumeQueue:
    __slots__ = ("topic", "queue_id", "path", "entries", "flushed")

    def __init__(self, topic: str, queue_id: int, path: Path) -> None:
        self.topic = topic
        self.queue_id = queue_id
        self.path = path
        self.entries = bytearray()
        self.flushed = 0
        """Bytes of ``entries`` already written to the file."""

    @property
    def count(self) -> int:
        """The max offset: the queue offset the next message gets."""
        return len(self.entries) // ENTRY_SIZE

    def append(self, phys: int, size: int, code: int) -> None:
        self.entries += ENTRY.pack(phys, size, code)

    def extend(self, entries: bytes | bytearray) -> None:
        """Append packed ``ENTRY``s (a batch's, in queue-offset order)."""
        self.entries += entries

    def entry(self, offset: int) -> tuple[int, int, int]:
        return ENTRY.unpack_from(self.entries, offset * ENTRY_SIZE)

    def load(self, log_end: int) -> None:
        """Read the file; drop a torn entry and entries for records at or past ``log_end``."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            data = b""
        n = len(data) // ENTRY_SIZE
        while n > 0:
            phys, size, _ = ENTRY.unpack_from(data, (n - 1) * ENTRY_SIZE)
            if phys + size <= log_end:
                break
            n -= 1
        self.entries = bytearray(data[: n * ENTRY_SIZE])
        self.flushed = len(self.entries)
        if len(data) != self.flushed:
            with open(self.path, "r+b") as f:
                f.truncate(self.flushed)

    def unflushed(self) -> tuple[int, bytes]:
        """(file position, bytes) still to be written."""
        return self.flushed, bytes(self.entries[self.flushed :])


def write_at(path: Path, pos: int, data: bytes) -> bool:
    """Write ``data`` at ``pos`` and fsync; True when the file was created (its directory needs a sync)."""
    created = not path.exists()
    if created:
        path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        view = memoryview(data)
        while view:
            n = os.pwrite(fd, view, pos)
            view = view[n:]
            pos += n
        os.fsync(fd)
    finally:
        os.close(fd)
    return created
