"""The message store's settings and results: flush modes, put and get statuses, what a pull filters by."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Protocol

DEFAULT_SEGMENT_SIZE = 64 * 1024 * 1024
MAX_TRANSFER_COUNT = 32
"""At most this many messages per pull (RocketMQ's maxTransferCountOnMessageInMemory)."""
MAX_TRANSFER_BYTES = 256 * 1024
"""At most this many bytes per pull, but always at least one message."""


class FlushDiskType(StrEnum):
    ASYNC = "ASYNC_FLUSH"
    SYNC = "SYNC_FLUSH"


class PutStatus(Enum):
    PUT_OK = "PUT_OK"
    FLUSH_DISK_TIMEOUT = "FLUSH_DISK_TIMEOUT"
    MESSAGE_ILLEGAL = "MESSAGE_ILLEGAL"
    PROPERTIES_SIZE_EXCEEDED = "PROPERTIES_SIZE_EXCEEDED"
    SERVICE_NOT_AVAILABLE = "SERVICE_NOT_AVAILABLE"


@dataclass(slots=True)
class Records:
    """Consecutive stored records of one queue, encoded for the place the store gave them (``Encoder``)."""

    data: bytes | bytearray
    entries: bytes | bytearray
    """Their consume-queue entries (``consumequeue.ENTRY``), in queue-offset order."""
    keys: list[tuple[bytes, int]]
    """(UTF-8 key, commit-log offset) for the key index: each record's KEYS and UNIQ_KEY."""
    msg_ids: list[str]
    """Each record's offset message id."""


Encoder = Callable[[int, int, int, tuple[str, int]], Records]
"""Encodes records for (first queue offset, commit-log offset, store timestamp, store host); raises
``Refused`` for what cannot be stored. The store may call it twice (once more when the records must start
a new commit-log segment)."""


class Refused(Exception):
    """What an ``Encoder`` refuses to store: the put's result gets ``status`` and the message."""

    def __init__(self, status: PutStatus, detail: str) -> None:
        super().__init__(detail)
        self.status = status


class GetStatus(Enum):
    FOUND = "FOUND"
    NO_MATCHED_MESSAGE = "NO_MATCHED_MESSAGE"
    MESSAGE_WAS_REMOVING = "MESSAGE_WAS_REMOVING"
    OFFSET_FOUND_NULL = "OFFSET_FOUND_NULL"
    OFFSET_OVERFLOW_BADLY = "OFFSET_OVERFLOW_BADLY"
    OFFSET_OVERFLOW_ONE = "OFFSET_OVERFLOW_ONE"
    OFFSET_TOO_SMALL = "OFFSET_TOO_SMALL"
    NO_MATCHED_LOGIC_QUEUE = "NO_MATCHED_LOGIC_QUEUE"
    NO_MESSAGE_IN_QUEUE = "NO_MESSAGE_IN_QUEUE"


@dataclass(slots=True)
class PutResult:
    status: PutStatus
    msg_ids: list[str] = field(default_factory=list)
    queue_offset: int = 0
    phys_offset: int = 0
    wrote_bytes: int = 0
    detail: str = ""

    @property
    def stored(self) -> bool:
        return self.status in (PutStatus.PUT_OK, PutStatus.FLUSH_DISK_TIMEOUT)

    @property
    def msg_id(self) -> str:
        return ",".join(self.msg_ids)


@dataclass(slots=True)
class GetResult:
    status: GetStatus
    next_begin_offset: int
    min_offset: int
    max_offset: int
    messages: list[bytes] = field(default_factory=list)


class TagFilter(Protocol):
    """What a pull filters by (``SubscriptionData``): the consume queue's tags code, then the tag."""

    @property
    def matches_all(self) -> bool: ...

    def match_code(self, code: int) -> bool: ...

    def match_tags(self, tags: str | None) -> bool: ...


ArrivalListener = Callable[[str, int, int], None]
"""Called with (topic, queueId, new max offset) after messages for that queue were committed."""
