"""KVConfigManager: namespaced key/value config, persisted to kvConfig.json on every change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mqadmin.server.durable import DurableJson

ORDER_TOPIC_CONFIG = "ORDER_TOPIC_CONFIG"


class KVConfigManager:
    def __init__(self, path: Path) -> None:
        self.table: dict[str, dict[str, str]] = {}
        self._file = DurableJson(path, self._snapshot)

    def load(self) -> None:
        snapshot, _ = self._file.load()
        table = snapshot.get("configTable") if isinstance(snapshot, dict) else None
        if isinstance(table, dict):
            self.table = {
                str(ns): {str(k): str(v) for k, v in kv.items()} for ns, kv in table.items() if isinstance(kv, dict)
            }

    def _snapshot(self) -> dict[str, Any]:
        return {"configTable": {ns: dict(kv) for ns, kv in self.table.items()}}

    def get(self, namespace: str, key: str) -> str | None:
        return self.table.get(namespace, {}).get(key)

    def namespace(self, namespace: str) -> dict[str, str] | None:
        kv = self.table.get(namespace)
        return dict(kv) if kv else None

    async def put(self, namespace: str, key: str, value: str) -> None:
        self.table.setdefault(namespace, {})[key] = value
        await self._file.commit()

    async def delete(self, namespace: str, key: str) -> bool:
        kv = self.table.get(namespace)
        if kv is None or kv.pop(key, None) is None:
            return False
        if not kv:
            del self.table[namespace]
        await self._file.commit()
        return True

    async def close(self) -> None:
        await self._file.close()
