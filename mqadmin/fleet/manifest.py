"""``manifest.json``: what an export holds and how collecting it went.

Shape (schema version 3; documented in docs/fleet-schema.md)::

    {"kind": "mqadmin-fleet-export", "schemaVersion": 3, "createdAt": "2026-01-01T00:00:00Z",
     "producer": {"tool": "mqadmin exportMetadata", "version": "0.1.0"},
     "status": "ok" | "partial" | "failed",
     "tables": {"topics": {"files": ["topics.jsonl.gz"], "rows": 123}, ...},
     "sources": [{"source": "prod-a", "namesrv": ["10.0.0.1:9876"], "status": "ok", "reason": null,
                  "orderConfOk": true,
                  "clusters": [{"cluster": "DefaultCluster",
                                "brokers": [{"brokerName": "broker-a", "brokerId": 0, "addr": "...",
                                             "role": "master", "status": "ok", "reason": null,
                                             "errors": [], "rows": {"topics": 10, "groups": 2,
                                                                    "consumerLag": 3}}]}]}]}

The manifest is the authority on which files make up the export: readers open the files it lists. The file's
keys are camelCase; in memory the manifest keeps snake_case names (``schema_version``, ``order_conf_ok``):
``write_manifest`` and ``load_manifest`` translate, and read version 1 files (snake_case) unchanged. The
rows are read with today's column names whatever the export's version (``iter_rows``).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mqadmin.audit.job import READABLE_VERSIONS, camel_keys, iter_jsonl, manifest_from_json, snake_columns
from mqadmin.files import atomic_write
from mqadmin.fleet.schema import KIND, SCHEMA_VERSION, TABLES

MANIFEST = "manifest.json"


class ExportFormatError(ValueError):
    """A directory that is not a readable export of a schema version we know."""


def new_manifest(producer: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": KIND,
        "schema_version": SCHEMA_VERSION,
        "created_at": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "producer": producer,
        "status": "ok",
        "tables": {},
        "sources": [],
    }


def write_manifest(root: Path, manifest: dict[str, Any]) -> None:
    atomic_write(root / MANIFEST, (json.dumps(camel_keys(manifest), indent=2, sort_keys=True) + "\n").encode())


def load_manifest(root: Path) -> dict[str, Any]:
    path = root / MANIFEST
    try:
        manifest = manifest_from_json(path.read_text())
    except FileNotFoundError:
        raise ExportFormatError(f"{root} has no {MANIFEST} (not an export, or the export did not finish)") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise ExportFormatError(f"{path} is not valid JSON ({e})") from None
    check_manifest(manifest, str(path))
    return manifest


def check_manifest(manifest: Any, where: str) -> None:
    if not isinstance(manifest, dict) or manifest.get("kind") != KIND:
        raise ExportFormatError(f"{where} is not an mqadmin fleet export manifest")
    version = manifest.get("schema_version")
    if version not in READABLE_VERSIONS:
        readable = " and ".join(map(str, READABLE_VERSIONS))
        raise ExportFormatError(f"{where} has schema version {version!r}; this mqadmin reads {readable}")
    missing = [t for t in TABLES if t not in (manifest.get("tables") or {})]
    if missing:
        raise ExportFormatError(f"{where} lists no files for table(s) {', '.join(missing)}")


def table_paths(root: Path, manifest: dict[str, Any], table: str) -> list[Path]:
    return [root / rel for rel in manifest["tables"][table]["files"]]


def iter_rows(root: Path, manifest: dict[str, Any], table: str) -> Iterator[dict[str, Any]]:
    """Every row of a table, file by file, without holding the table in memory; an export older than version 3
    has its columns renamed to today's names (camelCase)."""
    snake = snake_columns(manifest)
    for path in table_paths(root, manifest, table):
        yield from iter_jsonl(path, snake)
