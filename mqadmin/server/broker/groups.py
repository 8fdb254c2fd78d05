"""SubscriptionGroupManager: consumer-group configs, persisted to subscriptionGroup.json."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any, Literal

from mqadmin.model.data_version import DataVersion, data_version_from_file
from mqadmin.model.group import SubscriptionGroupConfig
from mqadmin.model.names import group_problem, shown
from mqadmin.server.bodies import TableJson
from mqadmin.server.durable import DurableJson, change_durably

log = logging.getLogger(__name__)

SYSTEM_GROUPS = (
    "TOOLS_CONSUMER", "FILTERSRV_CONSUMER", "SELF_TEST_C_GROUP", "CID_ONS-HTTP-PROXY",
    "CID_ONSAPI_PULL", "CID_ONSAPI_PERMISSION", "CID_ONSAPI_OWNER", "CID_RMQ_SYS_TRANS",
)  # fmt: skip


def default_group(name: str) -> dict[str, Any]:
    """A SubscriptionGroupConfig with the 5.x defaults (fastjson bean form)."""
    return SubscriptionGroupConfig(name).to_json()


def normalize_group(obj: Any) -> dict[str, Any]:
    """Defaults filled in, types checked; raises ValueError naming the bad field."""
    return SubscriptionGroupConfig.from_json(obj).to_json()


def parse_groups_file(obj: Any) -> tuple[DataVersion, dict[str, dict[str, Any]]]:
    """subscriptionGroup.json's content; ValueError naming the group and field that cannot be used."""
    if not isinstance(obj, dict):
        raise ValueError("the file is not a JSON object")
    table = obj.get("subscriptionGroupTable") or {}
    if not isinstance(table, dict):
        raise ValueError("subscriptionGroupTable is not an object")
    groups = {}
    for name, cfg in table.items():
        try:
            groups[name] = normalize_group(cfg)
        except ValueError as e:
            raise ValueError(f"group {shown(name)}: {e}") from None
    return data_version_from_file(obj.get("dataVersion")), groups


class SubscriptionGroupManager:
    def __init__(self, path: Path, auto_create: bool = True, reset_unreadable: bool = False) -> None:
        self.path = path
        self.auto_create = auto_create
        self._table: dict[str, dict[str, Any]] = {}
        self._body = TableJson("subscriptionGroupTable")
        self._dv = DataVersion()
        self._file = DurableJson(path, self._snapshot, parse=parse_groups_file, reset_unreadable=reset_unreadable)
        self._lock = asyncio.Lock()

    def load(self) -> None:
        """The system groups, then the file's (MetadataError naming the file when neither it nor its
        backup can be used); groups with illegal names are left out, named in a warning."""
        for name in SYSTEM_GROUPS:
            self._table[name] = default_group(name)
        snapshot = self._file.load()[0]
        if snapshot is not None:
            self._dv, table = snapshot
            for name, cfg in table.items():
                problem = group_problem(name)
                if problem is None:
                    self._table[name] = cfg
                else:
                    log.warning("%s: left out a group: %s", self.path, problem)

    def get(self, name: str) -> dict[str, Any] | None:
        return self._table.get(name)

    def all(self) -> dict[str, dict[str, Any]]:
        return dict(self._table)

    @property
    def data_version(self) -> dict[str, Any]:
        return self._dv.to_json()

    async def wrapper_body(self) -> bytes:
        """SubscriptionGroupWrapper (GET_ALL_SUBSCRIPTIONGROUP_CONFIG), made off the loop when large."""
        fields = {"dataVersion": self._dv.to_json(), "forbiddenTable": {}}
        return await self._body.body(fields, self._table)

    def _snapshot(self) -> dict[str, Any]:
        return {
            "dataVersion": self._dv.to_json(),
            "forbiddenTable": {},
            "subscriptionGroupTable": {k: dict(v) for k, v in sorted(self._table.items())},
        }

    async def update(self, cfg: dict[str, Any]) -> Literal["created", "updated", "unchanged"]:
        cfg = normalize_group(cfg)
        old = self._table.get(cfg["groupName"])
        if old == cfg:
            return "unchanged"
        self._dv.next()
        await change_durably(self._table, {cfg["groupName"]: cfg}, self._file.commit)
        return "created" if old is None else "updated"

    async def update_many(self, cfgs: list[dict[str, Any]]) -> None:
        """Store every config with one write of the file (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST); the data
        version moves only when something changed."""
        changed = [cfg for cfg in map(normalize_group, cfgs) if self._table.get(cfg["groupName"]) != cfg]
        if not changed:
            return
        self._dv.next()
        await change_durably(self._table, {cfg["groupName"]: cfg for cfg in changed}, self._file.commit)

    async def delete(self, name: str) -> bool:
        if name not in self._table:
            return False
        self._dv.next()
        await change_durably(self._table, {name: None}, self._file.commit)
        return True

    async def find_or_create(self, name: str) -> dict[str, Any] | None:
        """The group's config; created with defaults when missing and autoCreateSubscriptionGroup is on."""
        found = self._table.get(name)
        if found is not None or not self.auto_create:
            return found
        async with self._lock:
            if name not in self._table:
                await self.update(default_group(name))
            return self._table.get(name)  # None when a delete ran while it was being written

    async def close(self) -> None:
        await self._file.close()
