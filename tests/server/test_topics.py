"""TopicConfigManager: start-up topics, create/update/unchanged, auto-creation rules, persistence."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from mqadmin.model.topic import TopicConfig
from mqadmin.server.broker.config import BrokerConfig
from mqadmin.server.broker.topics import TopicConfigManager


class Published:
    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    async def __call__(self, cfgs: list[TopicConfig], wait: bool) -> None:
        self.batches.append([c.topic_name for c in cfgs])


def manager(tmp_path: Path, publish: Published | None = None, **cfg) -> TopicConfigManager:
    config = BrokerConfig(data_dir=tmp_path, **cfg)
    m = TopicConfigManager(config, tmp_path / "topics.json", publish)
    m.load()
    return m


def test_startup_topics(tmp_path):
    m = manager(tmp_path, cluster_name="C1", broker_name="bk")
    got = {n: (tc.read_queue_nums, tc.perm) for n, tc in m.all().items()}
    assert got["SELF_TEST_TOPIC"] == (1, 6)
    assert got["TBW102"] == (8, 7)
    assert got["BenchmarkTest"] == (1024, 6)
    assert got["C1"] == (16, 7)
    assert got["bk"] == (1, 7)
    assert got["OFFSET_MOVED_EVENT"] == (1, 6)
    assert got["SCHEDULE_TOPIC_XXXX"] == (18, 6)
    assert got["C1_REPLY_TOPIC"] == (1, 6)
    assert got["RMQ_SYS_TRANS_HALF_TOPIC"] == (1, 6)
    assert len(m.all()) != 1  # the first registration never carries exactly one topic
    assert m.is_system_topic("C1") and m.is_system_topic("bk") and not m.is_system_topic("Orders")


def test_startup_topic_variants(tmp_path):
    m = manager(tmp_path, auto_create_topic_enable=False, cluster_topic_enable=False, broker_topic_enable=False)
    assert m.get("TBW102") is None
    assert m.get("DefaultCluster").perm == 1 and m.get("broker-a").perm == 1


async def test_create_update_unchanged_and_data_version(tmp_path):
    pub = Published()
    m = manager(tmp_path, pub)
    v0 = m.data_version["counter"]
    assert await m.update(TopicConfig("Orders")) == "created"
    v1 = m.data_version["counter"]
    assert v1 > v0
    assert await m.update(TopicConfig("Orders")) == "unchanged"
    assert m.data_version["counter"] == v1
    assert await m.update(TopicConfig("Orders", 4, 4)) == "updated"
    assert m.data_version["counter"] > v1
    assert pub.batches == [["Orders"], ["Orders"]]  # unchanged is not announced


async def test_update_many_reports_each_topic(tmp_path):
    m = manager(tmp_path)
    await m.update(TopicConfig("A"))
    assert await m.update_many([TopicConfig("A"), TopicConfig("B"), TopicConfig("A", 2, 2)]) == [
        "unchanged",
        "created",
        "updated",
    ]


@pytest.mark.parametrize(("client_queues", "expected"), [(4, 4), (16, 8), (-3, 0)])
async def test_auto_create_takes_min_queues_and_drops_inherit(tmp_path, client_queues, expected):
    pub = Published()
    m = manager(tmp_path, pub)
    tc = await m.create_in_send("Auto", "TBW102", client_queues)
    assert tc is not None
    assert (tc.read_queue_nums, tc.write_queue_nums, tc.perm) == (expected, expected, 6)
    assert m.get("Auto") == tc
    assert pub.batches == [["Auto"]]


async def test_auto_create_refused_when_disabled_or_default_missing_or_not_inheritable(tmp_path):
    off = manager(tmp_path / "off", auto_create_topic_enable=False)
    assert await off.create_in_send("Auto", "TBW102", 4) is None
    # TBW102 left in topics.json from an earlier run with auto-creation on still does not allow it
    await off.update(TopicConfig("TBW102", 8, 8, 7))
    assert await off.create_in_send("Auto", "TBW102", 4) is None
    on = manager(tmp_path / "on")
    assert await on.create_in_send("Auto", "NoSuchDefault", 4) is None
    await on.update(TopicConfig("Template", 8, 8, 6))
    assert await on.create_in_send("Auto", "Template", 4) is None
    await on.update(TopicConfig("Inheritable", 2, 2, 7))
    tc = await on.create_in_send("Auto", "Inheritable", 4)
    assert tc is not None and tc.write_queue_nums == 2


async def test_auto_create_returns_an_existing_topic_unchanged(tmp_path):
    m = manager(tmp_path)
    await m.update(TopicConfig("Exists", 3, 3, 6))
    assert (await m.create_in_send("Exists", "TBW102", 8)).write_queue_nums == 3


async def test_concurrent_auto_creates_create_once(tmp_path):
    pub = Published()
    m = manager(tmp_path, pub)
    results = await asyncio.gather(*(m.create_in_send("Race", "TBW102", 4) for _ in range(20)))
    assert len({id(r) for r in results}) == 1
    assert pub.batches == [["Race"]]


async def test_retry_topic(tmp_path):
    m = manager(tmp_path)
    tc = await m.create_retry_topic("%RETRY%G1")
    assert (tc.read_queue_nums, tc.perm) == (1, 6)
    assert await m.create_retry_topic("%RETRY%G1") is tc


async def test_changes_survive_a_restart_without_close(tmp_path):
    m = manager(tmp_path)
    await m.update(TopicConfig("Kept", 3, 3))
    await m.create_in_send("AutoKept", "TBW102", 2)
    await m.update(TopicConfig("Gone"))
    await m.delete("Gone")
    dv = m.data_version
    again = manager(tmp_path)
    assert again.get("Kept") == TopicConfig("Kept", 3, 3)
    assert again.get("AutoKept").write_queue_nums == 2
    assert again.get("Gone") is None
    assert again.data_version == dv


async def test_a_persisted_startup_topic_wins_over_the_default(tmp_path):
    m = manager(tmp_path)
    await m.update(TopicConfig("SELF_TEST_TOPIC", 5, 5))
    assert manager(tmp_path).get("SELF_TEST_TOPIC").read_queue_nums == 5


async def test_order_config_from_the_name_server_marks_topics_ordered(tmp_path):
    m = manager(tmp_path)
    await m.update(TopicConfig("Ord"))
    await m.apply_order_config({"Ord": "broker-a:8", "Unknown": "broker-a:1"})
    assert m.get("Ord").order and m.get("Unknown") is None
    await m.apply_order_config({})
    assert m.get("Ord").order  # never cleared, as in Java


async def test_an_identical_update_is_acknowledged_only_once_the_first_is_on_disk(tmp_path):
    m = manager(tmp_path)
    first = asyncio.ensure_future(m.update(TopicConfig("Twice")))
    await asyncio.sleep(0)  # the first change is in memory, its flush under way
    assert await m.update(TopicConfig("Twice")) == "unchanged"
    assert manager(tmp_path).get("Twice") == TopicConfig("Twice")  # already durable when acknowledged
    await first
