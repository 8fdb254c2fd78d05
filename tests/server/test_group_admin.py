"""The embedded broker's subscription-group requests over TCP (200, 201, 207, 225, 352), as a 5.5 broker answers."""

from __future__ import annotations

import json

import pytest

from mqadmin.model.group import GroupWrite, SubscriptionGroupConfig
from mqadmin.model.rpc import groups as rpc
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode as R

from .conftest import request


def addr_of(cluster) -> str:
    return cluster.brokers[0].config.addr


async def write(transport, addr: str, cfg: SubscriptionGroupConfig, ops: dict[str, str | None] | None = None):
    return await transport.request(
        addr, rpc.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP.request(body=GroupWrite(cfg, ops or {}))
    )


async def write_list(transport, addr: str, *writes: GroupWrite):
    return await transport.request(addr, rpc.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST.request(body=list(writes)))


async def table(transport, addr: str) -> dict[str, dict]:
    resp = await transport.request(addr, rpc.GET_ALL_SUBSCRIPTIONGROUP_CONFIG.request())
    return {name: cfg.to_json() for name, cfg in rpc.GET_ALL_SUBSCRIPTIONGROUP_CONFIG.reply(resp).body.items()}


async def test_attribute_operations_apply_to_what_the_group_holds(cluster, transport):
    addr = addr_of(cluster)
    created = await write(
        transport, addr, SubscriptionGroupConfig("G"), {"priority.factor": "5", "lite.sub.model": "Shared"}
    )
    assert created.code == R.SUCCESS, created.remark
    changed = await write(transport, addr, SubscriptionGroupConfig("G", retry_max_times=2), {"lite.sub.model": None})
    assert changed.code == R.SUCCESS, changed.remark
    kept = await write(transport, addr, SubscriptionGroupConfig("G", retry_max_times=3))  # no operations: kept
    assert kept.code == R.SUCCESS
    g = (await table(transport, addr))["G"]
    assert (g["attributes"], g["retryMaxTimes"]) == ({"priority.factor": "5"}, 3)


@pytest.mark.parametrize(
    ("existing", "ops", "remark"),
    [
        (
            False,
            {"priority.factor": None},
            "only add attribute is supported while creating topic. key: priority.factor",
        ),
        (True, {"lite.bind.topic": None}, "attempt to delete a nonexistent key: lite.bind.topic"),
        (True, {"no.such.key": "1"}, "unsupported key: no.such.key"),
        (
            True,
            {"priority.factor": "101"},
            "attribute priority.factor='101' is not valid: must be an integer in 0..100",
        ),
    ],
)
async def test_refused_attribute_operations_change_nothing(cluster, transport, existing, ops, remark):
    addr = addr_of(cluster)
    if existing:
        assert (await write(transport, addr, SubscriptionGroupConfig("G"))).code == R.SUCCESS
    resp = await write(transport, addr, SubscriptionGroupConfig("G", retry_max_times=1), ops)
    assert (resp.code, resp.remark) == (R.SYSTEM_ERROR, remark)
    assert (await table(transport, addr)).get("G", {}).get("retryMaxTimes", 16) == 16


async def test_a_body_with_a_plain_attribute_key_is_refused(cluster, transport):
    """A body our declaration cannot write (a key without + or -), as another client might send it: raw bytes."""
    body = json.dumps({"groupName": "G", "attributes": {"priority.factor": "1"}}).encode()
    resp = await request(transport, addr_of(cluster), RC.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, body=body)
    assert resp.code == R.SYSTEM_ERROR and "wrong format key: priority.factor" in resp.remark


async def test_illegal_group_names_are_refused_with_invalid_parameter(cluster, transport):
    resp = await write(transport, addr_of(cluster), SubscriptionGroupConfig("bad name"))
    assert (resp.code, resp.remark) == (
        R.INVALID_PARAMETER,
        "The specified group contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$",
    )
    long = await write(transport, addr_of(cluster), SubscriptionGroupConfig("G" * 121))
    assert long.code == R.INVALID_PARAMETER and "longer than group max length" in long.remark


async def test_the_list_request_checks_names_first_then_stores_in_order(cluster, transport):
    addr = addr_of(cluster)
    broker = cluster.brokers[0]
    counter = broker.groups.data_version["counter"]
    ok = await write_list(
        transport,
        addr,
        GroupWrite(SubscriptionGroupConfig("L1", retry_max_times=1)),
        GroupWrite(SubscriptionGroupConfig("L2")),
    )
    assert ok.code == R.SUCCESS, ok.remark
    assert broker.groups.data_version["counter"] == counter + 1  # one change, one file write
    on_disk = json.loads(broker.data_path("subscriptionGroup.json").read_text())["subscriptionGroupTable"]
    assert on_disk["L1"]["retryMaxTimes"] == 1 and "L2" in on_disk
    same = await write_list(transport, addr, GroupWrite(SubscriptionGroupConfig("L1", retry_max_times=1)))
    assert same.code == R.SUCCESS
    assert broker.groups.data_version["counter"] == counter + 1  # nothing changed, no new version

    refused = await write_list(
        transport, addr, GroupWrite(SubscriptionGroupConfig("L3")), GroupWrite(SubscriptionGroupConfig("bad name"))
    )
    assert refused.code == R.INVALID_PARAMETER
    assert "L3" not in await table(transport, addr)  # names are checked before anything is stored
    stopped = await write_list(
        transport,
        addr,
        GroupWrite(SubscriptionGroupConfig("L4")),
        GroupWrite(SubscriptionGroupConfig("L5"), {"no.such.key": "1"}),
        GroupWrite(SubscriptionGroupConfig("L6")),
    )
    assert (stopped.code, stopped.remark) == (R.SYSTEM_ERROR, "unsupported key: no.such.key")
    held = await table(transport, addr)
    assert ("L4" in held, "L5" in held, "L6" in held) == (True, False, False)  # as Apache: stopped at L5


async def test_the_single_read_creates_a_missing_group_only_with_auto_create(make_cluster, transport):
    cluster = await make_cluster()
    addr = addr_of(cluster)
    get = rpc.GET_SUBSCRIPTIONGROUP_CONFIG
    resp = await transport.request(addr, get.request(rpc.GetGroupConfigHeader(group="Auto")))
    assert resp.code == R.SUCCESS and json.loads(resp.body)["groupName"] == "Auto"
    assert "Auto" in await table(transport, addr)  # as Java's findSubscriptionGroupConfig does

    cluster.brokers[0].groups.auto_create = False
    resp = await transport.request(addr, get.request(rpc.GetGroupConfigHeader(group="Other")))
    assert (resp.code, resp.remark) == (R.SUBSCRIPTION_GROUP_NOT_EXIST, "No group in this broker")
    bad = await transport.request(addr, get.request(rpc.GetGroupConfigHeader(group="bad name")))
    assert bad.code == R.SUBSCRIPTION_GROUP_NOT_EXIST


async def test_delete_needs_the_group_name(cluster, transport):
    """A header without its required field, which the declaration cannot build: a raw frame."""
    resp = await request(transport, addr_of(cluster), RC.DELETE_SUBSCRIPTIONGROUP, {})
    assert (resp.code, resp.remark) == (R.SYSTEM_ERROR, "the custom field <groupName> is null")


async def test_a_slave_refuses_group_changes(make_cluster, transport):
    cluster = await make_cluster()
    cluster.brokers[0].config.broker_id = 1
    addr = addr_of(cluster)
    for resp in (
        await write(transport, addr, SubscriptionGroupConfig("G")),
        await write_list(transport, addr, GroupWrite(SubscriptionGroupConfig("G"))),
        await transport.request(addr, rpc.DELETE_SUBSCRIPTIONGROUP.request(rpc.DeleteGroupHeader(group_name="G"))),
    ):
        assert resp.code == R.SYSTEM_ERROR and "from slave broker" in resp.remark
