"""Reading updateSubGroupList's file: the JSON list of SubscriptionGroupConfig Java's tool takes, or TOML.

JSON: ``[{"groupName": "G", "retryMaxTimes": 3}, …]`` (or ``{"groupConfigList": […]}``, the request body).
TOML: one ``[[group]]`` table per group with the same keys. Each entry changes only the settings it has;
``attributes`` maps ``"+key"`` or ``"key"`` to a value to set it and ``"-key"`` to anything to remove it.
Everything is checked before anything is sent: a usage error names the file, the entry and the key.
"""

from __future__ import annotations

import json
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

from mqadmin.admin.groups import GroupChange
from mqadmin.cli.commands.group._shared import check_group, parse_policy
from mqadmin.cli.errors import usage_error
from mqadmin.model.group import SCALARS, attribute_value_problem

_BY_KEY = {key: (attr, kind) for attr, (key, kind) in SCALARS.items()}
PASSED_THROUGH = ("subscriptionDataSet",)
"""Bean keys sent as they are (Java's exportMetadata writes them)."""
KNOWN = ("groupName", *_BY_KEY, "groupRetryPolicy", "attributes", *PASSED_THROUGH)


def read_group_file(path: str) -> list[GroupChange]:
    entries = _entries(path)
    changes = [_change(path, i, e) for i, e in enumerate(entries)]
    if not changes:
        raise usage_error(f"{path} lists no groups", "see: mqadmin updateSubGroupList -h")
    twice = [g for g, n in Counter(c.group for c in changes).items() if n > 1]
    if twice:
        raise usage_error(f"{path}: group {twice[0]!r} is listed twice", "list each group once")
    return changes


def _entries(path: str) -> list[Any]:
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise usage_error(f"cannot read {path}: {e.strerror or e}", "-f takes a JSON or TOML file") from None
    try:
        if path.endswith(".toml"):
            doc: Any = tomllib.loads(data.decode("utf-8"))
            entries = doc.get("group", [])
        else:
            doc = json.loads(data)
            entries = doc.get("groupConfigList") if isinstance(doc, dict) else doc
    except (ValueError, UnicodeDecodeError) as e:
        raise usage_error(f"{path} is not valid {'TOML' if path.endswith('.toml') else 'JSON'}: {e}") from None
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        shape = "[[group]] tables" if path.endswith(".toml") else "a JSON list of group objects"
        raise usage_error(f"{path} must hold {shape}", "see: mqadmin updateSubGroupList -h")
    return entries


def _change(path: str, index: int, entry: dict[str, Any]) -> GroupChange:
    group = entry.get("groupName")
    where = f"{path}: group {index + 1}" + (f" ({group})" if isinstance(group, str) else "")
    if not isinstance(group, str):
        raise usage_error(f"{where} has no groupName")
    check_group(group, creating=True)
    unknown = sorted(set(entry) - set(KNOWN))
    if unknown:
        raise usage_error(f"{where}: unknown key {unknown[0]!r}", f"known keys: {', '.join(KNOWN)}")
    settings: dict[str, Any] = {}
    for key, (attr, kind) in _BY_KEY.items():
        if key in entry:
            settings[attr] = _typed(where, key, entry[key], kind)
    if "groupRetryPolicy" in entry:
        settings["group_retry_policy"] = parse_policy(json.dumps(entry["groupRetryPolicy"]), where)
    return GroupChange(
        group,
        attributes=_attribute_ops(where, entry.get("attributes") or {}),
        extra={k: entry[k] for k in PASSED_THROUGH if k in entry},
        **settings,
    )


def _typed(where: str, key: str, value: Any, kind: type) -> Any:
    ok = isinstance(value, bool) if kind is bool else isinstance(value, int) and not isinstance(value, bool)
    if not ok or (kind is int and value < 0):
        wanted = "true or false" if kind is bool else "a non-negative integer"
        raise usage_error(f"{where}: {key}={value!r} must be {wanted}")
    return value


def _attribute_ops(where: str, attrs: Any) -> dict[str, str | None]:
    if not isinstance(attrs, dict):
        raise usage_error(f"{where}: attributes must be an object of key: value")
    ops: dict[str, str | None] = {}
    for raw, value in attrs.items():
        key = raw[1:] if raw.startswith(("+", "-")) else raw
        if not key or key in ops:
            raise usage_error(f"{where}: attribute {raw!r} is empty or given twice")
        if raw.startswith("-"):
            ops[key] = None
            continue
        text = str(value).lower() if isinstance(value, bool) else str(value)
        if problem := attribute_value_problem(key, text):
            raise usage_error(f"{where}: {problem}")
        ops[key] = text
    return ops
