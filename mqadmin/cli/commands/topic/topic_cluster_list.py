"""topicClusterList: the clusters a topic is on."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.params import NamesrvOpt, TopicOpt, check_topic

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient


class TopicClustersDoc(TypedDict):
    topic: str
    clusters: list[str]


@command("topicClusterList", "mqadmin topicClusterList -t Orders", blocking=True, document=TopicClustersDoc)
def topic_cluster_list(topic: TopicOpt, namesrv: NamesrvOpt = None) -> None:
    """Print the clusters a topic is on, one per line: every cluster that holds a broker of its route.

    A topic with no route exits 1 with TOPIC_NOT_EXIST (17).
    """
    from mqadmin.cli.render import json_output, print_json, print_lines
    from mqadmin.cli.runner import run_admin

    check_topic(topic)

    async def go(admin: AdminClient) -> list[str]:
        return await admin.topic_clusters(topic)

    clusters = run_admin(namesrv, go)
    if json_output():
        print_json({"topic": topic, "clusters": clusters})
    else:
        print_lines(clusters)
