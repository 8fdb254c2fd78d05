"""How a pull of a static topic's logic queue is answered from the physical queue it read (the cases a two-broker
test does not reach: a queue moved twice, a read before the first item, an undecided next item)."""

from __future__ import annotations

from mqadmin.model.static_topic import LogicQueueMappingItem as Item
from mqadmin.server.broker.logic_queues import LogicQueue, PhysicalPull, logic_pull_answer
from mqadmin.wire.codes import ResponseCode as R

# Moved twice: a (logic 0-5), then b (logic 10000-10003), then c (logic 20000-) which leads.
A, B, C = Item(0, 0, "a", 0), Item(1, 3, "b", 10000, end_offset=4), Item(2, 1, "c", 20000)
QUEUE = LogicQueue(0, [A, B, C], "c")


def test_the_item_holding_a_logic_offset() -> None:
    assert [QUEUE.item_at(o).bname for o in (0, 5, 9999, 10000, 10003, 20000, 1 << 62)] == list("aaabbcc")
    undecided = LogicQueue(0, [A, Item(1, 3, "b", -1)], "b")
    assert undecided.item_at(1 << 62) is undecided.items[0]  # the new item's offset is not decided yet
    assert undecided.next_after(undecided.items[0]) is None
    assert B.physical_offset(10002) == 2 and B.static_offset_strictly(2) == 10002 and B.offset_delta == 10000


def test_the_end_of_an_older_item_moves_the_consumer_to_the_next_one() -> None:
    code, h = logic_pull_answer(QUEUE, A, PhysicalPull(R.PULL_NOT_FOUND, 5, 5, 0, 5))
    assert (code, h.next_begin_offset, h.min_offset) == (R.PULL_RETRY_IMMEDIATELY, 10000, 10000)
    code, h = logic_pull_answer(QUEUE, B, PhysicalPull(R.PULL_NOT_FOUND, 4, 4, 0, 4))  # a middle item
    assert (code, h.next_begin_offset, h.offset_delta) == (R.PULL_RETRY_IMMEDIATELY, 20000, 20000 - 0)


def test_found_messages_carry_the_items_delta_and_the_queues_max() -> None:
    code, h = logic_pull_answer(QUEUE, B, PhysicalPull(R.SUCCESS, 1, 3, 0, 4))
    assert (code, h.next_begin_offset, h.min_offset, h.max_offset, h.offset_delta) == (
        R.SUCCESS,
        10003,
        10000,
        20000,
        10000,
    )
    code, h = logic_pull_answer(QUEUE, B, PhysicalPull(R.SUCCESS, 1, 9, 0, 9))  # past the item's decided end
    assert h.next_begin_offset == 10004


def test_a_read_before_the_first_item_is_moved_to_its_start() -> None:
    code, h = logic_pull_answer(QUEUE, A, PhysicalPull(R.PULL_OFFSET_MOVED, 1, 3, 3, 5))  # the head was deleted
    assert (code, h.next_begin_offset) == (R.PULL_OFFSET_MOVED, 3)


def test_the_leaders_end_is_not_found_as_on_a_normal_queue() -> None:
    code, h = logic_pull_answer(QUEUE, C, PhysicalPull(R.PULL_NOT_FOUND, 2, 2, 0, 2))
    assert (code, h.next_begin_offset, h.max_offset) == (R.PULL_NOT_FOUND, 20002, 20002)
