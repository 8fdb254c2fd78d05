"""Topics as the name servers know them: the topic list, a topic's route and the clusters that hold it.

Apart from the topic operations on brokers (``mqadmin.admin.topics``, which derive from these) so that
``topicList``, ``topicRoute`` and ``topicClusterList`` load neither topic configs nor their change rules.
"""

from __future__ import annotations

from mqadmin.admin.core import AdminCore
from mqadmin.model.route import ClusterInfo, TopicRouteData
from mqadmin.model.rpc import namesrv as ns


def route_clusters(route: TopicRouteData, info: ClusterInfo) -> list[str]:
    """The clusters that hold at least one broker of the route."""
    names = {b.broker_name for b in route.broker_datas}
    return sorted(c for c, brokers in info.clusters.items() if names & set(brokers))


class TopicRouteOps(AdminCore):
    async def topic_route(self, topic: str) -> TopicRouteData:
        """The topic's route; ``ResponseError`` with code TOPIC_NOT_EXIST when there is none.

        ``acceptStandardJsonOnly`` (and the request's version, 479) make name servers since 4.9.4 answer
        in standard JSON; older ones answer in the legacy form, which is read as well.
        """
        reply = await self.request_namesrv(
            ns.GET_ROUTEINFO_BY_TOPIC, ns.RouteHeader(topic=topic, accept_standard_json_only=True)
        )
        return reply.body or TopicRouteData()

    async def topic_list(self) -> list[str]:
        return (await self.request_namesrv(ns.GET_ALL_TOPIC_LIST_FROM_NAMESERVER)).body or []

    async def topic_clusters(self, topic: str) -> list[str]:
        """The clusters of every broker in the topic's route (Java's topicClusterList looks at the first
        broker only); ``ResponseError`` TOPIC_NOT_EXIST when there is no route."""
        route = await self.topic_route(topic)
        return route_clusters(route, await self.cluster_info())

    async def topics_of_cluster(self, cluster: str) -> list[str]:
        return (await self.request_namesrv(ns.GET_TOPICS_BY_CLUSTER, ns.ClusterHeader(cluster=cluster))).body or []
