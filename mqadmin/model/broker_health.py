"""A broker's health figures, read from its GET_BROKER_RUNTIME_INFO table as Java's clusterList reads them.

Java 5.5's clusterList shows, per broker: in/out TPS with the send, pull and ack thread pools' queue size and
head-of-queue wait ("LOAD"), the timer's progress (read-behind, offset-behind, congestion, enqueue/dequeue
TPS), the page-cache lock wait, the hours since the earliest stored message, the commit log's disk ratio and
whether the broker is active (acting as master). A key the broker does not report (a 4.9 broker has no ack
pool, no timer and no ``brokerActive``) is None here, never a made-up zero.
"""

from __future__ import annotations

from typing import NamedTuple

MS_PER_HOUR = 3_600_000

# NamedTuples, not frozen dataclasses: clusterList loads this module, and three dataclasses cost it ~1.5 ms.


class PoolLoad(NamedTuple):
    """One thread pool's backlog: requests queued and how long the oldest has waited (ms)."""

    queue_size: int | None
    wait_ms: int | None


class TimerProgress(NamedTuple):
    read_behind: int
    offset_behind: int
    congest_num: int
    enqueue_tps: float
    dequeue_tps: float


class BrokerHealth(NamedTuple):
    in_tps: float | None
    out_tps: float | None
    send: PoolLoad
    pull: PoolLoad
    ack: PoolLoad
    timer: TimerProgress | None
    page_cache_wait_ms: int | None
    hours: float | None  # since the earliest message still stored
    disk_ratio: float | None  # of the commit log's disk, 0..1
    activated: bool | None

    def to_json(self) -> dict[str, object]:
        timer = self.timer
        return {
            "inTps": self.in_tps,
            "outTps": self.out_tps,
            "sendQueueSize": self.send.queue_size,
            "sendQueueWaitMs": self.send.wait_ms,
            "pullQueueSize": self.pull.queue_size,
            "pullQueueWaitMs": self.pull.wait_ms,
            "ackQueueSize": self.ack.queue_size,
            "ackQueueWaitMs": self.ack.wait_ms,
            "timer": None
            if timer is None
            else {
                "readBehind": timer.read_behind,
                "offsetBehind": timer.offset_behind,
                "congestNum": timer.congest_num,
                "enqueueTps": timer.enqueue_tps,
                "dequeueTps": timer.dequeue_tps,
            },
            "pageCacheWaitMs": self.page_cache_wait_ms,
            "hours": self.hours,
            "diskRatio": self.disk_ratio,
            "activated": self.activated,
        }


def broker_health(info: dict[str, str], now_ms: int) -> BrokerHealth:
    """The figures of one runtime-info table; ``now_ms`` is when it was read (for the hours)."""
    earliest = _int(info.get("earliestMessageTimeStamp"))
    active = info.get("brokerActive")
    return BrokerHealth(
        in_tps=first_number(info.get("putTps")),
        out_tps=first_number(info.get("getTransferredTps") or info.get("getTransferedTps")),
        send=_pool(info, "send"),
        pull=_pool(info, "pull"),
        ack=_pool(info, "ack"),
        timer=_timer(info),
        page_cache_wait_ms=_int(info.get("pageCacheLockTimeMills")),
        hours=None if earliest is None or earliest <= 0 else round((now_ms - earliest) / MS_PER_HOUR, 2),
        disk_ratio=_float(info.get("commitLogDiskRatio")),
        activated=None if active is None else active.strip().lower() == "true",
    )


def first_number(value: str | None) -> float | None:
    """The first figure of ``"12.5 11.0 10.0"`` (the last 10 s); None when absent or not a number."""
    parts = value.split() if value else []
    return _float(parts[0]) if parts else None


def _pool(info: dict[str, str], name: str) -> PoolLoad:
    return PoolLoad(
        _int(info.get(f"{name}ThreadPoolQueueSize")), _int(info.get(f"{name}ThreadPoolQueueHeadWaitTimeMills"))
    )


def _timer(info: dict[str, str]) -> TimerProgress | None:
    read, offset, congest = (_int(info.get(k)) for k in ("timerReadBehind", "timerOffsetBehind", "timerCongestNum"))
    enqueue, dequeue = _float(info.get("timerEnqueueTps")), _float(info.get("timerDequeueTps"))
    if read is None or offset is None or congest is None or enqueue is None or dequeue is None:
        return None  # as Java: all five or none (it prints zeros then; we print nothing)
    return TimerProgress(read, offset, congest, enqueue, dequeue)


def _int(value: str | None) -> int | None:
    try:
        return int(value.strip()) if value is not None else None
    except ValueError:
        return None


def _float(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None
