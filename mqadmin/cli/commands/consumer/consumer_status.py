"""consumerStatus: what each consumer of a group reports about itself (running info), through the broker."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome
from mqadmin.cli.params import BrokerAddrOpt, NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult
    from mqadmin.model.clients import ConsumerConnection, ConsumerRunningInfo
    from mqadmin.model.queue import MessageQueue

BLOCKED_AFTER_MS = 60_000
"""A queue with cached messages and no consumption for this long is reported (Java's analysis)."""

GroupArg = Annotated[str, Option("-g", "--consumerGroup", metavar="GROUP", help="Consumer group name.")]


class RunningQueueDoc(TypedDict):
    topic: str
    brokerName: str
    queueId: int
    processQueue: Annotated[dict[str, Any], "the client's ProcessQueueInfo, as it sends it"]


class RunningInfoDoc(TypedDict):
    properties: Annotated[dict[str, str], "the client's settings"]
    subscriptions: list[dict[str, str]]
    queues: list[RunningQueueDoc]
    popQueues: list[RunningQueueDoc]
    rates: Annotated[dict[str, dict[str, Any]], "topic -> consume TPS and RT, as the client sends them"]
    userConsumerInfo: dict[str, str]
    jstack: Annotated[str | None, "-s: the client's thread dump"]


class ClientStatusDoc(TypedDict):
    clientId: str
    versionDesc: str | None
    status: Annotated[str, "ok or failed"]
    reason: str | None
    info: Annotated[RunningInfoDoc | None, "the client's running info (null: it did not answer)"]


class DuplicateQueueDoc(TypedDict):
    topic: str
    brokerName: str
    queueId: int
    clients: Annotated[list[str], "the clients that all hold the queue"]


class ConsumerStatusDoc(TypedDict):
    group: str
    clients: list[ClientStatusDoc]
    sameSubscription: Annotated[bool, "whether every client subscribes alike"]
    rebalanceOk: Annotated[bool | None, "whether each queue is held by one client (null: none answered)"]
    duplicateQueues: list[DuplicateQueueDoc]
    problems: Annotated[list[str], "what looks wrong (a queue blocked, a consume failing, ...)"]
    outcome: Outcome


@command(
    "consumerStatus",
    "mqadmin consumerStatus -g OrdersConsumer                  # one line per client, then the analysis",
    "mqadmin consumerStatus -g OrdersConsumer -i 10.0.0.5@12345 # one client in detail",
    "mqadmin consumerStatus -g OrdersConsumer -i 10.0.0.5@12345 -s   # with the client's thread dump",
    document=ConsumerStatusDoc,
)
def consumer_status(
    group: GroupArg,
    namesrv: NamesrvOpt = None,
    client_id: Annotated[
        str | None, Option("-i", "--clientId", metavar="CLIENT_ID", help="Only this client, in detail.")
    ] = None,
    broker_addr: BrokerAddrOpt = None,
    jstack: Annotated[bool, Option("-s", "--jstack", help="Include each client's thread dump (Java clients).")] = False,
) -> None:
    """Ask each consumer of the group, through the broker (GET_CONSUMER_RUNNING_INFO), for its running
    info: properties, subscriptions, the queues it holds with their commit offset and cached messages, its
    pull and consume rates, and with -s its thread dump. Without -i: one line per client, then whether every
    client subscribes alike, whether the rebalance is sound (no queue held by two clients, each duplicate
    named) and which queues look blocked. With -i: that client in detail. Java's tool writes
    each client's report to a file under the current directory; mqadmin prints it (or --format json).
    """
    from mqadmin.cli.commands.consumer._shared import check_group, run_consumers
    from mqadmin.cli.render import json_output, print_json, warn
    from mqadmin.cli.runner import check_broker_addr, exit_for_results

    check_group(group)
    check_broker_addr(broker_addr)

    async def go(admin: AdminClient) -> tuple[ConsumerConnection | None, list[TargetResult]]:
        return await admin.group_running_info(group, client_id, jstack=jstack, broker_addr=broker_addr)

    cc, results = run_consumers(namesrv, go)
    infos = {r.name: r.data for r in results if r.ok}
    if json_output():
        print_json(_status_json(group, cc, results))
    elif client_id:
        if client_id in infos:
            print_running_info(infos[client_id])
    else:
        _print_clients(cc, results)
        _print_analysis(infos)
    if jstack:
        for cid, info in infos.items():
            if info.jstack is None:
                warn(f"{cid} sent no thread dump (only Java clients do)")
    exit_for_results(results, f"consumerStatus {group}")


def subscriptions_alike(infos: dict[str, ConsumerRunningInfo]) -> bool:
    sets = {frozenset((s.topic, s.sub_string) for s in i.subscriptions) for i in infos.values()}
    return len(sets) <= 1


def duplicate_assignments(infos: dict[str, ConsumerRunningInfo]) -> dict[MessageQueue, list[str]]:
    """Queues held by more than one client, with the clients holding them: a rebalance that went wrong (two
    consumers of a clustering group read the same queue, so its messages are consumed twice). A queue a client
    is dropping is no longer held; broadcasting consumers each hold every queue by design."""
    holders: dict[MessageQueue, list[str]] = {}
    for cid, info in sorted(infos.items()):
        if info.properties.get("messageModel") == "BROADCASTING":
            continue
        for mq, pq in info.mq_table.items():
            if not pq.get("droped"):
                holders.setdefault(mq, []).append(cid)
    return {mq: cids for mq, cids in sorted(holders.items()) if len(cids) > 1}


def rebalance_ok(infos: dict[str, ConsumerRunningInfo]) -> bool:
    """Java's "Rebalance OK": the clients subscribe alike, and (our check, Java's is empty) no queue is held twice."""
    return subscriptions_alike(infos) and not duplicate_assignments(infos)


def problems(client_id: str, info: ConsumerRunningInfo, now_ms: int) -> list[str]:
    """Java's ``analyzeProcessQueue``: orderly queues that stay unlocked, queues that stopped consuming."""
    if info.consume_type != "CONSUME_PASSIVELY":
        return []
    out = []
    for mq, pq in info.mq_table.items():
        where = f"{client_id} {mq.topic} {mq.broker_name} queue {mq.queue_id}"
        if info.orderly:
            if not pq.get("locked"):
                out.append(f"{where} can't lock for a while, {now_ms - int(pq.get('lastLockTimestamp') or 0)} ms")
            elif pq.get("droped") and int(pq.get("tryUnlockTimes") or 0) > 0:
                out.append(f"{where} unlock {pq.get('tryUnlockTimes')} times, still failed")
            continue
        idle = now_ms - int(pq.get("lastConsumeTimestamp") or 0)
        if idle > BLOCKED_AFTER_MS and int(pq.get("cachedMsgCount") or 0) > 0:
            out.append(f"{where} can't consume for a while, maybe blocked, {idle} ms")
    return out


def _status_json(group: str, cc: ConsumerConnection | None, results: list[TargetResult]) -> dict[str, Any]:
    from mqadmin.admin import outcome

    versions = {c.client_id: c for c in cc.connections} if cc else {}
    infos = {r.name: r.data for r in results if r.ok}
    now = int(time.time() * 1000)
    clients = []
    for r in results:
        conn = versions.get(r.name)
        entry = {
            "clientId": r.name,
            "versionDesc": conn.version_desc if conn else None,
            "status": str(r.status),
            "reason": r.reason,
            "info": running_info_json(r.data) if r.ok else None,
        }
        clients.append(entry)
    from mqadmin.model.queue import queue_json

    return {
        "group": group,
        "clients": clients,
        "sameSubscription": subscriptions_alike(infos),
        "rebalanceOk": rebalance_ok(infos) if infos else None,
        "duplicateQueues": [queue_json(mq, clients=cids) for mq, cids in duplicate_assignments(infos).items()],
        "problems": [p for cid, i in infos.items() for p in problems(cid, i, now)],
        "outcome": outcome(results),
    }


def running_info_json(info: ConsumerRunningInfo) -> dict[str, Any]:
    from mqadmin.model.queue import queue_json

    return {
        "properties": info.properties,
        "subscriptions": [{"topic": s.topic, "subExpression": s.sub_string} for s in info.subscriptions],
        "queues": [queue_json(mq, processQueue=pq) for mq, pq in info.mq_table.items()],
        "popQueues": [queue_json(mq, processQueue=pq) for mq, pq in info.mq_pop_table.items()],
        "rates": info.status_table,
        "userConsumerInfo": info.user_consumer_info,
        "jstack": info.jstack,
    }


def _print_clients(cc: ConsumerConnection | None, results: list[TargetResult]) -> None:
    from mqadmin.cli.commands.consumer._shared import local_time
    from mqadmin.cli.render import Column, print_table
    from mqadmin.cli.runner import print_results
    from mqadmin.model.clients import CONSUME_TYPE_NAMES

    versions = {c.client_id: c.version_desc for c in cc.connections} if cc else {}
    cols = [Column("CLIENT ID"), Column("VERSION"), Column("TYPE"), Column("ORDERLY"), Column("QUEUES", numeric=True),
            Column("CACHED MSGS", numeric=True), Column("LAST CONSUMED"), Column("STARTED")]  # fmt: skip
    rows = []
    for r in results:
        if not r.ok:
            continue
        info: ConsumerRunningInfo = r.data
        cached = sum(int(pq.get("cachedMsgCount") or 0) for pq in info.mq_table.values())
        last = max((int(pq.get("lastConsumeTimestamp") or 0) for pq in info.mq_table.values()), default=0)
        kind = CONSUME_TYPE_NAMES.get(info.consume_type, info.consume_type)
        rows.append(
            (r.name, versions.get(r.name, "-"), kind, "yes" if info.orderly else "no", len(info.mq_table), cached,
             local_time(last), local_time(info.start_timestamp))
        )  # fmt: skip
    print_table(cols, rows)
    failed = [r for r in results if not r.ok]
    if failed:
        print()
        print_results(failed, "CLIENT", "Clients that did not answer")


def _print_analysis(infos: dict[str, ConsumerRunningInfo]) -> None:
    from mqadmin.cli.render import print_lines

    if not infos:
        return
    now = int(time.time() * 1000)
    lines = [
        "",
        "Same subscription in every client" if subscriptions_alike(infos) else "WARNING: clients subscribe differently",
        "Rebalance OK" if rebalance_ok(infos) else "Rebalance FAILED",
    ]
    for mq, cids in duplicate_assignments(infos).items():
        lines.append(
            f"{mq.topic} {mq.broker_name} queue {mq.queue_id} is held by {len(cids)} clients: {', '.join(cids)}"
        )
    for cid, info in infos.items():
        lines += problems(cid, info, now)
    print_lines(lines)


def print_running_info(info: ConsumerRunningInfo) -> None:
    """One client in detail: properties, subscriptions, queues, rates, user info, thread dump."""
    from mqadmin.cli.commands.consumer._shared import local_time
    from mqadmin.cli.render import Column, print_lines, print_table

    print_table([Column("PROPERTY"), Column("VALUE")], list(info.properties.items()), "Properties")
    print()
    subs = [(s.topic, s.sub_string, s.expression_type) for s in info.subscriptions]
    print_table([Column("TOPIC"), Column("SUB EXPRESSION"), Column("TYPE")], subs, "Subscriptions")
    print()
    cols = [Column("TOPIC"), Column("BROKER"), Column("QID", numeric=True), Column("COMMIT OFFSET", numeric=True),
            Column("CACHED", numeric=True), Column("CACHED OFFSETS"), Column("LOCKED"), Column("DROPPED"),
            Column("LAST PULL"), Column("LAST CONSUMED")]  # fmt: skip
    rows = []
    for mq, pq in info.mq_table.items():
        cached = f"{pq.get('cachedMsgMinOffset', '-')}-{pq.get('cachedMsgMaxOffset', '-')}"
        rows.append(
            (mq.topic, mq.broker_name, mq.queue_id, pq.get("commitOffset", "-"), pq.get("cachedMsgCount", "-"), cached,
             _yes(pq.get("locked")), _yes(pq.get("droped")), local_time(int(pq.get("lastPullTimestamp") or 0)),
             local_time(int(pq.get("lastConsumeTimestamp") or 0)))
        )  # fmt: skip
    print_table(cols, rows, "Queues")
    if info.mq_pop_table:
        print()
        pop = [(mq.topic, mq.broker_name, mq.queue_id, str(pq)) for mq, pq in info.mq_pop_table.items()]
        print_table([Column("TOPIC"), Column("BROKER"), Column("QID", numeric=True), Column("POP")], pop, "Pop queues")
    print()
    cols = [Column("TOPIC"), Column("PULL RT", numeric=True), Column("PULL TPS", numeric=True),
            Column("CONSUME RT", numeric=True), Column("OK TPS", numeric=True), Column("FAILED TPS", numeric=True),
            Column("FAILED IN HOUR", numeric=True)]  # fmt: skip
    keys = ("pullRT", "pullTPS", "consumeRT", "consumeOKTPS", "consumeFailedTPS")
    rates = [
        (t, *(_rate(st.get(k)) for k in keys), st.get("consumeFailedMsgs", "-")) for t, st in info.status_table.items()
    ]
    print_table(cols, rates, "Rates")
    if info.user_consumer_info:
        print()
        print_table([Column("KEY"), Column("VALUE")], list(info.user_consumer_info.items()), "User consume info")
    if info.jstack is not None:
        print()
        print_lines(["Thread dump", *(line.replace("\t", "    ") for line in info.jstack.splitlines())])


def _yes(value: Any) -> str:
    return "yes" if value else "no"


def _rate(value: Any) -> str:
    try:
        return f"{float(value):.2f}"
    except (TypeError, ValueError):
        return "-"
