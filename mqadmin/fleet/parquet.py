"""The Parquet copy of the topics table, written next to its gzip JSON Lines when pyarrow is installed.

gzip JSON Lines stay the export's format (readable by anything: ``zcat | jq``), but they are slow to read at
scale: a gzip file is one task for Spark and every row must be parsed as text. The topics table, by far the
largest, is therefore also written as Parquet (columnar, typed, split by row groups); the manifest lists its
files under the table's ``parquet`` key, and the audit reads them instead when every input has them.
Without pyarrow (it comes with the ``spark`` extra) no copy is written and readers use the JSON Lines.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
from pathlib import Path
from typing import Any

from mqadmin.fleet.schema import TABLES

PARQUET_KEY = "parquet"
"""The manifest key, in a table's entry, listing its Parquet files."""
COPIED_TABLES = ("topics",)
ROW_GROUP = 131_072
"""Rows per row group: the unit Spark splits a Parquet file by (so one part file still feeds every core)."""


def available() -> bool:
    return importlib.util.find_spec("pyarrow") is not None


def parquet_file(table: str, part: int | None = None) -> str:
    """Path relative to the export directory: ``t.parquet`` or ``t/part-00007.parquet``."""
    return f"{table}.parquet" if part is None else f"{table}/part-{part:05d}.parquet"


def arrow_schema(table: str) -> Any:
    import pyarrow as pa

    types = {
        "string": pa.string(),
        "int": pa.int32(),
        "long": pa.int64(),
        "bool": pa.bool_(),
        "map<string,string>": pa.map_(pa.string(), pa.string()),
    }
    return pa.schema([pa.field(c.name, types[c.type], nullable=True) for c in TABLES[table]])


class ParquetTableWriter:
    """Rows of one table (or part) as Parquet, in row groups of ``ROW_GROUP`` rows, under a temporary name
    until ``close``. Rows are tuples in the schema's column order (maps as dicts)."""

    def __init__(self, root: Path, table: str, part: int | None = None) -> None:
        import pyarrow.parquet as pq

        self.relpath = parquet_file(table, part)
        self.path = root / self.relpath
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._tmp = self.path.with_name(self.path.name + ".tmp")
        self._schema = arrow_schema(table)
        self._writer = pq.ParquetWriter(self._tmp, self._schema, compression="snappy")
        self._columns: list[list[Any]] = [[] for _ in self._schema]

    def write(self, values: tuple[Any, ...]) -> None:
        for column, v in zip(self._columns, values, strict=True):
            column.append(v)
        if len(self._columns[0]) >= ROW_GROUP:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        if self._columns[0]:
            arrays = [pa.array(c, type=f.type) for c, f in zip(self._columns, self._schema, strict=True)]
            self._writer.write_table(pa.Table.from_arrays(arrays, schema=self._schema))
            self._columns = [[] for _ in self._schema]

    def close(self) -> None:
        self._flush()
        self._writer.close()
        with open(self._tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(self._tmp, self.path)

    def abort(self) -> None:
        with contextlib.suppress(Exception):
            self._writer.close()
        with contextlib.suppress(FileNotFoundError):
            self._tmp.unlink()
