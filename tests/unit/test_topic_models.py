"""The pure parts of the topic commands: queue allocation, static-topic plans, code-18 attribute operations."""

from __future__ import annotations

import pytest

from mqadmin.model.allocate import MessageQueue, allocate_all, allocate_averagely, subscribe_queues
from mqadmin.model.route import QueueData, TopicRouteData
from mqadmin.model.static_topic import (
    LogicQueueMappingItem,
    MappingError,
    StaticTopicConfig,
    StaticTopicPlan,
    TopicQueueMappingDetail,
    TopicQueueMappingInfo,
    block_round_up,
    plan_create_or_expand,
    plan_remapping,
)
from mqadmin.model.topic import TopicConfig
from mqadmin.model.topic_batch import attribute_changes, list_entry, ops_from_map, ops_to_map

# Java 5.5.0 AllocateMessageQueueAveragely on queues 0..q-1 and clients c0..c(n-1), one share per client.
JAVA_SHARES = {
    (2, 3): [[0], [1], []],
    (5, 5): [[0], [1], [2], [3], [4]],
    (7, 3): [[0, 1, 2], [3, 4], [5, 6]],
    (8, 3): [[0, 1, 2], [3, 4, 5], [6, 7]],
    (10, 4): [[0, 1, 2], [3, 4, 5], [6, 7], [8, 9]],
    (20, 7): [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11], [12, 13, 14], [15, 16, 17], [18, 19]],
}


@pytest.mark.parametrize(("queues", "clients"), list(JAVA_SHARES))
def test_allocation_matches_javas_averagely(queues: int, clients: int) -> None:
    mqs = [MessageQueue("T", "b", i) for i in range(queues)]
    cids = [f"c{i}" for i in range(clients)]
    shares = [[q.queue_id for q in allocate_averagely(mqs, cids, c)] for c in cids]
    assert shares == JAVA_SHARES[(queues, clients)]


def test_allocation_sorts_like_a_rebalance_and_uses_readable_queues_only() -> None:
    route = TopicRouteData(
        queue_datas=[QueueData("broker-b", 2, 2, 6), QueueData("broker-a", 2, 2, 6), QueueData("broker-c", 4, 4, 2)]
    )
    queues = subscribe_queues("T", route)
    assert [(q.broker_name, q.queue_id) for q in queues] == [
        ("broker-a", 0),
        ("broker-a", 1),
        ("broker-b", 0),
        ("broker-b", 1),
    ]
    shares = allocate_all(queues, ["z", "a"])
    assert list(shares) == ["a", "z"] and [q.broker_name for q in shares["a"]] == ["broker-a", "broker-a"]


def test_a_static_topics_queues_are_its_logic_queues() -> None:
    route = TopicRouteData(
        queue_datas=[QueueData("broker-a", 2, 2, 6)],
        queue_mappings={
            "broker-a": TopicQueueMappingInfo("T", 6, "broker-a", 1),
            "broker-b": TopicQueueMappingInfo("T", 6, "broker-b", 1),
        },
    )
    queues = subscribe_queues("T", route)
    assert {q.broker_name for q in queues} == {"__syslo__global__"} and [q.queue_id for q in queues] == list(range(6))


def test_block_round_up_is_javas() -> None:
    assert [block_round_up(x) for x in (0, 3, 4999, 5000, 10000, 14999, 15000)] == [
        10000,
        10000,
        10000,
        20000,
        20000,
        20000,
        30000,
    ]


def _plan_brokers(plan: StaticTopicPlan) -> dict[str, list[int]]:
    leaders = plan.leaders()
    return {b: sorted(g for g, owner in leaders.items() if owner == b) for b in plan.brokers}


def test_create_spreads_queues_evenly_and_expand_keeps_them() -> None:
    plan = plan_create_or_expand("T", 5, {"a", "b"}, {})
    counts = sorted(len(q) for q in _plan_brokers(plan).values())
    assert counts == [2, 3]
    assert {c.mapping.epoch for c in plan.brokers.values()} == {plan.epoch}
    for cfg in plan.brokers.values():
        assert cfg.config.write_queue_nums == len(cfg.mapping.hosted_queues)
        assert sorted(i.queue_id for items in cfg.mapping.hosted_queues.values() for i in items) == list(
            range(cfg.config.write_queue_nums)
        )
    bigger = plan_create_or_expand("T", 8, {"a", "b", "c"}, plan.brokers)
    before = plan.leaders()
    assert {g: bigger.leaders()[g] for g in before} == before
    assert sorted(map(len, _plan_brokers(bigger).values())) == [2, 3, 3] and bigger.epoch >= plan.epoch + 1000


@pytest.mark.parametrize(("total", "message"), [(3, "cannot shrink"), (4, "nothing to do")])
def test_a_static_topic_never_shrinks(total: int, message: str) -> None:
    plan = plan_create_or_expand("T", 4, {"a"}, {})
    with pytest.raises(MappingError, match=message):
        plan_create_or_expand("T", total, {"a"}, plan.brokers)


def test_inconsistent_mappings_are_refused() -> None:
    plan = plan_create_or_expand("T", 4, {"a", "b"}, {})
    skewed = dict(plan.brokers)
    skewed["b"] = StaticTopicConfig(
        skewed["b"].config,
        TopicQueueMappingDetail("T", 4, "b", plan.epoch + 1, hosted_queues=skewed["b"].mapping.hosted_queues),
    )
    with pytest.raises(MappingError, match="epoch does not match"):
        plan_create_or_expand("T", 6, {"a", "b"}, skewed)
    plain = {"a": StaticTopicConfig(TopicConfig("T"), None)}
    with pytest.raises(MappingError, match="not a static topic"):
        plan_create_or_expand("T", 6, {"a"}, plain)


def test_remapping_moves_the_fewest_queues_and_marks_new_generations() -> None:
    plan = plan_create_or_expand("T", 6, {"a", "b"}, {})
    remap = plan_remapping("T", {"b", "c"}, plan.brokers)
    held_by_b = set(_plan_brokers(plan)["b"])
    after = _plan_brokers(remap)
    assert held_by_b <= set(after["b"]) and len(after["b"]) == len(after["c"]) == 3 and after["a"] == []
    assert (remap.map_in, remap.map_out) == ({"c"}, {"a"})
    for gid in after["c"]:
        old, new = remap.brokers["c"].mapping.hosted_queues[gid]
        assert (old.bname, new.bname, new.gen, new.logic_offset) == ("a", "c", 1, -1)
        assert remap.brokers["a"].mapping.hosted_queues[gid][-1] is new  # one object: deciding it updates both


def test_mapping_json_round_trips() -> None:
    plan = plan_create_or_expand("T", 3, {"a"}, {})
    again = StaticTopicPlan.from_json(plan.to_json())
    assert again.to_json() == plan.to_json()
    item = LogicQueueMappingItem(1, 2, "a", 10000, 0)
    assert LogicQueueMappingItem.from_json(item.to_json()) == item
    assert item.static_offset_strictly(7) == 10007


def test_list_entries_carry_attribute_operations() -> None:
    assert attribute_changes({"a": "1", "b": "2"}, {"a": "1", "b": "3", "c": "4"}) == {"b": "3", "c": "4"}
    assert attribute_changes({"a": "1"}, {}) == {"a": None}
    assert ops_to_map({"b": "3", "a": None}) == {"-a": "", "+b": "3"}
    assert ops_from_map({"-a": "", "+b": "3", "c": "4"}) == {"a": None, "b": "3", "c": "4"}
    fresh = list_entry(TopicConfig("T", attributes={"message.type": "FIFO"}), None)
    assert fresh.attributes == {"+message.type": "FIFO"}
    changed = list_entry(TopicConfig("T", perm=4), TopicConfig("T", attributes={"k": "v"}))
    assert changed.attributes == {"-k": ""} and changed.perm == 4
