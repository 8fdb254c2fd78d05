"""KVConfigManager: namespaced key/value config, persisted to kvConfig.json on every change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mqadmin.server.durable import DurableJson, change_durably


def parse_kv_file(obj: Any) -> dict[str, dict[str, str]]:
    """kvConfig.json's configTable; ValueError when it is not namespaces of key/value objects."""
    table = obj.get("configTable") if isinstance(obj, dict) else None
    if not isinstance(table, dict) or not all(isinstance(kv, dict) for kv in table.values()):
        raise ValueError("configTable is not an object of namespaces holding objects")
    return {str(ns): {str(k): str(v) for k, v in kv.items()} for ns, kv in table.items()}


class KVConfigManager:
    def __init__(self, path: Path, reset_unreadable: bool = False) -> None:
        self.table: dict[str, dict[str, str]] = {}
        self._file = DurableJson(path, self._snapshot, parse=parse_kv_file, reset_unreadable=reset_unreadable)

    def load(self) -> None:
        """The file's table (MetadataError naming the file when neither it nor its backup can be used)."""
        self.table = self._file.load()[0] or {}

    def _snapshot(self) -> dict[str, Any]:
        return {"configTable": {ns: dict(kv) for ns, kv in self.table.items()}}

    def get(self, namespace: str, key: str) -> str | None:
        return self.table.get(namespace, {}).get(key)

    def namespace(self, namespace: str) -> dict[str, str] | None:
        kv = self.table.get(namespace)
        return dict(kv) if kv else None

    async def put(self, namespace: str, key: str, value: str) -> None:
        try:
            await change_durably(self.table.setdefault(namespace, {}), {key: value}, self._file.commit)
        finally:
            self._drop_if_empty(namespace)

    async def delete(self, namespace: str, key: str) -> bool:
        kv = self.table.get(namespace)
        if kv is None or key not in kv:
            return False
        try:
            await change_durably(kv, {key: None}, self._file.commit)
        finally:
            self._drop_if_empty(namespace)
        return True

    def _drop_if_empty(self, namespace: str) -> None:
        if not self.table.get(namespace, True):
            del self.table[namespace]

    async def close(self) -> None:
        await self._file.close()
