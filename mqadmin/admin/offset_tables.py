"""Where consumer groups have committed offsets, from the brokers' own offset tables (GET_ALL_CONSUMER_OFFSET).

A group is usually found through its retry topic's route (``%RETRY%group``), which the broker creates when a
consumer of the group first comes online. A group whose offsets were set by an operator (resetOffsetByTime,
cloneGroupOffset, updateConsumeOffset) before any consumer ran has no retry topic: only the offset tables of
the masters know it. Apache answers GET_CONSUME_STATS without a topic from the same table (the topics the
group has offsets for), so once the masters holding the group are known its progress reads as usual.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from mqadmin.admin.core import AdminCore
from mqadmin.admin.fanout import Target, fan_out, masters
from mqadmin.admin.results import Status, TargetResult
from mqadmin.model.consume import OFFSET_KEY_SEPARATOR
from mqadmin.model.names import is_retry_or_dlq_topic, is_system_topic
from mqadmin.model.rpc import groups as rpc


@dataclass(slots=True)
class CommittedGroups:
    """Group -> the masters whose offset table holds it, with one result per master asked (a master that could
    not be read is a failed result: groups only it holds are missing)."""

    holders: dict[str, list[Target]] = field(default_factory=dict)
    results: list[TargetResult] = field(default_factory=list)


def user_groups(table: dict[str, dict[int, int]]) -> set[str]:
    """The groups of an offset table's ``topic@group`` keys that consume a user topic (not only their own retry
    topic or a system topic such as the transaction check's)."""
    out = set()
    for key in table:
        topic, _, group = key.rpartition(OFFSET_KEY_SEPARATOR)
        if group and not is_retry_or_dlq_topic(topic) and not is_system_topic(topic):
            out.add(group)
    return out


class OffsetTableOps(AdminCore):
    async def consumer_offset_table(self, addr: str) -> dict[str, dict[int, int]]:
        """GET_ALL_CONSUMER_OFFSET (43): the broker's committed offsets, ``topic@group`` -> queue -> offset."""
        return (await self.request(addr, rpc.GET_ALL_CONSUMER_OFFSET)).body or {}

    async def committed_groups(self, cluster: str | None = None) -> CommittedGroups:
        """Every group with committed offsets on a user topic, and the masters (of ``cluster``) holding them."""
        info = await self.cluster_info()
        if cluster is not None:
            targets = masters(await self.cluster_brokers(cluster, info))
        else:
            targets = [t for c in sorted(info.clusters) for t in masters(info.brokers_of(c))]

        async def one(t: Target) -> TargetResult:
            return TargetResult(t.name, t.addr, Status.OK, data=user_groups(await self.consumer_offset_table(t.addr)))

        found = CommittedGroups(results=await fan_out(targets, one))
        for t, r in zip(targets, found.results, strict=True):
            for group in sorted(r.data) if r.ok else ():
                found.holders.setdefault(group, []).append(t)
        return found

    async def offset_holders(self, group: str, cluster: str | None = None) -> Sequence[Target]:
        """The masters whose offset table holds ``group`` (none: the group has committed nothing anywhere)."""
        return (await self.committed_groups(cluster)).holders.get(group, [])
