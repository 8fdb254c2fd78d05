"""Reading: offsets of a queue, pulls (RocketMQ's ``getMessage``), messages by commit-log offset,
store times, and key queries."""

from __future__ import annotations

import bisect
import struct

from mqadmin.server.store.records import BadRecord, check_header, record_properties
from mqadmin.server.store.state import StoreState
from mqadmin.server.store.types import GetResult, GetStatus, TagFilter
from mqadmin.wire.message import (
    PHYS_OFFSET_POS,
    PROPERTY_TAGS,
    PROPERTY_UNIQ_KEY,
    STORE_TIMESTAMP_BYTES,
    store_timestamp,
)

_PHYS = struct.Struct(">q")


class StoreReading(StoreState):
    @property
    def max_phys_offset(self) -> int:
        """The end of the committed commit log."""
        return self._end

    @property
    def min_phys_offset(self) -> int:
        return self.log.first

    @property
    def last_store_timestamp(self) -> int:
        return self._last_store_ts

    def earliest_store_time(self) -> int:
        """STORETIMESTAMP of the first message still in the commit log, -1 if there is none (as Apache's
        ``getEarliestMessageTime``; its runtime info reports it as ``earliestMessageTimeStamp``)."""
        phys = self.min_phys_offset
        header = self.log.read(phys, STORE_TIMESTAMP_BYTES) if phys < self._end else b""
        return store_timestamp(header) if len(header) == STORE_TIMESTAMP_BYTES else -1

    def queue_topics(self) -> set[str]:
        """The topics that have consume queues in the store."""
        return {topic for topic, _ in self._cqs}

    def max_offset(self, topic: str, queue_id: int) -> int:
        cq = self._cqs.get((topic, queue_id))
        return cq.count if cq is not None else 0

    def min_offset(self, topic: str, queue_id: int) -> int:
        """The queue's first offset whose message is still in the commit log (its max offset when none is)."""
        cq = self._cqs.get((topic, queue_id))
        if cq is None or not cq.count:
            return 0
        first = self.log.first
        if first == 0 or cq.entry(0)[0] >= first:
            return 0
        return bisect.bisect_left(range(cq.count), first, key=lambda i: cq.entry(i)[0])

    def get_messages(
        self, topic: str, queue_id: int, offset: int, max_nums: int, sub: TagFilter | None = None
    ) -> GetResult:
        """RocketMQ's ``getMessage``: the statuses and next offsets its PULL_MESSAGE relies on."""
        cq = self._cqs.get((topic, queue_id))
        if cq is None:
            return GetResult(GetStatus.NO_MATCHED_LOGIC_QUEUE, 0, 0, 0)
        lo, hi = self.min_offset(topic, queue_id), cq.count
        if hi == 0:
            return GetResult(GetStatus.NO_MESSAGE_IN_QUEUE, 0, lo, hi)
        if offset < lo:
            return GetResult(GetStatus.OFFSET_TOO_SMALL, lo, lo, hi)
        if offset == hi:
            return GetResult(GetStatus.OFFSET_OVERFLOW_ONE, offset, lo, hi)
        if offset > hi:
            return GetResult(GetStatus.OFFSET_OVERFLOW_BADLY, hi, lo, hi)
        limit = max(1, min(max_nums, self.max_transfer_count))
        scan_end = min(hi, offset + max(16000, max_nums * 20) // 20)
        matcher = sub if sub is not None and not sub.matches_all else None
        picked: list[tuple[int, int]] = []
        total = 0
        i = offset
        while i < scan_end:
            phys, size, code = cq.entry(i)
            if picked and (len(picked) >= limit or total + size > self.max_transfer_bytes):
                break
            i += 1
            if matcher is not None and not matcher.match_code(code):
                continue
            picked.append((phys, size))
            total += size
        messages = self._read_runs(picked)
        if messages is None:
            return GetResult(GetStatus.MESSAGE_WAS_REMOVING, i, lo, hi)
        if matcher is not None:
            messages = [m for m in messages if matcher.match_tags(_tags_of(m))]
        status = GetStatus.FOUND if messages else GetStatus.NO_MATCHED_MESSAGE
        return GetResult(status, i, lo, hi, messages)

    def _read_runs(self, picked: list[tuple[int, int]]) -> list[bytes] | None:
        """Read the picked records, one pread per physically contiguous run."""
        out: list[bytes] = []
        j = 0
        while j < len(picked):
            start, size = picked[j]
            k = j + 1
            end = start + size
            while (
                k < len(picked) and picked[k][0] == end and self.log.segment_start(end) == self.log.segment_start(start)
            ):
                end += picked[k][1]
                k += 1
            data = self.log.read(start, end - start)
            if len(data) != end - start:
                return None
            pos = 0
            for _phys, sz in picked[j:k]:
                out.append(data[pos : pos + sz])
                pos += sz
            j = k
        return out

    def read_message(self, phys: int) -> bytes | None:
        """The stored message starting exactly at commit-log offset ``phys`` (VIEW_MESSAGE_BY_ID)."""
        if phys < 0 or phys >= self._end:
            return None
        header = self.log.read(phys, STORE_TIMESTAMP_BYTES)
        try:
            size = check_header(header, 0, self._segment_size)
        except BadRecord:
            return None
        if (
            len(header) < STORE_TIMESTAMP_BYTES
            or _PHYS.unpack_from(header, PHYS_OFFSET_POS)[0] != phys
            or phys + size > self._end
        ):
            return None
        data = self.log.read(phys, size)
        return data if len(data) == size else None

    def message_at(self, topic: str, queue_id: int, offset: int) -> bytes | None:
        """The stored message at a queue offset, None if there is none (the delay-level scheduler)."""
        cq = self._cqs.get((topic, queue_id))
        if cq is None or not 0 <= offset < cq.count:
            return None
        phys, size, _ = cq.entry(offset)
        data = self.log.read(phys, size)
        return data if len(data) == size else None

    def queue_entries(self, topic: str, queue_id: int, start: int, count: int) -> list[tuple[int, int, int]] | None:
        """Consume-queue entries (commit-log offset, size, tags code) from ``start``, at most ``count``;
        None when the queue does not exist (QUERY_CONSUME_QUEUE)."""
        cq = self._cqs.get((topic, queue_id))
        if cq is None:
            return None
        return [cq.entry(i) for i in range(max(start, 0), min(cq.count, start + count))]

    def store_time(self, topic: str, queue_id: int, offset: int) -> int:
        """STORETIMESTAMP of the message at a queue offset, 0 if there is none."""
        cq = self._cqs.get((topic, queue_id))
        if cq is None or not 0 <= offset < cq.count:
            return 0
        phys, _size, _ = cq.entry(offset)
        header = self.log.read(phys, STORE_TIMESTAMP_BYTES)
        return store_timestamp(header) if len(header) == STORE_TIMESTAMP_BYTES else 0

    def search_offset(self, topic: str, queue_id: int, timestamp: int) -> int:
        """The first queue offset whose message was stored at or after ``timestamp``."""
        lo, hi = self.min_offset(topic, queue_id), self.max_offset(topic, queue_id)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.store_time(topic, queue_id, mid) < timestamp:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def query(
        self, topic: str, key: str, max_num: int, begin: int = 0, end: int = 1 << 62, *, unique: bool = False
    ) -> list[bytes]:
        """Messages of ``topic`` with ``key`` among their KEYS (or as UNIQ_KEY when ``unique``), newest
        first. The time range applies to key queries only: a unique key names one message."""
        out: list[bytes] = []
        for phys in self.index.lookup(topic, key):
            if len(out) >= max_num:
                break
            data = self.read_message(phys)
            if data is None:
                continue
            try:
                info, props = record_properties(data)
            except BadRecord:
                continue
            if info.topic != topic:
                continue
            if unique:
                if props.get(PROPERTY_UNIQ_KEY) != key:
                    continue
            elif key not in info.keys or not begin <= info.store_timestamp <= end:
                continue
            out.append(data)
        return out


def _tags_of(record: bytes) -> str | None:
    try:
        _info, props = record_properties(record)
    except BadRecord:
        return None
    return props.get(PROPERTY_TAGS)
