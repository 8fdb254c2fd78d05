"""Server configs (getBrokerConfig, getNamesrvConfig, getControllerConfig) as KEY/VALUE tables and JSON."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from mqadmin.cli.doc_types import Outcome, TargetResultDoc

if TYPE_CHECKING:
    from mqadmin.admin import TargetResult


class ConfigResultDoc(TargetResultDoc):
    config: Annotated[dict[str, str] | None, "every config key and its value, sorted (null: failed)"]


class ConfigsDoc(TypedDict):
    results: Annotated[list[ConfigResultDoc], "each server asked"]
    outcome: Outcome


class BrokerConfigsDoc(ConfigsDoc):
    cluster: Annotated[str | None, "-c (null with -b)"]


def show_configs(
    results: Sequence[TargetResult],
    command: str,
    *,
    single: bool,
    who: Sequence[str],
    who_of: Callable[[TargetResult], tuple[Any, ...]],
    kind: str = "BROKER",
    **json_fields: Any,
) -> None:
    """Print each server's config and exit as the results say. ``single``: one server was asked, a bare
    KEY/VALUE table; otherwise each row starts with the ``who`` columns, filled by ``who_of``. Servers that
    did not answer are listed after the table (as ``kind``)."""
    from mqadmin.cli.render import Column, json_output, print_json, print_table
    from mqadmin.cli.runner import exit_for_results, print_results, results_json

    if json_output():
        doc = results_json(results, **json_fields)
        for entry, r in zip(doc["results"], results, strict=True):
            entry["config"] = dict(sorted(r.data.items())) if r.ok else None
        print_json(doc)
    else:
        answered = [r for r in results if r.ok]
        if single:
            print_table([Column("KEY"), Column("VALUE")], sorted(answered[0].data.items()) if answered else [])
        else:
            rows = [(*who_of(r), k, v) for r in answered for k, v in sorted(r.data.items())]
            print_table([*(Column(c) for c in who), Column("KEY"), Column("VALUE")], rows)
        failed = [r for r in results if not r.ok]
        if failed:
            print()
            print_results(failed, kind)
    exit_for_results(results, command)
