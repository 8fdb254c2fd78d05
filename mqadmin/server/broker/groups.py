"""SubscriptionGroupManager: consumer-group configs, persisted to subscriptionGroup.json."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Literal

from mqadmin.server.broker.data_version import DataVersion
from mqadmin.server.durable import DurableJson

SYSTEM_GROUPS = (
    "TOOLS_CONSUMER", "FILTERSRV_CONSUMER", "SELF_TEST_C_GROUP", "CID_ONS-HTTP-PROXY",
    "CID_ONSAPI_PULL", "CID_ONSAPI_PERMISSION", "CID_ONSAPI_OWNER", "CID_RMQ_SYS_TRANS",
)  # fmt: skip


def default_group(name: str) -> dict[str, Any]:
    """A SubscriptionGroupConfig with the 5.x defaults (fastjson bean form)."""
    return {
        "attributes": {},
        "brokerId": 0,
        "consumeBroadcastEnable": True,
        "consumeEnable": True,
        "consumeFromMinEnable": True,
        "consumeMessageOrderly": False,
        "consumeTimeoutMinute": 15,
        "groupName": name,
        "groupRetryPolicy": {"type": "CUSTOMIZED"},
        "groupSysFlag": 0,
        "notifyConsumerIdsChangedEnable": True,
        "retryMaxTimes": 16,
        "retryQueueNums": 1,
        "whichBrokerWhenConsumeSlowly": 1,
    }


def normalize_group(obj: Any) -> dict[str, Any]:
    """Defaults filled in, types checked; raises ValueError naming the bad field."""
    if not isinstance(obj, dict):
        raise ValueError("the subscription group body is not a JSON object")
    name = obj.get("groupName")
    if not isinstance(name, str) or not name.strip():
        raise ValueError("groupName is missing or blank")
    out = default_group(name)
    for key, value in obj.items():
        default = out.get(key)
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise ValueError(f"{key}={value!r} is not a boolean")
        elif isinstance(default, int):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{key}={value!r} is not an integer")
        elif isinstance(default, dict) and not isinstance(value, dict):
            raise ValueError(f"{key}={value!r} is not an object")
        out[key] = value
    return out


class SubscriptionGroupManager:
    def __init__(self, path: Path, auto_create: bool = True) -> None:
        self.path = path
        self.auto_create = auto_create
        self._table: dict[str, dict[str, Any]] = {}
        self._dv = DataVersion()
        self._file = DurableJson(path, self._snapshot)
        self._lock = asyncio.Lock()

    def load(self) -> None:
        for name in SYSTEM_GROUPS:
            self._table[name] = default_group(name)
        snapshot, _ = self._file.load()
        if isinstance(snapshot, dict):
            self._dv = DataVersion.from_json(snapshot.get("dataVersion"))
            for name, obj in (snapshot.get("subscriptionGroupTable") or {}).items():
                try:
                    self._table[name] = normalize_group(obj)
                except ValueError:
                    continue

    def get(self, name: str) -> dict[str, Any] | None:
        return self._table.get(name)

    def all(self) -> dict[str, dict[str, Any]]:
        return dict(self._table)

    def wrapper_json(self) -> dict[str, Any]:
        return {"dataVersion": self._dv.to_json(), "forbiddenTable": {}, "subscriptionGroupTable": self._table}

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
        self._table[cfg["groupName"]] = cfg
        self._dv.next()
        await self._file.commit()
        return "created" if old is None else "updated"

    async def delete(self, name: str) -> bool:
        if self._table.pop(name, None) is None:
            return False
        self._dv.next()
        await self._file.commit()
        return True

    async def find_or_create(self, name: str) -> dict[str, Any] | None:
        """The group's config; created with defaults when missing and autoCreateSubscriptionGroup is on."""
        found = self._table.get(name)
        if found is not None or not self.auto_create:
            return found
        async with self._lock:
            if name not in self._table:
                await self.update(default_group(name))
            return self._table[name]

    async def close(self) -> None:
        await self._file.close()
