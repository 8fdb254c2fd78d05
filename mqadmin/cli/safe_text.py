"""Text from the cluster made safe for a terminal, and diagnostics on stderr (used by ``render`` and by the
settings, which ``render`` depends on)."""

from __future__ import annotations

import re
import sys

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape(text: str) -> str:
    """``text`` with every control character (C0, DEL, C1) and bidirectional override shown as an escape
    (``\\n``, ``\\x1b``, ``\\u202e``), so data from the cluster cannot move the cursor, recolour the
    terminal or reorder what is displayed."""
    return _UNSAFE.sub(_escaped, text)


def _escaped(m: re.Match[str]) -> str:
    ch = m.group()
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def note(message: str) -> None:
    """A diagnostic for people, on stderr (never mixed into the data on stdout)."""
    sys.stderr.write(f"{escape(message)}\n")


def warn(message: str) -> None:
    note(f"mqadmin: warning: {message}")
