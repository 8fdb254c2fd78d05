"""A topic's route as a table (brokers, then queues), in mqadmin's list form, and as JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

if TYPE_CHECKING:
    from mqadmin.model.route import TopicRouteData


class RouteBrokerDoc(TypedDict):
    cluster: str
    broker: str
    addrs: Annotated[dict[str, str], "broker id (0: the master) -> address"]


class RouteQueueDoc(TypedDict):
    broker: str
    readQueueNums: int
    writeQueueNums: int
    perm: Annotated[int, "2 write, 4 read, 6 read-write"]
    permString: Annotated[str, "RW-, R--, -W-"]
    topicSysFlag: int


class RouteDoc(TypedDict):
    topic: str
    brokers: list[RouteBrokerDoc]
    queues: list[RouteQueueDoc]
    orderTopicConf: Annotated[str | None, "brokerName:queues;... when the name server keeps one for the topic"]


def route_json(topic: str, route: TopicRouteData) -> RouteDoc:
    from mqadmin.model.topic import perm_to_string

    return {
        "topic": topic,
        "brokers": [
            {
                "cluster": b.cluster,
                "broker": b.broker_name,
                "addrs": {str(k): v for k, v in sorted(b.broker_addrs.items())},
            }
            for b in sorted(route.broker_datas, key=lambda b: b.broker_name)
        ],
        "queues": [
            {
                "broker": q.broker_name,
                "readQueueNums": q.read_queue_nums,
                "writeQueueNums": q.write_queue_nums,
                "perm": q.perm,
                "permString": perm_to_string(q.perm),
                "topicSysFlag": q.topic_sys_flag,
            }
            for q in sorted(route.queue_datas, key=lambda q: q.broker_name)
        ],
        "orderTopicConf": route.order_topic_conf,
    }


def print_route(topic: str, route: TopicRouteData) -> None:
    from mqadmin.cli.render import Column, print_lines, print_table

    data = route_json(topic, route)
    rows = [
        (b["cluster"], b["broker"], bid, "master" if bid == "0" else "slave", addr)
        for b in data["brokers"]
        for bid, addr in b["addrs"].items()
    ]
    cols = [
        Column("CLUSTER"),
        Column("BROKER"),
        Column("ID", numeric=True),
        Column("ROLE", styled=True),
        Column("ADDRESS"),
    ]
    print_table(cols, rows, f"Brokers of {topic}")
    print()
    qcols = [
        Column("BROKER"),
        Column("READ", numeric=True),
        Column("WRITE", numeric=True),
        Column("PERM"),
        Column("SYSFLAG", numeric=True),
    ]
    qrows = [
        (q["broker"], q["readQueueNums"], q["writeQueueNums"], q["permString"], q["topicSysFlag"])
        for q in data["queues"]
    ]
    print_table(qcols, qrows, f"Queues of {topic}")
    if route.order_topic_conf:
        print_lines([f"orderTopicConf: {route.order_topic_conf}"])


def print_route_list(route: TopicRouteData) -> None:
    from mqadmin.cli.render import Column, print_table
    from mqadmin.model.topic import perm_to_string

    brokers = {b.broker_name: b for b in route.broker_datas}
    rows: list[tuple[object, ...]] = []
    total_r = total_w = 0
    for q in sorted(route.queue_datas, key=lambda q: q.broker_name):
        b = brokers.get(q.broker_name)
        addrs = ", ".join(f"{k}={v}" for k, v in sorted(b.broker_addrs.items())) if b else ""
        rows.append(
            (
                b.cluster if b else "",
                q.broker_name,
                addrs,
                q.read_queue_nums,
                q.write_queue_nums,
                perm_to_string(q.perm),
            )
        )
        total_r += q.read_queue_nums
        total_w += q.write_queue_nums
    rows.append(("Total:", len(rows), "", total_r, total_w, ""))
    cols = [
        Column("CLUSTER"), Column("BROKER"), Column("ADDRESSES"),
        Column("READ", numeric=True), Column("WRITE", numeric=True), Column("PERM"),
    ]  # fmt: skip
    print_table(cols, rows)
