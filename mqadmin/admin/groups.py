"""Subscription-group operations on brokers: read (one group, or every group of a broker), create or update
(keeping what was not asked to change; one group or a list), delete, consume progress.

A group's current config is read with GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201), as Java's
``examineSubscriptionGroupConfig`` does, never with GET_SUBSCRIPTIONGROUP_CONFIG (352): a broker with
autoCreateSubscriptionGroup on (the default) *creates* a missing group when asked for it with 352.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any

from mqadmin.admin.batch import write_many
from mqadmin.admin.core import AdminCore
from mqadmin.admin.errors import reason_of
from mqadmin.admin.fanout import Target, fan_out
from mqadmin.admin.results import Status, TargetResult
from mqadmin.model.consume import ConsumeStats
from mqadmin.model.group import JSON_NAMES, SCALARS, GroupRetryPolicy, GroupWrite, SubscriptionGroupConfig
from mqadmin.model.route import ClusterInfo
from mqadmin.model.rpc import groups as rpc
from mqadmin.model.topic import alter_attributes
from mqadmin.model.version import V5_0_0, V5_1_3, at_least

_V5_ONLY = ("consume_message_orderly", "group_retry_policy", "group_sys_flag", "consume_timeout_minute")


@dataclass(frozen=True, slots=True)
class GroupChange:
    """What an update asks for: only the settings that are set change an existing group; a new group gets
    SubscriptionGroupConfig's defaults for the rest. ``attributes`` are ``+k=v,-k`` operations (None removes);
    ``extra`` are bean keys the model does not know (e.g. subscriptionDataSet from an exported file)."""

    group: str
    consume_enable: bool | None = None
    consume_from_min_enable: bool | None = None
    consume_broadcast_enable: bool | None = None
    consume_message_orderly: bool | None = None
    retry_queue_nums: int | None = None
    retry_max_times: int | None = None
    broker_id: int | None = None
    which_broker_when_consume_slowly: int | None = None
    notify_consumer_ids_changed_enable: bool | None = None
    group_sys_flag: int | None = None
    consume_timeout_minute: int | None = None
    group_retry_policy: GroupRetryPolicy | None = None
    attributes: dict[str, str | None] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def given(self) -> list[str]:
        """The settings this change sets (model attribute names)."""
        names = [f.name for f in fields(self) if f.name not in ("group", "attributes", "extra")]
        return [n for n in names if getattr(self, n) is not None] + (["attributes"] if self.attributes else [])

    def apply(self, current: SubscriptionGroupConfig | None) -> SubscriptionGroupConfig:
        base = current or SubscriptionGroupConfig(self.group)
        settings = {n: getattr(self, n) for n in self.given() if n != "attributes"}
        return base.with_(
            **settings,
            attributes=alter_attributes(base.attributes, self.attributes),
            extra={**base.extra, **self.extra},
        )

    def attribute_ops(self, current: SubscriptionGroupConfig | None) -> dict[str, str | None]:
        """What to send: every attribute of a new group; for an existing one the operations, minus removals
        of keys it does not have (a broker refuses those)."""
        if current is None:
            return {k: v for k, v in self.attributes.items() if v is not None}
        return {k: v for k, v in self.attributes.items() if v is not None or k in current.attributes}


def kept_fields(broker_version: int) -> list[str]:
    """The settings a broker of this version stores (and so can be compared): 4.9 brokers have no
    consumeMessageOrderly, retry policy, sysflag or timeout; brokers before 5.1.3 no attributes."""
    names = [n for n in SCALARS if n not in _V5_ONLY]
    if at_least(broker_version, V5_0_0):
        names += list(_V5_ONLY)
    if at_least(broker_version, V5_1_3):
        names.append("attributes")
    return names


def as_stored(cfg: SubscriptionGroupConfig, broker_version: int) -> SubscriptionGroupConfig:
    """``cfg`` as a broker of this version holds it: the settings it does not keep read back as defaults."""
    kept = set(kept_fields(broker_version))
    default = SubscriptionGroupConfig(cfg.group_name)
    return cfg.with_(**{n: getattr(default, n) for n in JSON_NAMES if n not in kept})


def not_kept(change: GroupChange, held: SubscriptionGroupConfig) -> list[str]:
    """The settings (bean names) ``change`` asks for that ``held`` (what the broker holds) does not have."""
    out = [JSON_NAMES[n] for n in change.given() if n != "attributes" and getattr(held, n) != getattr(change, n)]
    if any(held.attributes.get(k) != v for k, v in change.attributes.items()):
        out.append("attributes")
    return out


def change_value(value: Any) -> Any:
    """A setting's value as change lists show it (the retry policy as its compact JSON text)."""
    if isinstance(value, GroupRetryPolicy):
        return json.dumps(value.to_json(), separators=(",", ":"), sort_keys=True)
    return value


def changes_between(
    current: SubscriptionGroupConfig, wanted: SubscriptionGroupConfig, broker_version: int
) -> dict[str, tuple[Any, Any]]:
    """Setting (bean name) → (old, new) for every stored setting that differs."""
    out: dict[str, tuple[Any, Any]] = {}
    for name in kept_fields(broker_version):
        old, new = getattr(current, name), getattr(wanted, name)
        if old != new:
            out[JSON_NAMES[name]] = (change_value(old), change_value(new))
    return out


def config_targets(info: ClusterInfo) -> list[Target]:
    """One address per broker name of every cluster, sorted: the master, or the lowest slave of a broker
    without one (as Java's getConsumerConfig reads each broker's ``selectBrokerAddr``)."""
    targets = []
    for b in sorted(info.brokers.values(), key=lambda b: b.broker_name):
        if b.broker_addrs:
            bid = min(b.broker_addrs)  # the master's id, 0, when it has one
            targets.append(Target(b.broker_name, b.broker_addrs[bid], bid, b.cluster))
    return targets


@dataclass(slots=True)
class GroupResult(TargetResult):
    """One group on one broker (for commands acting on many groups)."""

    group: str = ""

    def to_json(self) -> dict[str, Any]:
        return {**TargetResult.to_json(self), "group": self.group}


class GroupOps(AdminCore):
    # --- reading -----------------------------------------------------------------------------------

    async def group_configs(self, addr: str) -> tuple[dict[str, SubscriptionGroupConfig], int]:
        """GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201): every group config the broker holds, and its version."""
        reply = await self.request(addr, rpc.GET_ALL_SUBSCRIPTIONGROUP_CONFIG)
        return reply.body or {}, reply.version

    async def subscription_groups(self, addr: str) -> dict[str, dict[str, Any]]:
        """The broker's group configs by name in the fastjson bean form (for the fleet export)."""
        table, _ = await self.group_configs(addr)
        return {name: cfg.to_json() for name, cfg in table.items()}

    async def read_group_config(self, addr: str, group: str) -> tuple[SubscriptionGroupConfig | None, int]:
        """The broker's config of ``group`` (None if it has none) and the broker's version."""
        table, version = await self.group_configs(addr)
        return table.get(group), version

    async def group_config_on(self, targets: list[Target], group: str) -> list[TargetResult]:
        """The group's config on each target: ``ok`` (data = the config) or ``not found``."""

        async def one(t: Target) -> TargetResult:
            cfg, _ = await self.read_group_config(t.addr, group)
            return TargetResult(t.name, t.addr, Status.NOT_FOUND if cfg is None else Status.OK, data=cfg)

        return await fan_out(targets, one)

    async def consume_stats(self, addr: str, group: str, topic: str | None = None) -> ConsumeStats:
        """GET_CONSUME_STATS (208): the group's offsets per queue on one broker (every topic without ``topic``)."""
        header = rpc.ConsumeStatsHeader(consumer_group=group, topic=topic)
        return (await self.request(addr, rpc.GET_CONSUME_STATS, header)).body or ConsumeStats()

    # --- creating and updating ---------------------------------------------------------------------

    async def update_group(self, target: Target, change: GroupChange, *, create_only: bool = False) -> TargetResult:
        """Create the group on one broker, or change the settings ``change`` sets and keep the rest.

        created / updated (old → new per setting) / unchanged (nothing sent). With ``create_only`` an
        existing group is left as it is (``unchanged``), whatever its settings. ``data`` is the config the
        broker holds afterwards (``not_kept`` tells which asked-for settings an older broker dropped).
        """
        current, version = await self.read_group_config(target.addr, change.group)
        wanted = change.apply(current)
        if current is not None:
            diff = changes_between(current, wanted, version)
            if create_only or not diff:
                return TargetResult(target.name, target.addr, Status.UNCHANGED, data=current)
        write = GroupWrite(wanted, change.attribute_ops(current))
        await self.request(target.addr, rpc.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, body=write)
        held = as_stored(wanted, version)
        if current is None:
            return TargetResult(target.name, target.addr, Status.CREATED, data=held)
        return TargetResult(target.name, target.addr, Status.UPDATED, changes=diff, data=held)

    async def update_group_on(
        self, targets: list[Target], change: GroupChange, *, create_only: bool = False
    ) -> list[TargetResult]:
        return await fan_out(targets, lambda t: self.update_group(t, change, create_only=create_only))

    async def update_groups(self, target: Target, changes: list[GroupChange]) -> list[GroupResult]:
        """Create or update many groups on one broker: one read, then one UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST
        (225) with the groups that change where the broker has it (5.3.1+), else one request (200) per group
        (``mqadmin.admin.batch``: a refused list is sent again group by group). One result per group; groups
        already as wanted are ``unchanged`` and not sent."""
        table, version = await self.group_configs(target.addr)
        rows: list[GroupResult] = []
        writes: list[tuple[GroupResult, GroupWrite]] = []
        for change in changes:
            current = table.get(change.group)
            wanted = change.apply(current)
            held = as_stored(wanted, version)
            row = GroupResult(target.name, target.addr, Status.CREATED, data=held, group=change.group)
            if current is not None:
                row.changes = changes_between(current, wanted, version)
                row.status = Status.UPDATED if row.changes else Status.UNCHANGED
            rows.append(row)
            if row.status != Status.UNCHANGED:
                writes.append((row, GroupWrite(wanted, change.attribute_ops(current))))
        reasons = await self._write_groups(target.addr, [w for _, w in writes], version)
        for (row, _), reason in zip(writes, reasons, strict=True):
            if reason is not None:
                row.status, row.reason, row.changes = Status.FAILED, reason, {}
        return rows

    async def _write_groups(self, addr: str, writes: list[GroupWrite], version: int) -> list[str | None]:
        """Send the writes (``mqadmin.admin.batch``: in one list request where the broker has it); the failure
        reason of each (None when done)."""
        done = await write_many(
            self, addr, version, rpc.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST, writes,
            entry=lambda w: w, alone=lambda w: (None, w), chunk=len(writes) or 1,
        )  # fmt: skip
        return [None if e is None else reason_of(e) for e in done]

    async def update_groups_on(self, targets: list[Target], changes: list[GroupChange]) -> list[GroupResult]:
        """``update_groups`` on every target concurrently; a broker that fails as a whole (unreachable, its
        table unreadable) gets one failed row per group."""

        async def one(t: Target) -> TargetResult:
            return TargetResult(t.name, t.addr, Status.OK, data=await self.update_groups(t, changes))

        rows: list[GroupResult] = []
        for r in await fan_out(targets, one):
            if r.ok:
                rows.extend(r.data)
            else:
                rows.extend(
                    GroupResult(r.name, r.addr, Status.FAILED, r.reason, error=r.error, group=c.group) for c in changes
                )
        return rows

    # --- deleting ----------------------------------------------------------------------------------

    async def delete_group(
        self, target: Target, group: str, *, clean_offset: bool = False, dry_run: bool = False
    ) -> TargetResult:
        """DELETE_SUBSCRIPTIONGROUP (207), after checking the broker has the group (``not found`` otherwise).
        ``clean_offset`` also removes the group's consumer offsets; ``dry_run`` only reports ``would delete``."""
        current, _ = await self.read_group_config(target.addr, group)
        if current is None:
            return TargetResult(target.name, target.addr, Status.NOT_FOUND)
        if dry_run:
            return TargetResult(target.name, target.addr, Status.WOULD_DELETE, data=current)
        header = rpc.DeleteGroupHeader(group_name=group, clean_offset=clean_offset)
        await self.request(target.addr, rpc.DELETE_SUBSCRIPTIONGROUP, header)
        return TargetResult(target.name, target.addr, Status.DELETED, data=current)

    async def delete_group_on(
        self, targets: list[Target], group: str, *, clean_offset: bool = False, dry_run: bool = False
    ) -> list[TargetResult]:
        return await fan_out(targets, lambda t: self.delete_group(t, group, clean_offset=clean_offset, dry_run=dry_run))
