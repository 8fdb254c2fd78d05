"""Topic commands: updateTopic, topicRoute, topicList, topicStatus, deleteTopic, updateOrderConf.

Option letters follow Java mqadmin. Heavy modules (asyncio, the admin client) are imported inside
the command functions so ``mqadmin --help`` stays fast.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from mqadmin.cli.errors import CliError, ExitCode, usage_error
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt, TopicOpt, exactly_one, parse_bool

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult
    from mqadmin.model.route import ClusterInfo, TopicRouteData
    from mqadmin.model.topic import TopicConfig

PERMS = {2: "write-only", 4: "read-only", 6: "read-write"}


def register(app: typer.Typer) -> None:
    app.command("updateTopic")(update_topic)
    app.command("topicRoute")(topic_route)
    app.command("topicList")(topic_list)
    app.command("topicStatus")(topic_status)
    app.command("deleteTopic")(delete_topic)
    app.command("updateOrderConf")(update_order_conf)


# --- updateTopic --------------------------------------------------------------------------------


def update_topic(
    topic: TopicOpt,
    namesrv: NamesrvOpt = None,
    broker_addr: BrokerAddrOpt = None,
    cluster: ClusterOpt = None,
    read_queues: Annotated[int, typer.Option("-r", "--readQueueNums", min=1, help="Read queues.")] = 8,
    write_queues: Annotated[int, typer.Option("-w", "--writeQueueNums", min=1, help="Write queues.")] = 8,
    perm: Annotated[int, typer.Option("-p", "--perm", help="2 write-only, 4 read-only, 6 read-write.")] = 6,
    order: Annotated[
        str | None,
        typer.Option("-o", "--order", metavar="true|false", help="Ordered topic; with -c also writes orderTopicConf."),
    ] = None,
    unit: Annotated[str | None, typer.Option("-u", "--unit", metavar="true|false", help="Unit topic flag.")] = None,
    has_unit_sub: Annotated[
        str | None, typer.Option("-s", "--hasUnitSub", metavar="true|false", help="Has-unit-subscription flag.")
    ] = None,
    attributes: Annotated[
        str | None,
        typer.Option("-a", "--attributes", metavar="+KEY=VALUE,…", help="Topic attributes, e.g. +message.type=FIFO."),
    ] = None,
) -> None:
    """Create or update a topic on one broker (-b) or on every master of a cluster (-c).

    Prints one row per broker: created, updated, unchanged (already identical; nothing sent) or
    failed with the reason. A failing broker never stops the others.
    """
    from mqadmin.model.topic import TopicConfig, is_system_topic, parse_attributes, topic_name_problem

    exactly_one(broker_addr, cluster)
    problem = topic_name_problem(topic)
    if problem:
        raise usage_error(problem, "use letters, digits, '-', '_', '|' or '%', at most 127 characters")
    if is_system_topic(topic):
        raise usage_error(f"{topic!r} is a RocketMQ system topic", "pick another topic name")
    if perm not in PERMS:
        raise usage_error(f"-p {perm} is not a valid permission", "use 2 (write-only), 4 (read-only) or 6 (read-write)")
    try:
        attrs = parse_attributes(attributes) if attributes else {}
    except ValueError as e:
        raise usage_error(str(e), "for example: -a +message.type=FIFO") from None
    is_order = parse_bool(order, "-o")
    sys_flag = (1 if parse_bool(unit, "-u") else 0) | (2 if parse_bool(has_unit_sub, "-s") else 0)
    cfg = TopicConfig(topic, read_queues, write_queues, perm, topic_sys_flag=sys_flag, order=is_order, attributes=attrs)
    _run_update_topic(namesrv, cfg, broker_addr, cluster)


def _run_update_topic(namesrv: str | None, cfg: TopicConfig, broker_addr: str | None, cluster: str | None) -> None:
    from mqadmin.admin import outcome
    from mqadmin.cli.runner import exit_for_results, run_admin

    async def go(admin: AdminClient) -> tuple[list[TargetResult], dict[str, Any] | None]:
        info = await admin.cluster_info()
        _check_reserved(cfg.topic_name, info)
        if cluster:
            results = await admin.create_topic_on_cluster(cluster, cfg, info)
        else:
            assert broker_addr is not None
            name = _broker_name_of(broker_addr, info)
            results = [await _one_broker(admin, broker_addr, name, cfg)]
        order_conf = None
        done = {r.name: cfg.write_queue_nums for r in results if r.ok and r.name}
        if cfg.order and not done and any(r.ok for r in results):
            from mqadmin.cli.render import note

            note("mqadmin: warning: orderTopicConf not written: the broker's name is unknown to the name server")
        if cfg.order and done:
            value, ns_results = await admin.set_order_conf(cfg.topic_name, done, merge=cluster is None)
            order_conf = {"value": value, "results": ns_results}
        return results, order_conf

    results, order_conf = run_admin(namesrv, go)
    ns_results: list[TargetResult] = order_conf["results"] if order_conf else []
    if _json():
        from mqadmin.cli.render import print_json

        target = {"cluster": cluster} if cluster else {"broker_addr": broker_addr}
        print_json(
            {
                "topic": cfg.topic_name,
                "target": target,
                "config": topic_config_json(cfg),
                "results": [r.to_json() for r in results],
                "order_conf": (
                    {"value": order_conf["value"], "results": [r.to_json() for r in ns_results]} if order_conf else None
                ),
                "outcome": outcome(results + ns_results),
            }
        )
    else:
        _print_results(results, "BROKER")
        if order_conf:
            _print_results(ns_results, "NAME SERVER", f"orderTopicConf {order_conf['value']}")
    exit_for_results(results + ns_results, f"updateTopic {cfg.topic_name}")


async def _one_broker(admin: AdminClient, addr: str, name: str, cfg: TopicConfig) -> TargetResult:
    from mqadmin.admin.client import fan_out

    (result,) = await fan_out([((name, addr), lambda: admin.create_or_update_topic(addr, cfg, name))])
    return result


def _check_reserved(topic: str, info: ClusterInfo) -> None:
    if topic in info.clusters:
        raise usage_error(f"{topic!r} is the name of a cluster; brokers reserve it as a topic", "pick another name")
    if topic in info.brokers:
        raise usage_error(f"{topic!r} is the name of a broker; brokers reserve it as a topic", "pick another name")


def _broker_name_of(addr: str, info: ClusterInfo) -> str:
    """The broker name of a -b address; refuses slaves (apache/rocketmq#4175)."""
    from mqadmin.cli.render import note

    role = info.role_of(addr)
    if role is None:
        note(f"mqadmin: warning: {addr} is not registered with the name server; sending anyway")
        return ""
    broker, broker_id = role
    if broker_id != 0:
        master = broker.master_addr or "none registered"
        raise usage_error(
            f"{addr} is a slave (id {broker_id}) of {broker.broker_name}; topics are created on masters",
            f"use the master: -b {master}, or -c {broker.cluster}",
        )
    return broker.broker_name


def topic_config_json(cfg: TopicConfig) -> dict[str, Any]:
    from mqadmin.model.topic import perm_to_string

    return {
        "read_queue_nums": cfg.read_queue_nums,
        "write_queue_nums": cfg.write_queue_nums,
        "perm": cfg.perm,
        "perm_string": perm_to_string(cfg.perm),
        "order": cfg.order,
        "topic_sys_flag": cfg.topic_sys_flag,
        "topic_filter_type": cfg.topic_filter_type,
        "attributes": dict(cfg.attributes),
    }


def _print_results(results: list[TargetResult], kind: str, title: str | None = None) -> None:
    from mqadmin.cli.render import Column, print_table

    with_reason = any(r.reason for r in results)
    columns = [Column(kind), Column("ADDRESS"), Column("RESULT", styled=True)]
    columns += [Column("REASON")] if with_reason else []
    rows = [(r.name or "?", r.addr, str(r.status), *([r.reason or ""] if with_reason else [])) for r in results]
    print_table(columns, rows, title)


def _json() -> bool:
    from mqadmin.cli.render import json_output

    return json_output()


# --- topicRoute ---------------------------------------------------------------------------------


def topic_route(
    topic: TopicOpt,
    namesrv: NamesrvOpt = None,
    as_list: Annotated[bool, typer.Option("-l", "--list", help="One line per broker (mqadmin's list form).")] = False,
) -> None:
    """Show a topic's route: brokers (cluster, name, id, address) and queues (read, write, perm)."""
    from mqadmin.cli.runner import run_admin

    async def go(admin: AdminClient) -> TopicRouteData:
        return await admin.topic_route(topic)

    route = run_admin(namesrv, go)
    if _json():
        from mqadmin.cli.render import print_json

        print_json(route_json(topic, route))
    elif as_list:
        _print_route_list(route)
    else:
        print_route(topic, route)


def route_json(topic: str, route: TopicRouteData) -> dict[str, Any]:
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
                "read": q.read_queue_nums,
                "write": q.write_queue_nums,
                "perm": q.perm,
                "perm_string": perm_to_string(q.perm),
                "sys_flag": q.topic_sys_flag,
            }
            for q in sorted(route.queue_datas, key=lambda q: q.broker_name)
        ],
        "order_topic_conf": route.order_topic_conf,
    }


def print_route(topic: str, route: TopicRouteData) -> None:
    from mqadmin.cli.render import Column, print_table

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
    qrows = [(q["broker"], q["read"], q["write"], q["perm_string"], q["sys_flag"]) for q in data["queues"]]
    print_table(qcols, qrows, f"Queues of {topic}")
    if route.order_topic_conf:
        print(f"orderTopicConf: {route.order_topic_conf}")


def _print_route_list(route: TopicRouteData) -> None:
    from mqadmin.cli.render import Column, print_table
    from mqadmin.model.topic import perm_to_string

    brokers = {b.broker_name: b for b in route.broker_datas}
    rows = []
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


# --- topicList ----------------------------------------------------------------------------------


def topic_list(namesrv: NamesrvOpt = None) -> None:
    """List every topic the name server knows, one per line."""
    from mqadmin.cli.runner import run_admin

    async def go(admin: AdminClient) -> list[str]:
        return await admin.topic_list()

    topics = sorted(run_admin(namesrv, go))
    if _json():
        from mqadmin.cli.render import print_json

        print_json({"topics": topics})
    else:
        print("\n".join(topics))


# --- topicStatus --------------------------------------------------------------------------------


def topic_status(topic: TopicOpt, namesrv: NamesrvOpt = None) -> None:
    """Per-queue min/max offsets and last update time, from each broker of the topic's route."""
    from mqadmin.cli.runner import exit_for_results, run_admin

    async def go(admin: AdminClient) -> tuple[list, list[TargetResult]]:
        from mqadmin.admin import Status, TargetResult
        from mqadmin.admin.client import fan_out

        route = await admin.topic_route(topic)
        stats: list = []

        def on(name: str, addr: str | None):
            async def run() -> TargetResult:
                if addr is None:
                    raise LookupError("no master registered")
                stats.extend(await admin.topic_stats(addr, topic))
                return TargetResult(name, addr, Status.OK)

            return run

        brokers = sorted(route.broker_datas, key=lambda b: b.broker_name)
        results = await fan_out(
            [((b.broker_name, b.master_addr or ""), on(b.broker_name, b.master_addr)) for b in brokers]
        )
        stats.sort(key=lambda q: (q.broker_name, q.queue_id))
        return stats, results

    stats, results = run_admin(namesrv, go)
    if _json():
        from mqadmin.cli.render import print_json

        print_json(
            {
                "topic": topic,
                "queues": [q.to_json() for q in stats],
                "brokers": [r.to_json() for r in results],
            }
        )
    else:
        from mqadmin.cli.render import Column, print_table

        cols = [Column("BROKER"), Column("QID", numeric=True), Column("MIN OFFSET", numeric=True),
                Column("MAX OFFSET", numeric=True), Column("LAST UPDATED")]  # fmt: skip
        rows = [(q.broker_name, q.queue_id, q.min_offset, q.max_offset, _time(q.last_update_timestamp)) for q in stats]
        print_table(cols, rows)
        failed = [r for r in results if not r.ok]
        if failed:
            _print_results(failed, "BROKER", "Brokers that did not answer")
    exit_for_results(results, f"topicStatus {topic}")


def _time(ms: int) -> str:
    """mqadmin's ``yyyy-MM-dd HH:mm:ss,SSS`` in local time; empty for never."""
    if not ms:
        return ""
    import datetime

    t = datetime.datetime.fromtimestamp(ms / 1000)
    return t.strftime("%Y-%m-%d %H:%M:%S,") + f"{ms % 1000:03d}"


# --- deleteTopic --------------------------------------------------------------------------------


def delete_topic(
    topic: TopicOpt,
    cluster: Annotated[str, typer.Option("-c", "--clusterName", metavar="CLUSTER", help="Cluster name.")],
    namesrv: NamesrvOpt = None,
) -> None:
    """Delete a topic from every master of a cluster, then from every name server's routes."""
    from mqadmin.admin import outcome
    from mqadmin.cli.runner import exit_for_results, run_admin

    async def go(admin: AdminClient) -> list[TargetResult]:
        return await admin.delete_topic_on_cluster(cluster, topic)

    results = run_admin(namesrv, go)
    if _json():
        from mqadmin.cli.render import print_json

        print_json(
            {"topic": topic, "cluster": cluster, "results": [r.to_json() for r in results], "outcome": outcome(results)}
        )
    else:
        _print_results(results, "TARGET")
    exit_for_results(results, f"deleteTopic {topic}")


# --- updateOrderConf ----------------------------------------------------------------------------


class OrderConfMethod(StrEnum):
    put = "put"
    get = "get"
    delete = "delete"


def update_order_conf(
    topic: TopicOpt,
    method: Annotated[OrderConfMethod, typer.Option("-m", "--method", help="put, get or delete.")],
    namesrv: NamesrvOpt = None,
    value: Annotated[
        str | None,
        typer.Option("-v", "--orderConf", metavar="BROKER:QUEUES;…", help="For put: e.g. 'broker-a:4;broker-b:4'."),
    ] = None,
) -> None:
    """Put, get or delete a topic's orderTopicConf in the name servers' KV store (put/delete: all of them)."""
    from mqadmin.admin import ORDER_TOPIC_CONFIG, outcome
    from mqadmin.admin.client import format_order_conf, parse_order_conf
    from mqadmin.cli.runner import exit_for_results, run_admin

    if method == OrderConfMethod.put:
        entries = parse_order_conf(value or "")
        if not value or len(entries) != len([e for e in value.split(";") if e.strip()]):
            raise usage_error(
                f"-v {value!r} is not a list of brokerName:queueNums", "for example: -v 'broker-a:4;broker-b:4'"
            )
        normalised = format_order_conf(entries)

        async def put(admin: AdminClient) -> list[TargetResult]:
            return await admin.put_kv_config(ORDER_TOPIC_CONFIG, topic, normalised)

        results = run_admin(namesrv, put)
    elif method == OrderConfMethod.delete:

        async def delete(admin: AdminClient) -> list[TargetResult]:
            return await admin.delete_kv_config(ORDER_TOPIC_CONFIG, topic)

        results = run_admin(namesrv, delete)
    else:

        async def get(admin: AdminClient) -> str | None:
            return await admin.get_kv_config(ORDER_TOPIC_CONFIG, topic)

        current = run_admin(namesrv, get)
        if _json():
            from mqadmin.cli.render import print_json

            print_json({"topic": topic, "order_conf": current})
        elif current is not None:
            print(current)
        if current is None:
            raise CliError(f"no orderTopicConf is stored for topic {topic!r}", None, ExitCode.FAILURE)
        return
    if _json():
        from mqadmin.cli.render import print_json

        stored = normalised if method == OrderConfMethod.put else None
        print_json(
            {
                "topic": topic,
                "method": str(method),
                "order_conf": stored,
                "results": [r.to_json() for r in results],
                "outcome": outcome(results),
            }
        )
    else:
        _print_results(results, "NAME SERVER")
    exit_for_results(results, f"updateOrderConf {method} {topic}")
