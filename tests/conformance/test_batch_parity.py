"""The rule for a refused list request (``mqadmin.admin.batch``), from how real brokers answer one.

A broker that has UPDATE_AND_CREATE_TOPIC_LIST (18, 5.3.0+) or UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST (225,
5.3.1+) checks the names of the whole list first, then applies the items one after another and stops at the
first whose attributes it refuses: the items before it are changed, the refusal names neither. So our commands
send a refused list again item by item; every item then gets its own result, as from a 4.9 broker, which has
no list request (the attributes it lacks are ignored there, so nothing is refused).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from mqadmin.admin import AdminClient
from mqadmin.admin.errors import ResponseError
from mqadmin.model.group import GroupWrite, SubscriptionGroupConfig
from mqadmin.model.rpc import groups as group_rpc
from mqadmin.model.rpc import topics as topic_rpc
from mqadmin.model.topic import TopicConfig
from tests.applicability import not_applicable
from tests.conformance.backends import Backend
from tests.conformance.test_cli_commands import both_brokers, mq, on_cluster, rows, wait_for_route
from tests.conformance.test_topic_parity import new_name, version_of

pytestmark = pytest.mark.conformance


def _read(backend: Backend, topics: list[str], groups: list[str]) -> tuple[set[str], set[str]]:
    """The topics and groups broker-a holds, of those asked for."""
    addr = backend.brokers["broker-a"]

    async def read() -> tuple[set[str], set[str]]:
        async with AdminClient([backend.namesrv_addr]) as admin:
            held_topics, _ = await admin.read_topic_configs(addr, topics)
            held_groups, _ = await admin.group_configs(addr)
            return set(held_topics), {g for g in groups if g in held_groups}

    return asyncio.run(read())


def test_a_refused_list_keeps_the_items_before_the_refused_one(backend: Backend) -> None:
    if version_of(backend) < (5, 3, 1):
        not_applicable(f"{backend.name}: no list requests before 5.3.1 (answered REQUEST_CODE_NOT_SUPPORTED)")
    addr = backend.brokers["broker-a"]
    first, bad, last = (new_name(p) for p in ("Before", "Bad", "After"))
    g_first, g_bad, g_last = (new_name(p) for p in ("GBefore", "GBad", "GAfter"))
    topics = [TopicConfig(first), TopicConfig(bad, attributes={"+bogus.key": "1"}), TopicConfig(last)]
    groups = [
        GroupWrite(SubscriptionGroupConfig(g_first), {}),
        GroupWrite(SubscriptionGroupConfig(g_bad), {"bogus.key": "1"}),
        GroupWrite(SubscriptionGroupConfig(g_last), {}),
    ]

    async def send() -> list[str]:
        out = []
        async with AdminClient([backend.namesrv_addr]) as admin:
            for rpc, body in (
                (topic_rpc.UPDATE_AND_CREATE_TOPIC_LIST, topics),
                (group_rpc.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST, groups),
            ):
                with pytest.raises(ResponseError) as refused:
                    await admin.request(addr, rpc, body=body)
                out.append(refused.value.remark)
        return out

    assert ["unsupported key: bogus.key" in remark for remark in asyncio.run(send())] == [True, True]
    assert _read(backend, [first, bad, last], [g_first, g_bad, g_last]) == ({first}, {g_first})


@pytest.mark.parametrize(
    ("command", "key", "attributes_since", "batch", "single", "batch_since"),
    [
        (
            "updateTopicList", "topicName", (5, 0, 0), "UPDATE_AND_CREATE_TOPIC_LIST(18)",
            "UPDATE_AND_CREATE_TOPIC(17)", (5, 3, 0),
        ),
        (
            "updateSubGroupList", "groupName", (5, 1, 3), "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST(225)",
            "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP(200)", (5, 3, 1),
        ),
    ],
)  # fmt: skip
def test_each_item_of_a_refused_list_gets_its_own_result(
    backend: Backend,
    tmp_path: Path,
    command: str,
    key: str,
    attributes_since: tuple[int, ...],
    batch: str,
    single: str,
    batch_since: tuple[int, ...],
) -> None:
    first, bad, last = (new_name(p) for p in ("ListOk", "ListBad", "ListOk"))
    path = tmp_path / "items.json"
    path.write_text(json.dumps([{key: first}, {key: bad, "attributes": {"+bogus.key": "1"}}, {key: last}]))
    r = mq("--debug", command, *on_cluster(backend), "-f", str(path))
    status = {(row[0], row[1]): row[3] for row in rows(r.out)[1:]}
    sent = [line for line in r.err.splitlines() if line.startswith("mqadmin: >")]
    if version_of(backend) < attributes_since:  # a broker without attributes ignores them
        assert (r.code, set(status.values())) == (0, {"created"}), r.out + r.err
    else:
        assert r.code == 3, r.out + r.err
        assert {name for (name, _), s in status.items() if s == "failed"} == {bad}
        assert {name for (name, _), s in status.items() if s == "created"} == {first, last}
        assert "unsupported key: bogus.key" in r.out
    if version_of(backend) >= batch_since:  # one list per broker, refused, then each item alone
        assert (sum(batch in line for line in sent), sum(single in line for line in sent)) == (2, 6)
    if command == "updateTopicList":
        for topic in (first, last):
            wait_for_route(backend, topic, both_brokers)
        assert _read(backend, [first, last], [])[0] == {first, last}
    else:
        assert _read(backend, [], [first, last])[1] == {first, last}
