"""The commit log: every message of every topic, appended to fixed-capacity segment files.

Segments live in ``<data_dir>/commitlog/`` and are named, like RocketMQ's, by the 20-digit
physical offset of their first byte; segment ``k`` starts at ``k * segment_size``. A record never
spans two segments: one that does not fit in what is left of a segment goes to the start of the
next, and the unused end of the full segment is simply not written (files are not preallocated).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

from mqadmin.files import fsync_dir
from mqadmin.server.store.records import BadRecord, RecordInfo, parse_record

log = logging.getLogger(__name__)

_NAME_DIGITS = 20


class CommitLog:
    def __init__(self, directory: Path, segment_size: int) -> None:
        self.dir = directory
        self.segment_size = segment_size
        self._fds: dict[int, int] = {}
        self.dir.mkdir(parents=True, exist_ok=True)
        self._first: int | None = None
        self.read_ahead = True
        """False: the kernel is told reads are random (POSIX_FADV_RANDOM: no read-ahead), as Apache's
        dataReadAheadEnable=false has it madvise MADV_RANDOM over its mapped files."""

    # --- layout ----------------------------------------------------------------------------

    def segment_start(self, offset: int) -> int:
        return offset - offset % self.segment_size

    def place(self, offset: int, size: int) -> int:
        """Where a record of ``size`` bytes goes if the log currently ends at ``offset``."""
        start = self.segment_start(offset)
        return offset if offset + size <= start + self.segment_size else start + self.segment_size

    def _path(self, start: int) -> Path:
        return self.dir / f"{start:0{_NAME_DIGITS}d}"

    def segments(self) -> list[int]:
        """Start offsets of the segment files on disk, ascending."""
        out = []
        for p in self.dir.iterdir():
            if len(p.name) == _NAME_DIGITS and p.name.isdigit() and p.is_file():
                out.append(int(p.name))
        return sorted(out)

    @property
    def first(self) -> int:
        """The offset of the oldest byte still on disk (0 for an empty log): segments expire oldest first."""
        if self._first is None:
            segments = self.segments()
            self._first = segments[0] if segments else 0
        return self._first

    def modified(self, start: int) -> float:
        """When the segment starting at ``start`` was last written (seconds since the epoch)."""
        return self._path(start).stat().st_mtime

    def remove(self, start: int) -> None:
        """Delete the segment starting at ``start`` (an expired one)."""
        fd = self._fds.pop(start, None)
        if fd is not None:
            os.close(fd)
        self._path(start).unlink(missing_ok=True)
        fsync_dir(self.dir)
        self._first = None

    def set_read_ahead(self, enabled: bool) -> None:
        """Turn the kernel's read-ahead of the segments on or off (every open segment and the ones opened later)."""
        self.read_ahead = enabled
        for fd in self._fds.values():
            self._advise(fd)

    def _advise(self, fd: int) -> None:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_NORMAL if self.read_ahead else os.POSIX_FADV_RANDOM)

    def _fd(self, start: int, create: bool = False) -> int | None:
        fd = self._fds.get(start)
        if fd is None:
            path = self._path(start)
            if not create and not path.exists():
                return None
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            self._fds[start] = fd
            if not self.read_ahead:
                self._advise(fd)
            if create:
                fsync_dir(self.dir)
        return fd

    # --- writing and reading ---------------------------------------------------------------

    def write(self, offset: int, data: bytes | bytearray | memoryview) -> None:
        """Write ``data`` at physical ``offset``; it must lie within one segment."""
        start = self.segment_start(offset)
        fd = self._fd(start, create=True)
        assert fd is not None
        view = memoryview(data)
        pos = offset - start
        while view:
            n = os.pwrite(fd, view, pos)
            view = view[n:]
            pos += n

    def read(self, offset: int, size: int) -> bytes:
        start = self.segment_start(offset)
        fd = self._fd(start)
        if fd is None:
            return b""
        return os.pread(fd, size, offset - start)

    def fsync(self, begin: int, end: int) -> None:
        """Flush every segment holding bytes of ``[begin, end)`` to disk."""
        if end <= begin:
            return
        start = self.segment_start(begin)
        while start < end:
            fd = self._fds.get(start)
            if fd is not None:
                os.fsync(fd)
            start += self.segment_size

    def truncate(self, end: int) -> None:
        """Cut the log back to ``end``: shorten its segment, set aside every later segment."""
        keep = self.segment_start(end)
        for start in self.segments():
            if start > keep:
                self._set_aside(start)
            elif start == keep:
                fd = self._fd(start)
                if fd is not None and os.fstat(fd).st_size > end - start:
                    os.ftruncate(fd, end - start)
                    os.fsync(fd)

    def _set_aside(self, start: int) -> None:
        self._first = None
        fd = self._fds.pop(start, None)
        if fd is not None:
            os.close(fd)
        path = self._path(start)
        if path.stat().st_size == 0:
            path.unlink()
        else:
            path.rename(path.with_name(path.name + ".orphan"))
            log.warning("commit log: set aside %s, which lies beyond the recovered end", path.name)
        fsync_dir(self.dir)

    # --- recovery --------------------------------------------------------------------------

    def recover(self, begin: int, visit: Callable[[RecordInfo], None]) -> int:
        """Validate every record from ``begin`` on, call ``visit`` for each good one, cut off a torn
        tail and return the end of the log (the next write position)."""
        present = set(self.segments())
        if not present:
            return 0
        begin = max(begin, min(present))
        pos = begin
        while True:
            start = self.segment_start(pos)
            if start not in present:
                if pos != start:  # the checkpoint points into a segment that vanished
                    log.warning("commit log: segment %d is missing; the log ends at %d", start, start)
                    pos = start
                break
            fd = self._fd(start)
            assert fd is not None
            length = os.fstat(fd).st_size
            if pos - start > length:  # the checkpoint is past what the file holds
                log.warning("commit log: segment %d is shorter than the checkpoint says", start)
                pos = start + length
            data = os.pread(fd, length - (pos - start), pos - start)
            done, torn = _scan(data, pos, visit)
            pos += done
            if torn:
                log.warning("commit log: cutting a torn tail at offset %d (%d bytes)", pos, len(data) - done)
                break
            nxt = start + self.segment_size
            if nxt not in present:
                break
            pos = nxt
        self.truncate(pos)
        return pos

    def close(self) -> None:
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()


def _scan(data: bytes, base: int, visit: Callable[[RecordInfo], None]) -> tuple[int, bool]:
    """Visit the good records in ``data`` (which starts at physical ``base``); return the bytes
    consumed and whether the scan stopped at a bad record."""
    pos = 0
    while pos < len(data):
        try:
            info = parse_record(data, pos)
        except BadRecord:
            return pos, True
        if info.phys_offset != base + pos:
            return pos, True
        visit(info)
        pos += info.size
    return pos, False
