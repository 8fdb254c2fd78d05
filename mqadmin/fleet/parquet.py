"""The Parquet copy of the topics table, written next to its gzip JSON Lines when pyarrow is installed.

gzip JSON Lines stay the export's format (readable by anything: ``zcat | jq``), but they are slow to read at
scale: a gzip file is one task for Spark and every row must be parsed as text. The topics table, by far the
largest, is therefore also written as Parquet (columnar, typed, split by row groups); the manifest lists its
files under the table's ``parquet`` key, and the audit reads them instead when every input has them.
Without pyarrow (it comes with the ``spark`` extra) no copy is written and readers use the JSON Lines.

The copy also carries 64-bit keys of the names (``clusterKey``, ``brokerKey``, ``topicKey``: ``job.KEY_COLUMNS``),
so that Spark groups and joins on longs, and what the audit needs to know of each topic's name
(``job.TOPIC_FACTS``: a second hash, its kind, a retry topic's name), so that Spark's pass over every row decodes
no name. Its rows are sorted so that each topic's rows are adjacent (Spark then combines a topic's rows before
its shuffle); the manifest says so under the table's ``parquet_keys``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
from pathlib import Path
from typing import Any

from mqadmin.audit.job import KEY_COLUMNS, KEY_HASH, KEYS_KEY, PARQUET_KEY, TOPIC_FACTS, stable_key, topic_facts
from mqadmin.fleet.schema import TABLES, column_names

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
    keys = [pa.field(name, pa.int64(), nullable=True) for name, _ in KEY_COLUMNS.get(table, ())]
    facts = [pa.field(name, types[t], nullable=True) for name, t in TOPIC_FACTS] if table == "topics" else []
    return pa.schema([pa.field(c.name, types[c.type], nullable=True) for c in TABLES[table]] + keys + facts)


class _Keys:
    """A row's ``KEY_COLUMNS`` values, then for a topic row its ``TOPIC_FACTS``, each remembered for the last names
    it was asked for (a topic's rows come together, a broker's and a cluster's in runs)."""

    def __init__(self, table: str) -> None:
        names = column_names(table)
        self.parts = [tuple(names.index(c) for c in columns) for _, columns in KEY_COLUMNS.get(table, ())]
        self.last: list[tuple[tuple[Any, ...], int | None]] = [((), 0) for _ in self.parts]
        self.facts = tuple(names.index(c) for c in ("source", "cluster", "topic")) if table == "topics" else None
        self.last_facts: tuple[tuple[Any, ...], tuple[Any, ...]] = ((), ())

    def __call__(self, values: tuple[Any, ...]) -> tuple[Any, ...]:
        out: list[Any] = []
        for i, where in enumerate(self.parts):
            names = tuple(values[j] for j in where)
            seen, key = self.last[i]
            if names != seen:
                key = stable_key(*names) if None not in names else None  # no key for a row without a name
                self.last[i] = (names, key)
            out.append(key)
        if self.facts is not None:
            names = tuple(values[j] for j in self.facts)
            if names != self.last_facts[0]:
                self.last_facts = (names, topic_facts(*names))
            out.extend(self.last_facts[1])
        return tuple(out)


class ParquetTableWriter:
    """Rows of one table (or part) as Parquet, in row groups of ``ROW_GROUP`` rows, under a temporary name
    until ``close``. Rows are tuples in the table's column order (maps as dicts); the writer adds the table's
    key columns. Unless ``grouped`` (the caller writes each topic's rows together), ``close`` sorts the rows by
    cluster and topic key."""

    def __init__(self, root: Path, table: str, part: int | None = None, grouped: bool = False) -> None:
        import pyarrow.parquet as pq

        self.table, self.keys, self.grouped = table, _Keys(table), grouped
        self.relpath = parquet_file(table, part)
        self.path = root / self.relpath
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._tmp = self.path.with_name(self.path.name + ".tmp")
        self._schema = arrow_schema(table)
        self._writer = pq.ParquetWriter(self._tmp, self._schema, compression="snappy")
        self._columns: list[list[Any]] = [[] for _ in self._schema]

    def write(self, values: tuple[Any, ...]) -> None:
        if self.keys.parts:
            values = (*values, *self.keys(values))
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
        if self.keys.parts and not self.grouped:
            self._sort()
        with open(self._tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(self._tmp, self.path)

    def _sort(self) -> None:
        """Rewrite the file with its rows sorted by cluster and topic key (an export writes a broker's topics
        together; a topic's rows on the brokers of its cluster then end up in different row groups)."""
        import pyarrow.parquet as pq

        order = [(name, "ascending") for name, _ in KEY_COLUMNS[self.table] if name != "brokerKey"]
        rows = pq.read_table(self._tmp, schema=self._schema).sort_by(order)
        pq.write_table(rows, self._tmp, row_group_size=ROW_GROUP, compression="snappy")

    def entry(self) -> dict[str, Any]:
        """What the table's manifest entry says of this copy: its file, and how its keys were made."""
        return {PARQUET_KEY: [self.relpath]} | ({KEYS_KEY: KEY_HASH} if self.keys.parts else {})

    def abort(self) -> None:
        with contextlib.suppress(Exception):
            self._writer.close()
        with contextlib.suppress(FileNotFoundError):
            self._tmp.unlink()
