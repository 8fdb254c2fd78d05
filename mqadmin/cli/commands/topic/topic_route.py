"""topicRoute: a topic's brokers (cluster, name, id, address) and queues."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt, TopicOpt, check_topic
from mqadmin.cli.views.route import RouteDoc

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.model.route import TopicRouteData


@command(
    "topicRoute",
    "mqadmin topicRoute -t Orders",
    "mqadmin topicRoute -t Orders -l",
    "mqadmin --format json topicRoute -t Orders",
    blocking=True,
    document=RouteDoc,
)
def topic_route(
    topic: TopicOpt,
    namesrv: NamesrvOpt = None,
    as_list: Annotated[bool, Option("-l", "--list", help="One line per broker (mqadmin's list form).")] = False,
) -> None:
    """Show a topic's route: brokers (cluster, name, id, address) and queues (read, write, perm).

    A topic with no route exits 1 with TOPIC_NOT_EXIST (17).
    """
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import run_admin
    from mqadmin.cli.views.route import print_route, print_route_list, route_json

    check_topic(topic)

    async def go(admin: AdminClient) -> TopicRouteData:
        return await admin.topic_route(topic)

    route = run_admin(namesrv, go)
    if json_output():
        print_json(route_json(topic, route))
    elif as_list:
        print_route_list(route)
    else:
        print_route(topic, route)
