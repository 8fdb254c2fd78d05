"""Requests that read or change a name server's own tables: its KV store (ORDER_TOPIC_CONFIG, …) and the write
permission of a broker's queues in its routes."""

from __future__ import annotations

from dataclasses import dataclass

from mqadmin.model.rpc.bodies import KV_TABLE
from mqadmin.model.rpc.spec import Header, Rpc, wire
from mqadmin.wire.codes import RequestCode as C
from mqadmin.wire.codes import ResponseCode


@dataclass(frozen=True, slots=True, kw_only=True)
class KvHeader(Header):
    namespace: str = wire("namespace")
    key: str = wire("key")


@dataclass(frozen=True, slots=True, kw_only=True)
class PutKvHeader(Header):
    namespace: str = wire("namespace")
    key: str = wire("key")
    value: str = wire("value")


@dataclass(frozen=True, slots=True, kw_only=True)
class KvValueHeader(Header):
    value: str | None = wire("value", None)


@dataclass(frozen=True, slots=True, kw_only=True)
class NamespaceHeader(Header):
    namespace: str = wire("namespace")


@dataclass(frozen=True, slots=True, kw_only=True)
class BrokerNameHeader(Header):
    broker_name: str = wire("brokerName")


@dataclass(frozen=True, slots=True, kw_only=True)
class WipeCountHeader(Header):
    count: int = wire("wipeTopicCount", 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class AddCountHeader(Header):
    count: int = wire("addTopicCount", 0)


_FOUND_OR_NOT = frozenset({ResponseCode.SUCCESS, ResponseCode.QUERY_NOT_FOUND})

PUT_KV_CONFIG = Rpc(C.PUT_KV_CONFIG, "PUT_KV_CONFIG", PutKvHeader, summary="write one KV entry")
GET_KV_CONFIG = Rpc(
    C.GET_KV_CONFIG, "GET_KV_CONFIG", KvHeader, response_header=KvValueHeader, ok=_FOUND_OR_NOT,
    summary="read one KV entry (QUERY_NOT_FOUND when absent)",
)  # fmt: skip
DELETE_KV_CONFIG = Rpc(C.DELETE_KV_CONFIG, "DELETE_KV_CONFIG", KvHeader, summary="delete one KV entry")
GET_KVLIST_BY_NAMESPACE = Rpc(
    C.GET_KVLIST_BY_NAMESPACE, "GET_KVLIST_BY_NAMESPACE", NamespaceHeader, response_body=KV_TABLE, ok=_FOUND_OR_NOT,
    summary="every KV entry of a namespace (QUERY_NOT_FOUND when empty)",
)  # fmt: skip
WIPE_WRITE_PERM_OF_BROKER = Rpc(
    C.WIPE_WRITE_PERM_OF_BROKER, "WIPE_WRITE_PERM_OF_BROKER", BrokerNameHeader, response_header=WipeCountHeader,
    summary="drop write permission from a broker's queue data in every route",
)  # fmt: skip
ADD_WRITE_PERM_OF_BROKER = Rpc(
    C.ADD_WRITE_PERM_OF_BROKER, "ADD_WRITE_PERM_OF_BROKER", BrokerNameHeader, response_header=AddCountHeader,
    summary="give a broker's queue data write permission again",
)  # fmt: skip
