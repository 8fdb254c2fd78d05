"""Writing the JSON files of Java mqadmin's export commands (exportConfigs, exportMetrics and exportMetadata's
single-cluster form) and reporting what was written."""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetGiven, TargetResultDoc
from mqadmin.cli.errors import CliError, ExitCode, usage_error

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult

Collect = Callable[["AdminClient"], Awaitable[tuple[dict[str, Any], list["TargetResult"]]]]

DEFAULT_EXPORT_DIR = "/tmp/rocketmq/export"
"""Java mqadmin's default directory for the export files."""

ExportClusterOpt = Annotated[str, Option("-c", "--clusterName", metavar="CLUSTER", help="Cluster to export.")]
FilePathOpt = Annotated[
    str,
    Option("-f", "--filePath", metavar="DIR", help="Directory the file is written to (created if missing)."),
]


class ExportDoc(TypedDict):
    file: Annotated[str | None, "the file written (null: nothing could be read, nothing written)"]
    cluster: str
    results: Annotated[list[TargetResultDoc], "each master"]
    outcome: Outcome


class SingleMetadataExportDoc(TypedDict):
    """exportMetadata in Java's single-cluster form (-c or -b)."""

    file: Annotated[str | None, "the file written (null: nothing could be read, nothing written)"]
    target: TargetGiven
    results: Annotated[list[TargetResultDoc], "each broker read"]
    outcome: Outcome


def export_dir(value: str) -> Path:
    """``-f``: a directory (created when written); an existing file is a usage error."""
    path = Path(value.strip() or DEFAULT_EXPORT_DIR)
    if path.exists() and not path.is_dir():
        raise usage_error(f"-f {value} is a file", "pass a directory; the export file is written into it")
    return path


def write_json_file(directory: Path, name: str, doc: Any) -> Path:
    """Write ``doc`` as pretty JSON to ``directory/name`` atomically (a temporary file renamed over it), so
    a reader never sees half a file and a failed write leaves the previous one. Null values are left out of
    objects, as Java's fastjson writes them."""
    path = directory / name
    tmp = directory / f".{name}.tmp"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(_without_nulls(doc), f, indent="\t", ensure_ascii=False)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise CliError(f"cannot write {path}: {e.strerror or e}", "check -f and its permissions") from None
    return path


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def finish_export(
    directory: Path, name: str, doc: dict[str, Any] | None, results: Sequence[TargetResult], what: str, **fields: Any
) -> None:
    """Write the file unless no broker could be read, then show one row per broker and where the file is;
    exit 3 (some brokers missing from the file) or 1 (none read, nothing written)."""
    from mqadmin.cli.render import json_output, note, print_json
    from mqadmin.cli.runner import exit_for_results, print_results, results_json

    written = None
    if doc is not None and (any(r.ok for r in results) or not results):
        written = write_json_file(directory, name, doc)
    if json_output():
        print_json(results_json(results, file=str(written) if written else None, **fields))
    else:
        print_results(results)
        if written:
            note(f"exported to {written}")
    exit_for_results(results, what)
    if written is None:
        raise CliError(f"{what}: nothing to export", None, ExitCode.FAILURE)


def run_cluster_export(
    namesrv: str | None, cluster: str, file_path: str, name: str, what: str, collect: Collect
) -> None:
    """exportConfigs / exportMetrics: collect from the cluster, then write DIR/name and report."""
    from mqadmin.cli.runner import run_admin

    directory = export_dir(file_path)
    doc, results = run_admin(namesrv, collect)
    finish_export(directory, name, doc, results, what, cluster=cluster)
