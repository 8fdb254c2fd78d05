"""Reading what ``mqadmin --format json`` printed, wherever the output contract puts the document (docs/cli.md)."""

from __future__ import annotations

import json
from typing import Any

ANSWERS = (0, 3, 6, 7, 8, 9)
"""Exit codes whose document is on stdout: success, a partial fan-out, ``plan``'s changes pending, ``wait`` timing
out, ``doctor``'s findings."""


def document(code: int, out: str, err: str) -> Any:
    """The command's document: stdout, or after another failure the error document's ``document`` (stderr's last
    line)."""
    if code in ANSWERS:
        return json.loads(out)
    assert out == "", f"exit {code} with something on stdout: {out!r}"
    return json.loads(err.strip().splitlines()[-1])["document"]
