"""Durable JSON documents with group commit.

Callers change their in-memory state, then ``await commit(record)``. One flusher task writes for
every caller waiting at that moment, so N concurrent changes cost one disk write, and ``commit``
returns only once its change is on disk (a change is never acknowledged unsaved).

Two modes:

* snapshot only (``journal=False``): each flush rewrites the whole file atomically
  (``mqadmin.files.atomic_write``: temporary file, fsync, previous version kept as ``.bak``, rename).
* journal (``journal=True``): each flush appends the batch's records, one JSON line each, to
  ``<file>.log`` and fsyncs once. When the journal holds half as many records as the snapshot has
  entries (at least ``compact_min``), and at ``close``, the whole snapshot is written and the
  journal emptied. Loading replays the journal over the snapshot; a torn last line (a crash
  mid-append) is cut off; a bad record elsewhere is reported and skipped, never the valid ones
  after it. Records must be idempotent (full puts and deletes) because a crash between the
  snapshot and the truncation replays records the snapshot already holds.

Reading the snapshot goes through ``persist.read_metadata``: the owner's ``parse`` checks the
content, an unusable file falls back to its ``.bak``, and with neither usable loading fails with
an error naming the file (or starts empty when ``reset_unreadable`` says so).

Creating 10,000 topics thus costs about 10,000 short appends in a few hundred fsyncs plus a few
full rewrites, instead of 10,000 rewrites of an ever larger file.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mqadmin.files import atomic_write, fsync_dir
from mqadmin.server.batcher import Batcher
from mqadmin.server.bodies import Entries
from mqadmin.server.persist import read_metadata
from mqadmin.server.validation import json_text_problem

log = logging.getLogger(__name__)

MAX_REPORTED = 10
"""Bad journal records logged one by one; beyond that only their number."""


def _json_line(line: bytes) -> Any:
    obj = json.loads(line)
    where = json_text_problem(line, obj)
    if where is not None:
        raise ValueError(f"the text at {where} is not valid Unicode")
    return obj


def _short(e: Exception) -> str:
    text = str(e)
    return text if len(text) <= 200 else text[:200] + "…"


_ABSENT = object()


async def change_durably(table: dict[Any, Any], changes: dict[Any, Any], commit: Callable[[], Awaitable[None]]) -> None:
    """Apply ``changes`` to ``table`` (a value of None deletes the key), then ``await commit()``. If the
    commit fails, undo each change nothing has overwritten since and re-raise: a change answered
    with an error leaves no trace in memory."""
    old = {k: table.get(k, _ABSENT) for k in changes}
    for k, v in changes.items():
        if v is None:
            table.pop(k, None)
        else:
            table[k] = v
    try:
        await commit()
    except Exception:
        for k, v in changes.items():
            if table.get(k, _ABSENT) is (_ABSENT if v is None else v):
                if old[k] is _ABSENT:
                    table.pop(k, None)
                else:
                    table[k] = old[k]
        raise


class DurableJson:
    def __init__(
        self,
        path: Path,
        snapshot: Callable[[], Any],
        *,
        parse: Callable[[Any], Any] = lambda obj: obj,
        parse_record: Callable[[Any], Any] = lambda rec: rec,
        reset_unreadable: bool = False,
        journal: bool = False,
        size: Callable[[], int] = lambda: 0,
        compact_min: int = 1000,
    ) -> None:
        self.path = path
        self.journal_path = path.with_name(path.name + ".log")
        self._snapshot = snapshot
        self._parse = parse
        self._parse_record = parse_record
        self._reset_unreadable = reset_unreadable
        self._journal = journal
        self._size = size
        self._compact_min = compact_min
        self._batcher: Batcher[str] = Batcher(self._flush)
        self._journal_records = 0
        self._journal_fd: int | None = None
        self.flushes = 0

    # --- loading ---------------------------------------------------------------------------

    def load(self) -> tuple[Any | None, list[Any]]:
        """The parsed snapshot (``persist.read_metadata``: the file, else its backup, else None for a
        file never written; MetadataError when neither is usable) and the parsed journal records.

        A torn tail (a crash mid-append) is cut off so later appends start on a clean line. A bad
        record elsewhere is reported with its line and byte position, copied to ``<journal>.rejected``
        and skipped; every valid record after it is kept.
        """
        snapshot = read_metadata(self.path, self._parse, reset=self._reset_unreadable)
        try:
            data = self.journal_path.read_bytes()
        except FileNotFoundError:
            return snapshot, []
        records: list[Any] = []
        rejected: list[bytes] = []
        pos = 0
        for lineno, line in enumerate(data.splitlines(keepends=True), 1):
            if not line.endswith(b"\n"):
                log.warning("%s: cutting %d bytes of torn journal tail at byte %d", self.journal_path, len(line), pos)
                break
            try:
                records.append(self._parse_record(_json_line(line)))
            except (ValueError, TypeError, OverflowError, RecursionError) as e:
                rejected.append(line)
                if len(rejected) <= MAX_REPORTED:
                    log.error(
                        "%s: record on line %d (byte %d) is not valid and was skipped (%s); kept in %s",
                        self.journal_path, lineno, pos, _short(e), self._rejected_path,
                    )  # fmt: skip
            pos += len(line)
        if len(rejected) > MAX_REPORTED:
            log.error("%s: %d invalid records in all were skipped", self.journal_path, len(rejected))
        if rejected:
            with open(self._rejected_path, "ab") as f:
                f.write(b"".join(rejected))
                os.fsync(f.fileno())
            log.warning("%s: the %d valid records were kept", self.journal_path, len(records))
        if pos != len(data):
            with open(self.journal_path, "r+b") as f:
                f.truncate(pos)
                os.fsync(f.fileno())
        self._journal_records = len(records) + len(rejected)  # compacted away at the next snapshot
        return snapshot, records

    @property
    def _rejected_path(self) -> Path:
        return self.journal_path.with_name(self.journal_path.name + ".rejected")

    # --- committing ------------------------------------------------------------------------

    def committer(self, *records: Any) -> Callable[[], Awaitable[None]]:
        """``commit`` of ``records``, to be called later (see ``change_durably``)."""
        return lambda: self.commit(*records)

    async def commit(self, *records: Any) -> None:
        """Wait until the current in-memory state (and ``records``, in journal mode) is on disk; a record given as
        a ``str`` is its JSON text already."""
        if self._journal:
            await self._batcher.submit(
                *(
                    (r if isinstance(r, str) else json.dumps(r, separators=(",", ":"), ensure_ascii=False)) + "\n"
                    for r in records
                )
            )
        else:
            await self._batcher.submit()

    async def _flush(self, lines: list[str]) -> None:
        if not self._journal:
            await self._write_snapshot()
            self.flushes += 1
            return
        if lines:
            await asyncio.to_thread(self._append, "".join(lines).encode())
        self._journal_records += len(lines)
        self.flushes += 1
        # Half the table, not all of it: while topics are only added the table grows with the journal
        # and would never be caught up with. Replay stays O(table); rewrites cost ~2 entries per record.
        if self._journal_records >= max(self._compact_min, self._size() // 2):
            try:
                await self._write_snapshot()
            except OSError as e:  # the journal still holds everything; retried at the next flush
                log.error("%s: snapshot failed: %s", self.path, e)

    async def _write_snapshot(self) -> None:
        obj = self._snapshot()
        await asyncio.to_thread(self._replace_snapshot, obj)

    def _replace_snapshot(self, obj: Any) -> None:
        atomic_write(self.path, dumps_table(obj), backup=True)
        if self._journal and (self._journal_fd is not None or self.journal_path.exists()):
            fd = self._journal_file()
            os.ftruncate(fd, 0)
            os.fsync(fd)
        self._journal_records = 0

    def _journal_file(self) -> int:
        if self._journal_fd is None:
            created = not self.journal_path.exists()
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._journal_fd = os.open(self.journal_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            if created:
                fsync_dir(self.path.parent)
        return self._journal_fd

    def _append(self, data: bytes) -> None:
        fd = self._journal_file()
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        os.fsync(fd)

    async def close(self) -> None:
        """Flush what is pending, leave a complete snapshot and an empty journal."""
        await self._batcher.drain()
        if self._journal and self._journal_records:
            await self._write_snapshot()
        if self._journal_fd is not None:
            os.close(self._journal_fd)
            self._journal_fd = None


_compact = json.JSONEncoder(separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode


def dumps_table(obj: dict[str, Any]) -> bytes:
    """Readable JSON that is fast to write: one top-level key per line, and a map value expanded
    to one compact entry per line (``json.dumps(indent=...)`` falls back to the slow pure-Python
    encoder, which costs seconds for ten thousand topics)."""
    lines = []
    for key, value in sorted(obj.items()):
        if isinstance(value, Entries):  # members already encoded (``TableJson.entries``)
            inner = ",\n".join(f"\t\t{text}" for text in value)
            lines.append(f"\t{_compact(key)}:{{\n{inner}\n\t}}" if value else f"\t{_compact(key)}:{{}}")
        elif isinstance(value, dict) and value:
            inner = ",\n".join(f"\t\t{_compact(k)}:{_compact(v)}" for k, v in sorted(value.items()))
            lines.append(f"\t{_compact(key)}:{{\n{inner}\n\t}}")
        else:
            lines.append(f"\t{_compact(key)}:{_compact(value)}")
    return ("{\n" + ",\n".join(lines) + "\n}\n").encode()
