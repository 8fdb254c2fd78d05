"""Output: rich tables on a terminal, plain aligned text when piped or with NO_COLOR, JSON with
``--format json``. Data goes to stdout, notes and warnings to stderr.

rich is imported only when a styled table is really drawn, to keep start-up fast.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mqadmin.cli.options import GLOBAL, OutputFormat

STATUS_STYLES = {
    "created": "green",
    "updated": "yellow",
    "unchanged": "dim",
    "deleted": "green",
    "written": "green",
    "ok": "green",
    "failed": "bold red",
    "master": "bold",
}


@dataclass(frozen=True, slots=True)
class Column:
    header: str
    numeric: bool = False  # right-aligned
    styled: bool = False  # cell text picks a colour from STATUS_STYLES on a terminal


def json_output() -> bool:
    return GLOBAL.format == OutputFormat.json


def styled_output() -> bool:
    """Colours and box tables only for a terminal, and never with NO_COLOR set (https://no-color.org)."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return sys.stdout.isatty()


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def print_json_line(obj: Any) -> None:
    """One compact JSON document per line (for repeated output such as ``clusterList -i``)."""
    sys.stdout.write(json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n")
    sys.stdout.flush()


def print_table(columns: Sequence[Column], rows: Iterable[Sequence[object]], title: str | None = None) -> None:
    cells = [["" if v is None else str(v) for v in row] for row in rows]
    if styled_output():
        _rich_table(columns, cells, title)
    else:
        if title:
            sys.stdout.write(f"{title}\n")
        sys.stdout.write(plain_table(columns, cells))
    sys.stdout.flush()


def plain_table(columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> str:
    """Upper-case headers, columns two spaces apart, numbers right-aligned, no trailing blanks."""
    headers = [c.header.upper() for c in columns]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    lines = []
    for row in [headers, *rows]:
        parts = [
            (cell.rjust(w) if col.numeric else cell.ljust(w)) for cell, w, col in zip(row, widths, columns, strict=True)
        ]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines) + "\n"


def _rich_table(columns: Sequence[Column], rows: list[list[str]], title: str | None) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title, title_justify="left", header_style="bold")
    for c in columns:
        table.add_column(c.header, justify="right" if c.numeric else "left", no_wrap=not c.styled)
    for row in rows:
        styles = [STATUS_STYLES.get(cell, "") if col.styled else "" for cell, col in zip(row, columns, strict=True)]
        table.add_row(*(Text(cell, style=style) for cell, style in zip(row, styles, strict=True)))
    Console().print(table)


def note(message: str) -> None:
    """A diagnostic for people, on stderr (never mixed into the data on stdout)."""
    sys.stderr.write(f"{message}\n")
