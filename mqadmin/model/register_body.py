"""RegisterBrokerBody: the topic configs a broker sends with REGISTER_BROKER (103).

Two forms (docs/protocol.md, "Name server"): JSON, and a deflated stream of i32-length-prefixed items
(DataVersion JSON; topic count and one space-separated TopicConfig each; the filter-server list
JSON; optionally a count plus TopicQueueMappingInfo JSONs).
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from mqadmin.model.static_topic import TopicQueueMappingInfo
from mqadmin.model.topic import TopicConfig
from mqadmin.wire import fastjson

MAX_INFLATED = 64 * 1024 * 1024
"""Refuse registration bodies that inflate beyond this (a deflate bomb would otherwise eat memory)."""


@dataclass
class RegisterBody:
    data_version: dict[str, Any] | None = None
    topics: dict[str, TopicConfig] = field(default_factory=dict)
    """Queue numbers, perm and sys flag of each topic (other TopicConfig fields are not read from JSON)."""
    filter_servers: list[str] = field(default_factory=list)
    mappings: dict[str, TopicQueueMappingInfo] = field(default_factory=dict)
    """Static topics: topic → this broker's logic-queue mapping (``topicQueueMappingInfoMap``)."""


def encode_json(body: RegisterBody) -> bytes:
    """The JSON form (what a broker sends without compressedRegister)."""
    wrapper = {
        "dataVersion": body.data_version or {},
        "topicConfigTable": {name: tc.to_json() for name, tc in body.topics.items()},
    }
    if body.mappings:
        wrapper["topicQueueMappingInfoMap"] = {t: m.to_json() for t, m in body.mappings.items()}
    return fastjson.dumps_bytes({"filterServerList": body.filter_servers, "topicConfigSerializeWrapper": wrapper})


def encode_compressed(
    data_version: dict[str, Any],
    topics: dict[str, TopicConfig],
    mappings: dict[str, TopicQueueMappingInfo] | None = None,
) -> bytes:
    parts = [_item(fastjson.dumps_bytes(data_version)), struct.pack(">i", len(topics))]
    parts += [_item(_topic_line(tc).encode()) for tc in topics.values()]
    parts += [_item(b"[]"), struct.pack(">i", len(mappings or {}))]
    parts += [_item(fastjson.dumps_bytes(m.to_json())) for m in (mappings or {}).values()]
    return zlib.compress(b"".join(parts), 9)


def decode(body: bytes) -> RegisterBody:
    """Either form, told apart by the first byte (a deflated stream starts with 0x78, JSON with ``{``):
    a 5.x broker with compressedRegister sends a deflated body flagged uncompressed."""
    if not body:
        return RegisterBody()
    if body[:1] == b"\x78":
        return _decode_compressed(body)
    return _decode_json(body)


class RegisterBodyCodec:
    """The body codec of REGISTER_BROKER's declaration: JSON out, either form in."""

    name = "RegisterBrokerBody"
    json = True

    def encode(self, value: RegisterBody) -> bytes:
        return encode_json(value)

    def decode(self, data: bytes) -> RegisterBody:
        return decode(data)


def _item(data: bytes) -> bytes:
    return struct.pack(">i", len(data)) + data


def _topic_line(tc: TopicConfig) -> str:
    attrs = json.dumps(tc.attributes, separators=(",", ":"), ensure_ascii=False)
    return f"{tc.topic_name} {tc.read_queue_nums} {tc.write_queue_nums} {tc.perm} {tc.topic_filter_type} {attrs}"


def _decode_json(body: bytes) -> RegisterBody:
    try:
        obj = fastjson.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise ValueError(f"register body is not JSON: {e}") from None
    if not isinstance(obj, dict):
        raise ValueError("register body is not a JSON object")
    wrapper = obj.get("topicConfigSerializeWrapper", obj if "topicConfigTable" in obj else {})
    if not isinstance(wrapper, dict):
        raise ValueError("topicConfigSerializeWrapper is not an object")
    topics = _objects(wrapper.get("topicConfigTable") or {}, "topicConfigTable", "topic config", _route_fields)
    dv = wrapper.get("dataVersion")
    servers = obj.get("filterServerList") or []
    return RegisterBody(
        data_version=dv if isinstance(dv, dict) else None,
        topics=topics,
        filter_servers=[str(s) for s in servers] if isinstance(servers, list) else [],
        mappings=_mappings(wrapper.get("topicQueueMappingInfoMap") or {}),
    )


def _mappings(table: Any) -> dict[str, TopicQueueMappingInfo]:
    return _objects(table, "topicQueueMappingInfoMap", "queue mapping", lambda _, o: TopicQueueMappingInfo.from_json(o))


T = TypeVar("T")


def _objects(table: Any, field: str, what: str, parse: Callable[[str, dict[str, Any]], T]) -> dict[str, T]:
    """Each entry of a JSON object of objects, parsed; ValueError naming the field or the entry."""
    if not isinstance(table, dict):
        raise ValueError(f"{field} is not an object")
    out: dict[str, T] = {}
    for name, obj in table.items():
        if not isinstance(obj, dict):
            raise ValueError(f"{what} of {name!r} is not an object")
        try:
            out[str(name)] = parse(str(name), obj)
        except (TypeError, ValueError, AttributeError) as e:
            raise ValueError(f"{what} of {name!r}: {e}") from None
    return out


def _route_fields(name: str, tc: dict[str, Any]) -> TopicConfig:
    """Only what routes need (queues, perm, sys flag): a registration may carry thousands of topics."""
    return TopicConfig(
        name,
        int(tc.get("readQueueNums", 16)),
        int(tc.get("writeQueueNums", 16)),
        int(tc.get("perm", 6)),
        topic_sys_flag=int(tc.get("topicSysFlag", 0)),
    )


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def int(self) -> int:
        if self.pos + 4 > len(self.data):
            raise ValueError("compressed register body ends early")
        n: int
        (n,) = struct.unpack_from(">i", self.data, self.pos)
        self.pos += 4
        return n

    def item(self) -> bytes:
        n = self.int()
        if n < 0 or self.pos + n > len(self.data):
            raise ValueError(f"compressed register body: item of {n} bytes runs past the end")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    @property
    def more(self) -> bool:
        return self.pos < len(self.data)


def _decode_compressed(body: bytes) -> RegisterBody:
    try:
        inflater = zlib.decompressobj()
        data = inflater.decompress(body, MAX_INFLATED)
    except zlib.error as e:
        raise ValueError(f"register body does not inflate: {e}") from None
    if inflater.unconsumed_tail:
        raise ValueError(f"register body inflates beyond {MAX_INFLATED} bytes")
    r = _Reader(data)
    try:
        dv = json.loads(r.item())
        topics: dict[str, TopicConfig] = {}
        for _ in range(r.int()):
            tc = _parse_topic_line(r.item().decode())
            topics[tc.topic_name] = tc
        servers = json.loads(r.item()) if r.more else []
        infos = [json.loads(r.item()) for _ in range(r.int())] if r.more else []
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ValueError(f"compressed register body: {e}") from None
    return RegisterBody(
        data_version=dv if isinstance(dv, dict) else None,
        topics=topics,
        filter_servers=[str(s) for s in servers] if isinstance(servers, list) else [],
        mappings=_mappings({i.get("topic") if isinstance(i, dict) else None: i for i in infos}),
    )


def _parse_topic_line(line: str) -> TopicConfig:
    parts = line.split(" ", 5)
    if len(parts) < 5:
        raise ValueError(f"compressed topic config {line!r} has fewer than 5 fields")
    try:
        attrs = json.loads(parts[5]) if len(parts) > 5 and parts[5] else {}
        return TopicConfig(
            topic_name=parts[0],
            read_queue_nums=int(parts[1]),
            write_queue_nums=int(parts[2]),
            perm=int(parts[3]),
            topic_filter_type=parts[4],
            attributes={str(k): str(v) for k, v in attrs.items()} if isinstance(attrs, dict) else {},
        )
    except ValueError as e:
        raise ValueError(f"compressed topic config {line!r}: {e}") from None
