"""Requests a name server answers: routes, cluster info, topic lists, its own config. Its KV store and brokers'
write permission are in ``namesrv_admin`` (their headers are not built for the commands that need neither)."""

from __future__ import annotations

from dataclasses import dataclass

from mqadmin.model.names import topic_refusal
from mqadmin.model.route import ClusterInfo, TopicRouteData
from mqadmin.model.rpc.bodies import PROPERTIES, TOPIC_LIST, JsonBody
from mqadmin.model.rpc.spec import Header, Rpc, wire
from mqadmin.wire.codes import RequestCode as C


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


ROUTE = JsonBody("TopicRouteData", TopicRouteData.from_json, TopicRouteData.to_json)
CLUSTER_INFO = JsonBody("ClusterInfo", ClusterInfo.from_json, ClusterInfo.to_json)

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
GET_NAMESRV_CONFIG = Rpc(
    C.GET_NAMESRV_CONFIG, "GET_NAMESRV_CONFIG", response_body=PROPERTIES, summary="the name server's config"
)
UPDATE_NAMESRV_CONFIG = Rpc(
    C.UPDATE_NAMESRV_CONFIG, "UPDATE_NAMESRV_CONFIG", body=PROPERTIES, summary="change name-server config keys"
)
