"""Commands' declared JSON documents (mqadmin.cli.documents): the convention is enforced where the schema is made,
and ``mqadmin help`` shows what the package ships."""

from __future__ import annotations

import json
from typing import Annotated, NotRequired, TypedDict

import pytest

from mqadmin.cli.documents import CONTRACT_VERSION, ContractError, command_schema, fields, shipped_schema
from tests.unit.cli_helpers import Cli


class Inner(TypedDict):
    queueId: int
    lastTimestamp: Annotated[int | None, "ms since the epoch"]


class Doc(TypedDict):
    """A test document."""

    topic: str
    queues: list[Inner]
    config: dict[str, str]
    clientIp: NotRequired[str]


class Snake(TypedDict):
    topic_rows: int


def test_a_declaration_becomes_a_strict_schema() -> None:
    schema = command_schema("demo", Doc)
    assert (schema["$id"], schema["contractVersion"]) == (f"urn:mqadmin:json:{CONTRACT_VERSION}:demo", CONTRACT_VERSION)
    doc = schema["$defs"]["Doc"]
    assert doc["required"] == ["topic", "queues", "config"] and doc["additionalProperties"] is False
    assert doc["properties"]["config"] == {"type": "object", "additionalProperties": {"type": "string"}}
    inner = schema["$defs"]["Inner"]["properties"]["lastTimestamp"]
    assert inner == {"type": ["integer", "null"], "description": "ms since the epoch"}
    assert [(p, t) for p, t, _ in fields(schema)] == [
        ("topic", "string"), ("queues", "array of object"), ("queues[].queueId", "integer"),
        ("queues[].lastTimestamp", "integer|null"), ("config", "map of string"), ("clientIp", "string"),
    ]  # fmt: skip


def test_snake_case_keys_and_top_level_lists_cannot_be_declared() -> None:
    with pytest.raises(ContractError, match="camelCase.*topic_rows"):
        command_schema("demo", Snake)
    with pytest.raises(ContractError, match="object at the top level"):
        command_schema("demo", list[Doc])


def test_help_lists_the_fields_and_prints_the_shipped_schema(live: Cli) -> None:
    r = live("help", "topicStatus")
    assert r.code == 0, r.err
    assert f"JSON document (--format json; contract {CONTRACT_VERSION}" in r.out
    assert "queues[].lastUpdateTimestamp  integer|null" in r.out
    r = live("help", "TOPICSTATUS", "--schema")
    assert r.code == 0 and json.loads(r.out) == shipped_schema("topicStatus")
