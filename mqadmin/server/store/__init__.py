"""The embedded broker's durable message store (commit log, consume queues, key index)."""

from mqadmin.server.store.store import MessageStore
from mqadmin.server.store.types import (
    DEFAULT_SEGMENT_SIZE,
    FlushDiskType,
    GetResult,
    GetStatus,
    PutResult,
    PutStatus,
)

__all__ = [
    "DEFAULT_SEGMENT_SIZE",
    "FlushDiskType",
    "GetResult",
    "GetStatus",
    "MessageStore",
    "PutResult",
    "PutStatus",
]
