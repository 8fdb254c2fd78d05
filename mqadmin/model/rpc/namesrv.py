"""Requests a name server answers: routes, cluster info, topic lists, the KV store, write permission,
its own config."""

from __future__ import annotations

from dataclasses import dataclass

from mqadmin.model.names import topic_refusal
from mqadmin.model.route import ClusterInfo, TopicRouteData
from mqadmin.model.rpc.bodies import KV_TABLE, PROPERTIES, TOPIC_LIST, JsonBody
from mqadmin.model.rpc.spec import Header, Rpc, wire
from mqadmin.wire.codes import RequestCode as C
from mqadmin.wire.codes import ResponseCode


@dataclass(frozen=True, slots=True, kw_only=True)
class RouteHeader(Header):
    topic: str = wire("topic", check=topic_refusal)
    accept_standard_json_only: bool | None = wire("acceptStandardJsonOnly", None)


@dataclass(frozen=True, slots=True, kw_only=True)
class ClusterHeader(Header):
    cluster: str = wire("cluster")


@dataclass(frozen=True, slots=True, kw_only=True)
class DeleteTopicHeader(Header):
    topic: str = wire("topic", check=topic_refusal)
    cluster_name: str | None = wire("clusterName", None)


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


ROUTE = JsonBody("TopicRouteData", TopicRouteData.from_json, TopicRouteData.to_json)
CLUSTER_INFO = JsonBody("ClusterInfo", ClusterInfo.from_json, ClusterInfo.to_json)
_FOUND_OR_NOT = frozenset({ResponseCode.SUCCESS, ResponseCode.QUERY_NOT_FOUND})

GET_ROUTEINFO_BY_TOPIC = Rpc(
    C.GET_ROUTEINFO_BY_TOPIC, "GET_ROUTEINFO_BY_TOPIC", RouteHeader, response_body=ROUTE,
    summary="a topic's route: its brokers and queues (TOPIC_NOT_EXIST when none)",
)  # fmt: skip
GET_BROKER_CLUSTER_INFO = Rpc(
    C.GET_BROKER_CLUSTER_INFO, "GET_BROKER_CLUSTER_INFO", response_body=CLUSTER_INFO,
    summary="every cluster and broker with their addresses",
)  # fmt: skip
GET_ALL_TOPIC_LIST_FROM_NAMESERVER = Rpc(
    C.GET_ALL_TOPIC_LIST_FROM_NAMESERVER, "GET_ALL_TOPIC_LIST_FROM_NAMESERVER", response_body=TOPIC_LIST,
    summary="every topic with a route",
)  # fmt: skip
GET_TOPICS_BY_CLUSTER = Rpc(
    C.GET_TOPICS_BY_CLUSTER, "GET_TOPICS_BY_CLUSTER", ClusterHeader, response_body=TOPIC_LIST,
    summary="the topics on a cluster's brokers",
)  # fmt: skip
GET_SYSTEM_TOPIC_LIST_FROM_NS = Rpc(
    C.GET_SYSTEM_TOPIC_LIST_FROM_NS, "GET_SYSTEM_TOPIC_LIST_FROM_NS", response_body=TOPIC_LIST,
    summary="cluster and broker names, which brokers reserve as topics",
)  # fmt: skip
DELETE_TOPIC_IN_NAMESRV = Rpc(
    C.DELETE_TOPIC_IN_NAMESRV, "DELETE_TOPIC_IN_NAMESRV", DeleteTopicHeader,
    summary="remove a topic's route (only the given cluster's brokers, when clusterName is set)",
)  # fmt: skip
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
GET_NAMESRV_CONFIG = Rpc(
    C.GET_NAMESRV_CONFIG, "GET_NAMESRV_CONFIG", response_body=PROPERTIES, summary="the name server's config"
)
UPDATE_NAMESRV_CONFIG = Rpc(
    C.UPDATE_NAMESRV_CONFIG, "UPDATE_NAMESRV_CONFIG", body=PROPERTIES, summary="change name-server config keys"
)
