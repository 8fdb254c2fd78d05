"""Offsets of a queue and of a consumer group on it: search by time (29), max (30), min (31), and
committing a group's offset on a queue (15)."""

from __future__ import annotations

from dataclasses import dataclass

from mqadmin.model.rpc.spec import Header, Rpc, wire
from mqadmin.wire.codes import RequestCode as C


@dataclass(frozen=True, slots=True, kw_only=True)
class QueueHeader(Header):
    topic: str = wire("topic")
    queue_id: int = wire("queueId")


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchOffsetHeader(Header):
    topic: str = wire("topic")
    queue_id: int = wire("queueId")
    timestamp: int = wire("timestamp")
    boundary_type: str | None = wire("boundaryType", None)
    """5.x: LOWER (the first message stored at or after the time, the default) or UPPER."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OffsetHeader(Header):
    offset: int = wire("offset", 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class UpdateConsumerOffsetHeader(Header):
    consumer_group: str = wire("consumerGroup")
    topic: str = wire("topic")
    queue_id: int = wire("queueId")
    commit_offset: int = wire("commitOffset")


SEARCH_OFFSET_BY_TIMESTAMP = Rpc(
    C.SEARCH_OFFSET_BY_TIMESTAMP, "SEARCH_OFFSET_BY_TIMESTAMP", SearchOffsetHeader, response_header=OffsetHeader,
    summary="the offset of the first message stored at or after a time",
)  # fmt: skip
GET_MAX_OFFSET = Rpc(
    C.GET_MAX_OFFSET, "GET_MAX_OFFSET", QueueHeader, response_header=OffsetHeader,
    summary="the offset after the last message of a queue",
)  # fmt: skip
GET_MIN_OFFSET = Rpc(
    C.GET_MIN_OFFSET, "GET_MIN_OFFSET", QueueHeader, response_header=OffsetHeader,
    summary="the offset of the first message still stored in a queue",
)  # fmt: skip
UPDATE_CONSUMER_OFFSET = Rpc(
    C.UPDATE_CONSUMER_OFFSET, "UPDATE_CONSUMER_OFFSET", UpdateConsumerOffsetHeader,
    summary="commit a group's offset on one queue",
)  # fmt: skip
