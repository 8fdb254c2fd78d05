"""Writing an export directory: gzip JSON Lines tables (the topics table also as Parquet, ``fleet.parquet``),
each written under a temporary name and renamed into place when complete, and the manifest written last (so a
manifest only ever names whole files)."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
from pathlib import Path
from typing import Any

from mqadmin.fleet import manifest as mf
from mqadmin.fleet import parquet
from mqadmin.fleet.schema import TABLES, column_names

_FLUSH_EVERY = 2048


def table_file(table: str, part: int | None = None) -> str:
    """Path of a table's file relative to the export directory: ``t.jsonl.gz`` or ``t/part-00007.jsonl.gz``."""
    return f"{table}.jsonl.gz" if part is None else f"{table}/part-{part:05d}.jsonl.gz"


class TableWriter:
    """Rows of one table (or one part of it) as gzip JSON Lines.

    Rows are buffered and compressed in batches; the gzip header carries no timestamp, so the same rows
    give the same bytes (the synthetic generator relies on it). With ``copy`` (default: for the topics table
    when pyarrow is installed) the rows also go to a Parquet file, listed in ``entry()`` under ``parquet``;
    ``grouped``: each topic's rows are written together (the copy needs no sorting).
    """

    def __init__(
        self,
        root: Path,
        table: str,
        part: int | None = None,
        compresslevel: int = 6,
        copy: bool | None = None,
        grouped: bool = False,
    ) -> None:
        if copy is None:
            copy = table in parquet.COPIED_TABLES and parquet.available()
        self.columns = column_names(table)
        self.copy = parquet.ParquetTableWriter(root, table, part, grouped) if copy else None
        self.relpath = table_file(table, part)
        self.path = root / self.relpath
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._tmp = self.path.with_name(self.path.name + ".tmp")
        self._raw = open(self._tmp, "wb")  # noqa: SIM115 - closed in close()/abort()
        self._gz = gzip.GzipFile(filename="", mode="wb", fileobj=self._raw, compresslevel=compresslevel, mtime=0)
        self._buf: list[str] = []
        self.rows = 0

    def write(self, row: dict[str, Any]) -> None:
        values = tuple(row.get(c) for c in self.columns) if self.copy else None
        self.write_line(json.dumps(row, separators=(",", ":"), ensure_ascii=False), values)

    def write_line(self, line: str, values: tuple[Any, ...] | None = None) -> None:
        """One row already serialised as a JSON object (no newline); ``values``, in column order, are the
        same row for the Parquet copy (required when there is one)."""
        if self.copy:
            assert values is not None, "a table with a Parquet copy needs each row's values"
            self.copy.write(values)
        self._buf.append(line)
        self.rows += 1
        if len(self._buf) >= _FLUSH_EVERY:
            self._flush()

    def _flush(self) -> None:
        if self._buf:
            self._buf.append("")
            self._gz.write("\n".join(self._buf).encode())
            self._buf.clear()

    def close(self) -> tuple[str, int]:
        """Finish the file and move it into place; returns (relative path, row count)."""
        self._flush()
        self._gz.close()
        self._raw.flush()
        os.fsync(self._raw.fileno())
        self._raw.close()
        os.replace(self._tmp, self.path)
        if self.copy:
            self.copy.close()
        return self.relpath, self.rows

    def entry(self) -> dict[str, Any]:
        """The table's manifest entry once closed: files, rows, and the Parquet copy's files if any."""
        out: dict[str, Any] = {"files": [self.relpath], "rows": self.rows}
        return out | (self.copy.entry() if self.copy else {})

    def abort(self) -> None:
        if self.copy:
            self.copy.abort()
        with contextlib.suppress(OSError):
            self._gz.close()
        self._raw.close()
        with contextlib.suppress(FileNotFoundError):
            self._tmp.unlink()


class ExportWriter:
    """All tables of one export as single files; ``finish`` closes them and writes the manifest.

    An old ``manifest.json`` in the directory is removed first: until the new one is written the
    directory does not claim to hold a complete export.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            (root / mf.MANIFEST).unlink()
        self.tables = {name: TableWriter(root, name) for name in TABLES}

    def write(self, table: str, row: dict[str, Any]) -> None:
        self.tables[table].write(row)

    def finish(self, manifest: dict[str, Any]) -> dict[str, Any]:
        """Close every table, record files and row counts in ``manifest`` and write it; returns it."""
        manifest["tables"] = {}
        for name, writer in self.tables.items():
            writer.close()
            manifest["tables"][name] = writer.entry()
        mf.write_manifest(self.root, manifest)
        return manifest

    def abort(self) -> None:
        for writer in self.tables.values():
            writer.abort()
