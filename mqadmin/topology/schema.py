"""The topology file's JSON Schema, for editors (Taplo, Even Better TOML, VS Code, IntelliJ).

Built from the constants ``mqadmin.topology.model`` checks with (settings, permissions, queue bounds, attribute
values, group settings), so the two cannot drift; ``python -m mqadmin.cli.generate`` writes it to
``mqadmin/topology/schema.json``, which the package ships. The reader's own checks stay the authority (they
also refuse system topics and groups, and apply the overrides); the schema catches what an editor can.
"""

from __future__ import annotations

import json
from typing import Any

from mqadmin.model.group import POLICY_TYPES, SCALARS
from mqadmin.model.names import GROUP_MAX_LENGTH, TOPIC_MAX_LENGTH
from mqadmin.model.topic import ATTRIBUTE_VALUES
from mqadmin.topology.model import FORMAT_VERSION, MAX_QUEUES, MESSAGE_TYPE, PERMS

DRAFT = "https://json-schema.org/draft/2020-12/schema"
NAME_CHARS = "^[%|a-zA-Z0-9_-]+$"


def topology_schema() -> dict[str, Any]:
    topic_settings = _topic_settings()
    group_settings = _group_settings()
    return {
        "$schema": DRAFT,
        "title": "mqadmin topology file",
        "description": "Topics and subscription groups of RocketMQ clusters (docs/topology.md). "
        "Format version " + str(FORMAT_VERSION) + ".",
        "type": "object",
        "additionalProperties": False,
        "required": ["clusters"],
        "properties": {
            "version": {"const": FORMAT_VERSION, "description": "The file format's version."},
            "clusters": {
                "type": "object",
                "minProperties": 1,
                "description": "The clusters of the file, by a name used in the file.",
                "additionalProperties": {"$ref": "#/$defs/cluster"},
            },
            "defaults": {"$ref": "#/$defs/defaults"},
            "topics": {
                "type": "object",
                "propertyNames": _name(TOPIC_MAX_LENGTH),
                "additionalProperties": {"$ref": "#/$defs/topic"},
            },
            "groups": {
                "type": "object",
                "propertyNames": _name(GROUP_MAX_LENGTH),
                "additionalProperties": {"$ref": "#/$defs/group"},
            },
        },
        "$defs": {
            "names": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1, "uniqueItems": True},
            "cluster": _object(
                {
                    "namesrv": {
                        "type": "string",
                        "minLength": 1,
                        "description": "host:port;host:port (else -n, NAMESRV_ADDR or the profile).",
                    },
                    "cluster": {"type": "string", "minLength": 1, "description": "The RocketMQ cluster name."},
                    "defaults": {"$ref": "#/$defs/defaults"},
                }
            ),
            "defaults": _object({"topic": _object(topic_settings), "group": _object(group_settings)}),
            "topic": _placed(topic_settings),
            "group": _placed(group_settings),
        },
    }


def schema_text() -> str:
    return json.dumps(topology_schema(), indent=2) + "\n"


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "properties": properties}


def _name(max_length: int) -> dict[str, Any]:
    return {"pattern": NAME_CHARS, "maxLength": max_length}


def _placed(settings: dict[str, Any]) -> dict[str, Any]:
    """A topic's or group's entry: its settings, where it is, and per-cluster overrides."""
    brokers = {"$ref": "#/$defs/names", "description": "The broker names it is on (default: every master)."}
    override = _object({**settings, "brokers": brokers})
    return _object(
        {
            **settings,
            "clusters": {"$ref": "#/$defs/names", "description": "The clusters of the file it is on (default: all)."},
            "brokers": brokers,
            "overrides": {"type": "object", "additionalProperties": override},
        }
    )


def _topic_settings() -> dict[str, Any]:
    queues = {"type": "integer", "minimum": 1, "maximum": MAX_QUEUES}
    other = {k: v for k, v in ATTRIBUTE_VALUES.items() if k != MESSAGE_TYPE}
    return {
        "queueNums": {**queues, "description": "readQueueNums and writeQueueNums at once."},
        "readQueueNums": queues,
        "writeQueueNums": queues,
        "perm": {"enum": list(PERMS), "description": "2 write-only, 4 read-only, 6 read-write."},
        "order": {"type": "boolean"},
        "messageType": {"enum": list(ATTRIBUTE_VALUES[MESSAGE_TYPE]), "description": "The attribute message.type."},
        "attributes": {
            "type": "object",
            "properties": {k: {"enum": list(v)} for k, v in other.items()},
            "additionalProperties": {"type": "string", "minLength": 1},
        },
    }


def _group_settings() -> dict[str, Any]:
    non_negative = {"type": "integer", "minimum": 0}
    scalars = {key: {"type": "boolean"} if kind is bool else non_negative for key, kind in SCALARS.values()}
    policy = {
        "type": "object",
        "properties": {
            "type": {"type": "string", "enum": [*POLICY_TYPES, *(t.lower() for t in POLICY_TYPES)]},
            "exponentialRetryPolicy": _object({n: non_negative for n in ("initial", "max", "multiplier")}),
            "customizedRetryPolicy": {
                "type": "object",
                "properties": {"next": {"type": "array", "items": non_negative}},
            },
        },
    }
    return {
        **scalars,
        "groupRetryPolicy": policy,
        "attributes": {"type": "object", "additionalProperties": {"type": "string", "minLength": 1}},
    }
