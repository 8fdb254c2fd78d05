"""Reading updateTopicList's file: topic configs as JSON (Java's format) or TOML.

JSON, as Java's updateTopicList reads it (a list of org.apache.rocketmq.common.TopicConfig)::

    [{"topicName": "Orders", "readQueueNums": 8, "writeQueueNums": 8, "perm": 6,
      "attributes": {"+message.type": "NORMAL"}}]

TOML, the same keys in an array of ``[[topic]]`` tables::

    [[topic]]
    topicName = "Orders"
    writeQueueNums = 8
    attributes = { "message.type" = "FIFO" }

Every key but ``topicName`` is optional: a topic a broker does not have gets TopicConfig's defaults
(16 queues, perm 6), as in Java; a topic it has keeps what the entry does not give. Attribute keys may
carry Java's ``+`` (set) or ``-`` (remove) sign; a key without one is set.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqadmin.cli.errors import CliError, usage_error

if TYPE_CHECKING:
    from mqadmin.admin.topics import TopicChange
    from mqadmin.model.topic import TopicConfig

FILE_HINT = (
    "the file holds a JSON list of TopicConfig objects, or [[topic]] tables in TOML (see: mqadmin help updateTopicList)"
)
JAVA_DEFAULT_QUEUES = 16
"""TopicConfig's default read and write queues, which Java gives a topic whose entry does not set them."""

_INTS = {"readQueueNums": (1, 65535), "writeQueueNums": (1, 65535), "topicSysFlag": (0, 3)}
_KEYS = {"topicName", "perm", "topicFilterType", "order", "attributes", *_INTS}
_FILTER_TYPES = ("SINGLE_TAG", "MULTI_TAG")


@dataclass(frozen=True, slots=True)
class TopicFile:
    changes: list[TopicChange]
    new_topic: dict[str, TopicConfig]
    """The config each topic gets on a broker that does not have it (before the entry's fields)."""


def read_topic_file(path: str) -> TopicFile:
    """The file's entries, checked; a usage error names the file, the entry and the bad value."""
    from mqadmin.model.topic import TopicConfig

    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise usage_error(f"{path}: no such file", FILE_HINT) from None
    except (OSError, UnicodeDecodeError) as e:
        raise usage_error(f"{path}: cannot read it: {e}", FILE_HINT) from None
    entries = _parse(path, text)
    changes: list[TopicChange] = []
    seen: set[str] = set()
    for i, entry in enumerate(entries, 1):
        change = _entry(path, i, entry)
        if change.topic in seen:
            raise usage_error(f"{path}: entry {i}: topic {change.topic!r} appears twice", FILE_HINT)
        seen.add(change.topic)
        changes.append(change)
    new = {c.topic: TopicConfig(c.topic, JAVA_DEFAULT_QUEUES, JAVA_DEFAULT_QUEUES) for c in changes}
    return TopicFile(changes, new)


def _parse(path: str, text: str) -> list[Any]:
    toml = path.lower().endswith(".toml") or not (path.lower().endswith(".json") or text.lstrip()[:1] in "[{")
    if toml:
        try:
            doc: Any = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise usage_error(f"{path}: not valid TOML: {e}", FILE_HINT) from None
        extra = sorted(set(doc) - {"topic"})
        if extra:
            raise usage_error(f"{path}: unknown top-level key {extra[0]!r} (expected [[topic]] tables)", FILE_HINT)
        doc = doc.get("topic", [])
    else:
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as e:
            raise usage_error(f"{path}: not valid JSON: {e}", FILE_HINT) from None
    if not isinstance(doc, list):
        raise usage_error(f"{path}: expected a list of topic configs, found a {_kind(doc)}", FILE_HINT)
    return doc


def _entry(path: str, i: int, entry: Any) -> TopicChange:
    from mqadmin.admin.topics import TopicChange
    from mqadmin.cli.commands.topic._shared import PERM_HINT, PERMS
    from mqadmin.model.names import is_system_topic, topic_problem

    def bad(message: str, hint: str = FILE_HINT) -> CliError:
        name = entry.get("topicName") if isinstance(entry, dict) else None
        where = f"entry {i}" + (f" ({name})" if isinstance(name, str) else "")
        return usage_error(f"{path}: {where}: {message}", hint)

    if not isinstance(entry, dict):
        raise bad(f"expected an object, found a {_kind(entry)}")
    unknown = sorted(set(entry) - _KEYS)
    if unknown:
        raise bad(f"unknown key {unknown[0]!r}", f"known keys: {', '.join(sorted(_KEYS))}")
    topic = entry.get("topicName")
    if not isinstance(topic, str):
        raise bad("topicName is missing or not a string")
    problem = topic_problem(topic)
    if problem:
        raise bad(problem)
    if is_system_topic(topic):
        raise bad(f"{topic!r} is a RocketMQ system topic", "system topics are managed by the brokers")
    ints: dict[str, int | None] = {}
    for key, (low, high) in _INTS.items():
        value = entry.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high):
            raise bad(f"{key} must be a whole number in {low}..{high}, not {value!r}")
        ints[key] = value
    perm = entry.get("perm")
    if perm is not None and (isinstance(perm, bool) or perm not in PERMS):
        raise bad(f"perm {perm!r} is not a valid permission", PERM_HINT)
    filter_type = entry.get("topicFilterType")
    if filter_type is not None and filter_type not in _FILTER_TYPES:
        raise bad(f"topicFilterType must be {' or '.join(_FILTER_TYPES)}, not {filter_type!r}")
    order = entry.get("order")
    if order is not None and not isinstance(order, bool):
        raise bad(f"order must be true or false, not {order!r}")
    return TopicChange(
        topic,
        read_queue_nums=ints["readQueueNums"],
        write_queue_nums=ints["writeQueueNums"],
        perm=perm,
        topic_sys_flag=ints["topicSysFlag"],
        topic_filter_type=filter_type,
        order=order,
        attributes=_attributes(entry.get("attributes"), bad),
    )


def _attributes(value: Any, bad: Any) -> dict[str, str | None]:
    """``{"+k": "v", "-k": "", "k": "v"}`` into attribute operations, known values normalised."""
    from mqadmin.model.topic import parse_attribute_ops
    from mqadmin.model.topic_batch import ops_from_map

    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise bad("attributes must be an object of string keys and string values")
    try:
        ops = ops_from_map(value)
        return parse_attribute_ops(",".join(f"+{k}={v}" if v is not None else f"-{k}" for k, v in ops.items()))
    except ValueError as e:
        raise bad(f"attributes: {e}", 'for example: {"+message.type": "FIFO"} (or "-key" to remove one)') from None


def _kind(value: Any) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean"}.get(type(value), type(value).__name__)
