"""Subscription-group requests a broker answers: create or update (one or many), read (all or one), delete,
consume progress."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from mqadmin.model.consume import ConsumeStatsBody, offset_table_json, parse_offset_table
from mqadmin.model.data_version import DataVersion
from mqadmin.model.group import GroupWrite, SubscriptionGroupConfig
from mqadmin.model.names import NameKind, first_refusal, group_refusal, topic_refusal
from mqadmin.model.rpc.bodies import JsonBody
from mqadmin.model.rpc.spec import Header, Rpc, wire
from mqadmin.model.version import V5_3_1
from mqadmin.wire.codes import RequestCode as C
from mqadmin.wire.codes import ResponseCode


@dataclass(frozen=True, slots=True, kw_only=True)
class DeleteGroupHeader(Header):
    group_name: str = wire("groupName", check=group_refusal)
    clean_offset: bool | None = wire("cleanOffset", None)


@dataclass(frozen=True, slots=True, kw_only=True)
class GetGroupConfigHeader(Header):
    group: str = wire("group")


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsumeStatsHeader(Header):
    consumer_group: str = wire("consumerGroup", check=group_refusal)
    topic: str | None = wire("topic", None, check=topic_refusal)


class GroupTable(dict[str, SubscriptionGroupConfig]):
    """A broker's subscription groups by name (GET_ALL_SUBSCRIPTIONGROUP_CONFIG, SubscriptionGroupWrapper), with the
    wrapper's ``data_version`` (None when the broker sent none), its ``forbidden`` table (group → topic → flags)
    and each config ``as_written`` by the broker (an export writes them so, keys it has not modelled included)."""

    data_version: DataVersion | None = None
    forbidden: Mapping[str, Any] = MappingProxyType({})
    as_written: Mapping[str, Mapping[str, Any]] = MappingProxyType({})


def _group_table(obj: Any) -> GroupTable:
    written = obj.get("subscriptionGroupTable") or {}
    table = GroupTable((name, SubscriptionGroupConfig.from_json(cfg, name)) for name, cfg in written.items())
    table.data_version = _data_version(obj)
    table.forbidden = dict(obj.get("forbiddenTable") or {})
    table.as_written = {str(name): dict(cfg) for name, cfg in written.items()}
    return table


def _data_version(obj: Any) -> DataVersion | None:
    dv = obj.get("dataVersion")
    return DataVersion.from_json(dv) if isinstance(dv, dict) else None


def _group_table_json(table: dict[str, SubscriptionGroupConfig]) -> dict[str, Any]:
    out: dict[str, Any] = {"subscriptionGroupTable": {name: cfg.to_json() for name, cfg in table.items()}}
    if isinstance(table, GroupTable) and table.data_version is not None:
        out["dataVersion"] = table.data_version.to_json()
    return out


def _group_list(obj: Any) -> list[GroupWrite]:
    items = obj.get("groupConfigList")
    if not isinstance(items, list):
        raise ValueError("groupConfigList is not a list")
    return [GroupWrite.from_json(i) for i in items]


GROUP_TABLE = JsonBody("SubscriptionGroupWrapper", _group_table, _group_table_json)
GROUP_CONFIG = JsonBody("SubscriptionGroupConfig", SubscriptionGroupConfig.from_json, SubscriptionGroupConfig.to_json)
GROUP_WRITE = JsonBody("SubscriptionGroupConfig", GroupWrite.from_json, GroupWrite.to_json)
GROUP_LIST = JsonBody(
    "SubscriptionGroupList", _group_list, lambda writes: {"groupConfigList": [w.to_json() for w in writes]}
)

UPDATE_AND_CREATE_SUBSCRIPTIONGROUP = Rpc(
    C.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP", body=GROUP_WRITE,
    body_check=lambda write: group_refusal(write.config.group_name),
    summary="create or replace a subscription group (attributes: +k/-k operations on what the broker holds)",
)  # fmt: skip
UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST = Rpc(
    C.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST, "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST", body=GROUP_LIST,
    body_check=lambda writes: first_refusal([(NameKind.GROUP, w.config.group_name) for w in writes]),
    summary="create or replace many subscription groups in one request (5.3.1+)",
    since=V5_3_1, fallback=UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
)  # fmt: skip
GET_ALL_SUBSCRIPTIONGROUP_CONFIG = Rpc(
    C.GET_ALL_SUBSCRIPTIONGROUP_CONFIG, "GET_ALL_SUBSCRIPTIONGROUP_CONFIG", response_body=GROUP_TABLE,
    summary="every subscription group config the broker holds",
)  # fmt: skip
GET_SUBSCRIPTIONGROUP_CONFIG = Rpc(
    C.GET_SUBSCRIPTIONGROUP_CONFIG, "GET_SUBSCRIPTIONGROUP_CONFIG", GetGroupConfigHeader, response_body=GROUP_CONFIG,
    ok=frozenset({ResponseCode.SUCCESS, ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST}),
    summary="one group's config (5.0+); CREATES the group when autoCreateSubscriptionGroup is on",
)  # fmt: skip
DELETE_SUBSCRIPTIONGROUP = Rpc(
    C.DELETE_SUBSCRIPTIONGROUP, "DELETE_SUBSCRIPTIONGROUP", DeleteGroupHeader,
    summary="delete a subscription group (and its offsets with cleanOffset)",
)  # fmt: skip
GET_CONSUME_STATS = Rpc(
    C.GET_CONSUME_STATS, "GET_CONSUME_STATS", ConsumeStatsHeader, response_body=ConsumeStatsBody(),
    summary="a group's broker and consumer offset per queue",
)  # fmt: skip
OFFSET_TABLE = JsonBody("ConsumerOffsetSerializeWrapper", parse_offset_table, offset_table_json)
GET_ALL_CONSUMER_OFFSET = Rpc(
    C.GET_ALL_CONSUMER_OFFSET, "GET_ALL_CONSUMER_OFFSET", response_body=OFFSET_TABLE,
    summary="every committed offset the broker holds, topic@group -> queue -> offset (what a slave copies)",
)  # fmt: skip
