"""Name-server operations beyond routes: KV namespaces."""

from __future__ import annotations

from mqadmin.admin.core import AdminCore
from mqadmin.model.rpc import namesrv as rpc


class NamesrvOps(AdminCore):
    async def kv_list(self, namespace: str) -> dict[str, str]:
        """GET_KVLIST_BY_NAMESPACE (219); an empty namespace (QUERY_NOT_FOUND) is an empty dict."""
        return (
            await self.request_namesrv(rpc.GET_KVLIST_BY_NAMESPACE, rpc.NamespaceHeader(namespace=namespace))
        ).body or {}
