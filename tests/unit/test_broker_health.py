"""Java clusterList's health figures read from a runtime-info table (mqadmin.model.broker_health)."""

from __future__ import annotations

from mqadmin.model.broker_health import PoolLoad, TimerProgress, broker_health
from tests.unit.test_cli_cluster import HEALTH_5X

NOW = 1_700_000_000_000


def test_a_5x_table_gives_every_column() -> None:
    info = {**HEALTH_5X, "putTps": "12.5 1 1", "getTransferredTps": "3.25 1 1", "commitLogDiskRatio": "0.8125"}
    info["earliestMessageTimeStamp"] = str(NOW - 9_000_000)  # 2.5 hours before the table was read
    h = broker_health(info, NOW)
    assert (h.in_tps, h.out_tps) == (12.5, 3.25)
    assert (h.send, h.pull, h.ack) == (PoolLoad(7, 12), PoolLoad(3, 4), PoolLoad(1, 2))
    assert h.timer == TimerProgress(5, 6, 25000, 1.5, 0.5)
    assert (h.page_cache_wait_ms, h.hours, h.disk_ratio, h.activated) == (9, 2.5, 0.8125, True)
    assert h.to_json()["timer"] == {
        "readBehind": 5,
        "offsetBehind": 6,
        "congestNum": 25000,
        "enqueueTps": 1.5,
        "dequeueTps": 0.5,
    }


def test_missing_or_bad_figures_are_unknown_not_zero() -> None:
    h = broker_health(
        {"brokerActive": "false", "timerReadBehind": "1", "putTps": "x", "earliestMessageTimeStamp": "-1"}, NOW
    )
    assert h.activated is False  # a slave, or a master not yet active: Java's ACTIVATED false
    assert h.timer is None  # only part of the timer's figures
    assert (h.in_tps, h.hours, h.disk_ratio, h.send) == (None, None, None, PoolLoad(None, None))
    assert broker_health({}, NOW).activated is None
