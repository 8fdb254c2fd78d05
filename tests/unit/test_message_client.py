"""Queue selection of the message client: Java's publish-queue order, orderTopicConf, the hash
selector (Java String.hashCode semantics), pinned queues."""

from __future__ import annotations

import pytest

from mqadmin.admin.messaging import NoSuchQueue, Queue, choose_queue, publish_queues
from mqadmin.admin.reading import QueueRef, readable_queues
from mqadmin.model.route import BrokerData, QueueData, TopicRouteData
from mqadmin.model.tags import build_subscription, hash_index, java_string_hash, tags_code


def route(order_conf: str | None = None) -> TopicRouteData:
    return TopicRouteData(
        broker_datas=[
            BrokerData("C", "broker-b", {0: "127.0.0.1:2"}),
            BrokerData("C", "broker-a", {0: "127.0.0.1:1"}),
            BrokerData("C", "broker-s", {1: "127.0.0.1:3"}),  # no master: not writable
        ],
        queue_datas=[
            QueueData("broker-b", 2, 2, 6),
            QueueData("broker-a", 3, 3, 6),
            QueueData("broker-s", 2, 2, 6),
            QueueData("broker-r", 2, 2, 4),  # read-only
        ],
        order_topic_conf=order_conf,
    )


def test_java_string_hash_matches_known_values():
    # printed by Java 17 (String.hashCode)
    assert java_string_hash("") == 0
    assert java_string_hash("a") == 97
    assert java_string_hash("TagA") == 2598919
    assert java_string_hash("hello world") == 1794106052
    assert java_string_hash("polygenelubricants") == -2147483648  # Integer.MIN_VALUE
    assert java_string_hash("é😀") == 1996812  # UTF-16 code units, surrogate pair included
    assert tags_code(None) == tags_code("") == 0


def test_hash_index_is_abs_of_javas_remainder():
    # printed by Java 17: Math.abs(key.hashCode() % n)
    expected = {("polygenelubricants", 7): 2, ("polygenelubricants", 3): 2, ("order-1", 7): 6, ("order-1", 3): 2,
                ("négatif", 7): 1, ("hello world", 3): 2}  # fmt: skip
    for (key, n), index in expected.items():
        assert hash_index(key, n) == index


def test_publish_queues_sorted_by_broker_writable_masters_only():
    assert publish_queues(route()) == [
        Queue("broker-a", 0), Queue("broker-a", 1), Queue("broker-a", 2), Queue("broker-b", 0), Queue("broker-b", 1),
    ]  # fmt: skip
    assert publish_queues(route(), max_queues=1) == [Queue("broker-a", 0), Queue("broker-b", 0)]


def test_order_topic_conf_builds_the_list():
    assert publish_queues(route("broker-b:2;broker-a:1")) == [Queue("broker-b", 0), Queue("broker-b", 1),
                                                              Queue("broker-a", 0)]  # fmt: skip


def test_readable_queues_include_slave_only_brokers_and_skip_those_without_an_address():
    queues = readable_queues(route())
    assert QueueRef("broker-s", "127.0.0.1:3", 1) in queues  # read from the slave when there is no master
    assert not any(q.broker_name == "broker-r" for q in queues)  # no address in the route
    assert readable_queues(route(), broker="broker-a", queue_id=2) == [QueueRef("broker-a", "127.0.0.1:1", 2)]
    with pytest.raises(NoSuchQueue, match="broker-z"):
        readable_queues(route(), broker="broker-z")


def test_choose_queue():
    qs = publish_queues(route())
    assert choose_queue(qs, broker="x", queue_id=9) == Queue("x", 9)  # pinned: used as given
    assert choose_queue(qs, order_key="k") == qs[hash_index("k", len(qs))]
    assert choose_queue(qs, broker="broker-b", order_key="k").broker_name == "broker-b"
    picked = {choose_queue(qs) for _ in range(10)}
    assert len(picked) == len(qs)  # round robin visits every queue
    with pytest.raises(NoSuchQueue, match="broker-z"):
        choose_queue(qs, broker="broker-z")


def test_subscription_expressions():
    assert build_subscription("T", None).matches_all and build_subscription("T", " * ").matches_all
    sub = build_subscription("T", "TagA || TagB ||")
    assert sub.tags == {"TagA", "TagB"} and sub.codes == {java_string_hash("TagA"), java_string_hash("TagB")}
    assert sub.match_code(java_string_hash("TagA")) and not sub.match_code(0)
    assert sub.match_tags("TagB") and not sub.match_tags(None)
