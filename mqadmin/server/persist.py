"""Metadata JSON files: written atomically with a ``.bak`` copy (``mqadmin.files.atomic_write``), and
read back without ever starting empty silently.

Reading (``read_metadata``): the file is decoded and checked by the caller's ``parse``. A file
that is missing, empty, not JSON or whose content ``parse`` refuses falls back to ``f.bak`` with a
warning naming both files. When neither is usable the server does not start: ``MetadataError``
names the file and the problem. ``reset=True`` (the servers' explicit start-empty setting) starts
empty instead, after moving the unreadable files aside as ``<name>.unreadable-<time>``. Only a
file that was never written (neither ``f`` nor ``f.bak`` exists) starts empty without a word.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from mqadmin.files import atomic_write, backup_of
from mqadmin.server.validation import json_text_problem
from mqadmin.wire import fastjson

log = logging.getLogger(__name__)

T = TypeVar("T")


class MetadataError(Exception):
    """A metadata file that cannot be used, with no usable backup (the message names both)."""


def write_json(path: Path, obj: Any, *, private: bool = False) -> None:
    """Pretty, key-sorted JSON (readable by Java's fastjson and by people), with a backup (both readable by
    their owner only when ``private``)."""
    data = json.dumps(obj, indent="\t", sort_keys=True, ensure_ascii=False).encode()
    atomic_write(path, data, backup=True, private=private)


def read_metadata(path: Path, parse: Callable[[Any], T], *, reset: bool = False) -> T | None:
    """``parse`` of the JSON in ``path``, else in its backup (with a warning); None when neither was
    ever written; MetadataError when neither is usable (unless ``reset``: see the module docstring).
    ``parse`` raises ValueError or TypeError, naming what is wrong, for content it cannot use."""
    bak = backup_of(path)
    problems: dict[Path, str] = {}
    for candidate in (path, bak):
        problem = _problem_reading(candidate, parse)
        if isinstance(problem, _Parsed):
            if problems:
                log.warning(
                    "%s %s; using its backup %s (written %s): changes saved after that may be missing",
                    path, problems[path], bak, time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(bak.stat().st_mtime)),
                )  # fmt: skip
            return problem.value
        problems[candidate] = problem
    if problems[path] == problems[bak] == _MISSING:
        return None
    message = f"{path} {problems[path]}, and its backup {bak} {problems[bak]}"
    if not reset:
        raise MetadataError(message)
    aside = _move_aside(path, bak)
    log.error("%s; starting with it empty as asked (the unreadable files were kept as %s)", message, aside)
    return None


_MISSING = "is missing"


class _Parsed:
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _problem_reading(path: Path, parse: Callable[[Any], Any]) -> str | _Parsed:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return _MISSING
    except OSError as e:
        return f"cannot be read ({e.strerror})"
    if not data.strip():
        return f"is empty ({len(data)} bytes)"
    try:
        obj = fastjson.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        return f"is not JSON ({type(e).__name__}: {_short(e)})"
    where = json_text_problem(data, obj)
    if where is not None:
        return f"holds text that is not valid Unicode at {where}"
    try:
        return _Parsed(parse(obj))
    except (ValueError, TypeError, OverflowError) as e:
        return f"holds content that cannot be used ({_short(e)})"


def check_fields(obj: dict[str, Any], types: dict[str, type | tuple[type, ...]], where: str) -> None:
    """Raise ValueError naming ``where`` and the field when a present, non-null field has another type
    (a bool is not an int here, though Python says it is)."""
    for key, expected in types.items():
        value = obj.get(key)
        if value is None:
            continue
        if not isinstance(value, expected) or (isinstance(value, bool) and expected is int):
            name = expected.__name__ if isinstance(expected, type) else "/".join(t.__name__ for t in expected)
            raise ValueError(f"{where}: {key}={_shown_value(value)} is not of type {name}")


def _shown_value(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def _short(e: Exception) -> str:
    text = str(e)
    return text if len(text) <= 300 else text[:300] + "…"


def _move_aside(path: Path, bak: Path) -> str:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    moved = []
    for p in (path, bak):
        if p.exists():
            target = p.with_name(f"{p.name}.unreadable-{stamp}")
            os.replace(p, target)
            moved.append(str(target))
    return ", ".join(moved) or "nothing"
