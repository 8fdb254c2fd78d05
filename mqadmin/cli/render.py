"""Output: tables for people, JSON for scripts. Data goes to stdout, notes and warnings to stderr.

Tables never hide data: on a terminal a boxed table is drawn, its text columns (those with spaces: reasons,
details, bodies) wrapped at spaces inside their cells to fit the width, while ids, addresses, names, numbers and
statuses stay whole on one line; when even those do not fit, the rows are printed as plain aligned columns if
they fit, else as one block per record (``HEADER  value`` lines), so no value is ever cut. A title is its own
line above the table, never folded to the table's width. Output that is not a terminal, or with NO_COLOR, is
always plain. Every cell and note passes through ``escape``, so control characters from the cluster (message
bodies, keys, remarks) never reach the terminal.

rich is imported only when a styled table is really drawn, json only for JSON output, to keep start-up fast.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple, TextIO

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


_held: list[Any] = []
"""The documents ``print_json`` was given, written at the command's end (``mqadmin.cli.main``): a command that then
fails prints nothing on stdout, and its document goes into the error document on stderr instead."""


def print_json(obj: Any) -> None:
    """The command's JSON document, on stdout once the command ends without an error (see ``_held``)."""
    _held.append(obj)


def take_documents() -> list[Any]:
    """The documents held so far (none are held after)."""
    held = _held[:]
    _held.clear()
    return held


def write_documents() -> None:
    """Write the held documents on stdout."""
    import json  # only for JSON output

    for obj in take_documents():
        sys.stdout.write(json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def print_json_stream(doc: Mapping[str, Any], out: TextIO | None = None) -> None:
    """``print_json`` of a document whose iterator values (a plan's items, apply's results) are written one
    element at a time and never held all at once: the same text as ``print_json`` of the lists (on ``out``, by
    default stdout)."""
    import json

    def text(value: Any, pad: str) -> str:
        return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + pad)

    out = out or sys.stdout
    if not doc:
        out.write("{}\n")
        return
    for n, (key, value) in enumerate(doc.items()):
        out.write(("," if n else "{") + f"\n  {text(key, '')}: ")
        if not isinstance(value, Iterator):
            out.write(text(value, "  "))
            continue
        empty = True
        for element in value:
            out.write(("[" if empty else ",") + f"\n    {text(element, '    ')}")
            empty = False
        out.write("[]" if empty else "\n  ]")
    out.write("\n}\n")


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
    if title:
        out.write(f"{escape(title)}\n")
    if styled_output():
        wraps = _text_columns(columns, cells)
        width = terminal_width()
        if _box_fits(columns, cells, wraps, width):
            out.flush()
            _rich_table(columns, cells, wraps)
            return
        if sum(_widths(columns, cells)) + 2 * (len(columns) - 1) > width:
            out.write(record_blocks(columns, cells))
            out.flush()
            return
    out.write(plain_table(columns, cells))
    out.flush()


def _widths(columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> list[int]:
    return [max([len(c.header)] + [len(r[i]) for r in rows]) for i, c in enumerate(columns)]


def _text_columns(columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> list[bool]:
    """Which columns hold text that may wrap at its spaces (a cell with a space); the others hold values that
    stay whole on one line."""
    return [not c.numeric and any(" " in r[i] for r in rows) for i, c in enumerate(columns)]


def _box_fits(columns: Sequence[Column], rows: Sequence[Sequence[str]], wraps: Sequence[bool], width: int) -> bool:
    """Whether a box fits ``width`` with each whole-value column at its width and each text column at its
    longest word (and header)."""
    needed = 3 * len(columns) + 1  # the box's borders and padding
    for i, (col, w) in enumerate(zip(columns, _widths(columns, rows), strict=True)):
        if wraps[i]:
            w = max([len(col.header)] + [len(word) for r in rows for word in r[i].split()])
        needed += w
    return needed <= width


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
    """One block per row, ``HEADER  value`` per line, blocks separated by a blank line (for values wider
    than the terminal: they are whole, and a long one simply wraps)."""
    width = max(len(c.header) for c in columns)
    blocks = [
        "\n".join(f"{c.header.upper().ljust(width)}  {cell}".rstrip() for c, cell in zip(columns, row, strict=True))
        for row in rows
    ]
    return "\n\n".join(blocks) + "\n"


def _rich_table(columns: Sequence[Column], rows: list[list[str]], wraps: Sequence[bool]) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(header_style="bold")
    for c, wrap in zip(columns, wraps, strict=True):
        table.add_column(c.header, justify="right" if c.numeric else "left", no_wrap=not wrap, overflow="fold")
    for row in rows:
        styles = [STATUS_STYLES.get(cell, "") if col.styled else "" for cell, col in zip(row, columns, strict=True)]
        table.add_row(*(Text(cell, style=style) for cell, style in zip(row, styles, strict=True)))
    Console(width=terminal_width()).print(table)


def print_lines(lines: Iterable[str]) -> None:
    """Plain data lines (escaped), e.g. one topic per line."""
    sys.stdout.writelines(f"{escape(line)}\n" for line in lines)
