"""Suggestions for a mistyped name: the known names nearest to it by edit distance, in any case."""

from __future__ import annotations

from collections.abc import Iterable


def edit_distance(a: str, b: str) -> int:
    """Edits (insert, delete, replace, swap two neighbours) turning ``a`` into ``b``."""
    before: list[int] = []
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        previous, row = row, [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], before[j - 2] + 1)
        before = previous
    return row[-1]


def nearest(name: str, known: Iterable[str]) -> list[str]:
    """The known names at the smallest edit distance from ``name`` (case ignored), if that distance is small
    for its length (a third of it, at least one edit); none when nothing is that close."""
    wanted = name.lower()
    limit = max(1, len(wanted) // 3)
    scored = [(edit_distance(wanted, k.lower()), k) for k in known]
    best = min((d for d, _ in scored), default=limit + 1)
    return [k for d, k in scored if d == best] if best <= limit else []


def did_you_mean(names: list[str]) -> str:
    """`` Did you mean 'x'?`` (or one of several), or nothing."""
    if not names:
        return ""
    quoted = ", ".join(repr(n) for n in names)
    return f" Did you mean {quoted}?" if len(names) == 1 else f" Did you mean one of: {quoted}?"
