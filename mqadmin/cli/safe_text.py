"""Text from the cluster made safe for a terminal, and diagnostics on stderr (used by ``render`` and by the
settings, which ``render`` depends on)."""

from __future__ import annotations

import sys

_UNSAFE = (
    *range(0x20), *range(0x7F, 0xA0), 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
)  # fmt: skip
"""C0 and C1 controls, DEL, and the characters that reorder text (bidirectional marks and overrides)."""
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_ESCAPES = {code: _NAMED.get(chr(code)) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}") for code in _UNSAFE}
"""What ``escape`` shows instead of each unsafe character (a table for ``str.translate``: no regular expression
to compile at every start)."""


def escape(text: str) -> str:
    """``text`` with every control character (C0, DEL, C1) and bidirectional override shown as an escape
    (``\\n``, ``\\x1b``, ``\\u202e``), so data from the cluster cannot move the cursor, recolour the
    terminal or reorder what is displayed."""
    return text if text.isprintable() else text.translate(_ESCAPES)  # (no unsafe character is printable)


def note(message: str) -> None:
    """A diagnostic for people, on stderr (never mixed into the data on stdout)."""
    sys.stderr.write(f"{escape(message)}\n")


def warn(message: str) -> None:
    note(f"mqadmin: warning: {message}")
