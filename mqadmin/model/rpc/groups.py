"""Subscription-group requests a broker answers: create or update, list, delete, consume progress."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqadmin.model.consume import ConsumeStatsBody
from mqadmin.model.names import Refusal, group_refusal, topic_refusal
from mqadmin.model.rpc.bodies import JsonBody, json_object
from mqadmin.model.rpc.spec import Header, Rpc, wire
from mqadmin.wire.codes import RequestCode as C


@dataclass(frozen=True, slots=True, kw_only=True)
class DeleteGroupHeader(Header):
    group_name: str = wire("groupName", check=group_refusal)
    clean_offset: bool | None = wire("cleanOffset", None)


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsumeStatsHeader(Header):
    consumer_group: str = wire("consumerGroup", check=group_refusal)
    topic: str | None = wire("topic", None, check=topic_refusal)


def _group_table(obj: Any) -> dict[str, dict[str, Any]]:
    table = obj.get("subscriptionGroupTable") or {}
    return {name: dict(cfg, groupName=cfg.get("groupName") or name) for name, cfg in table.items()}


def _group_name_refusal(cfg: dict[str, Any]) -> Refusal | None:
    name = cfg.get("groupName")
    return group_refusal(name) if isinstance(name, str) else None


GROUP_TABLE = JsonBody("SubscriptionGroupWrapper", _group_table, lambda table: {"subscriptionGroupTable": table})

UPDATE_AND_CREATE_SUBSCRIPTIONGROUP = Rpc(
    C.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP",
    body=json_object("SubscriptionGroupConfig"), body_check=_group_name_refusal,
    summary="create or update a subscription group",
)  # fmt: skip
GET_ALL_SUBSCRIPTIONGROUP_CONFIG = Rpc(
    C.GET_ALL_SUBSCRIPTIONGROUP_CONFIG, "GET_ALL_SUBSCRIPTIONGROUP_CONFIG", response_body=GROUP_TABLE,
    summary="every subscription group config the broker holds",
)  # fmt: skip
DELETE_SUBSCRIPTIONGROUP = Rpc(
    C.DELETE_SUBSCRIPTIONGROUP, "DELETE_SUBSCRIPTIONGROUP", DeleteGroupHeader,
    summary="delete a subscription group (and its offsets with cleanOffset)",
)  # fmt: skip
GET_CONSUME_STATS = Rpc(
    C.GET_CONSUME_STATS, "GET_CONSUME_STATS", ConsumeStatsHeader, response_body=ConsumeStatsBody(),
    summary="a group's broker and consumer offset per queue",
)  # fmt: skip
