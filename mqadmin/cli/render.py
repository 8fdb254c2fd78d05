"""Output: tables for people, JSON for scripts. Data goes to stdout, notes and warnings to stderr.

Tables never hide data: on a terminal a boxed table is drawn only when it fits the width; otherwise
the same rows are printed as plain aligned columns and, when even those do not fit, as one block per
record (``HEADER  value`` lines), so ids, addresses, names and statuses are never cut. Output that
is not a terminal, or with NO_COLOR, is always plain. Every cell and note passes through ``escape``,
so control characters from the cluster (message bodies, keys, remarks) never reach the terminal.

rich is imported only when a styled table is really drawn, json only for JSON output, to keep start-up fast.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from mqadmin.cli.options import OutputFormat
from mqadmin.cli.safe_text import escape
from mqadmin.cli.safe_text import note as note  # re-exported: commands write diagnostics through render
from mqadmin.cli.safe_text import warn as warn

STATUS_STYLES = {
    "created": "green",
    "updated": "yellow",
    "would update": "yellow",
    "unchanged": "dim",
    "deleted": "green",
    "not found": "dim",
    "written": "green",
    "ok": "green",
    "skipped": "dim",
    "failed": "bold red",
    "master": "bold",
}


class Column(NamedTuple):  # not a frozen dataclass: 10x cheaper to define (start-up)
    header: str
    numeric: bool = False  # right-aligned
    styled: bool = False  # cell text picks a colour from STATUS_STYLES on a terminal


def json_output() -> bool:
    from mqadmin.cli.settings import output_format

    return output_format() == OutputFormat.json


def styled_output() -> bool:
    """Colours and box tables only for a terminal, and never with NO_COLOR set (https://no-color.org)."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return sys.stdout.isatty()


def terminal_width() -> int:
    import shutil  # with bz2, lzma and zlib: only for a terminal's table

    return shutil.get_terminal_size((80, 24)).columns


def print_json(obj: Any) -> None:
    import json  # only for JSON output

    sys.stdout.write(json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def print_json_line(obj: Any) -> None:
    """One compact JSON document per line (for repeated output such as ``clusterList -i``)."""
    import json

    sys.stdout.write(json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n")
    sys.stdout.flush()


def print_table(columns: Sequence[Column], rows: Iterable[Sequence[object]], title: str | None = None) -> None:
    """Rows under upper-case headers; nothing at all (no header, no title) when there are no rows."""
    cells = [[escape("" if v is None else str(v)) for v in row] for row in rows]
    if not cells:
        return
    out = sys.stdout
    if styled_output():
        width = terminal_width()
        natural = _plain_width(columns, cells)
        if natural + 3 * len(columns) + 1 <= width:
            _rich_table(columns, cells, title)
            return
        if natural > width:
            if title:
                out.write(f"{escape(title)}\n")
            out.write(record_blocks(columns, cells))
            out.flush()
            return
    if title:
        out.write(f"{escape(title)}\n")
    out.write(plain_table(columns, cells))
    out.flush()


def _widths(columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> list[int]:
    return [max([len(c.header)] + [len(r[i]) for r in rows]) for i, c in enumerate(columns)]


def _plain_width(columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> int:
    return sum(_widths(columns, rows)) + 2 * (len(columns) - 1)


def plain_table(columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> str:
    """Upper-case headers, columns two spaces apart, numbers right-aligned, no trailing blanks."""
    headers = [c.header.upper() for c in columns]
    widths = _widths(columns, rows)
    lines = []
    for row in [headers, *rows]:
        parts = [
            (cell.rjust(w) if col.numeric else cell.ljust(w)) for cell, w, col in zip(row, widths, columns, strict=True)
        ]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines) + "\n"


def record_blocks(columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> str:
    """One block per row, ``HEADER  value`` per line, blocks separated by a blank line (for rows wider
    than the terminal: values are whole, and a long one simply wraps)."""
    width = max(len(c.header) for c in columns)
    blocks = [
        "\n".join(f"{c.header.upper().ljust(width)}  {cell}".rstrip() for c, cell in zip(columns, row, strict=True))
        for row in rows
    ]
    return "\n\n".join(blocks) + "\n"


def _rich_table(columns: Sequence[Column], rows: list[list[str]], title: str | None) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title, title_justify="left", header_style="bold")
    for c in columns:
        table.add_column(c.header, justify="right" if c.numeric else "left", no_wrap=True, overflow="fold")
    for row in rows:
        styles = [STATUS_STYLES.get(cell, "") if col.styled else "" for cell, col in zip(row, columns, strict=True)]
        table.add_row(*(Text(cell, style=style) for cell, style in zip(row, styles, strict=True)))
    Console(width=terminal_width()).print(table)


def print_lines(lines: Iterable[str]) -> None:
    """Plain data lines (escaped), e.g. one topic per line."""
    sys.stdout.writelines(f"{escape(line)}\n" for line in lines)
