"""clusterList and brokerStatus through the CLI entry point, over scripted answers (runtime figures as 5.3.3 and
4.9.8 brokers give them)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from mqadmin.model.rpc import brokers, namesrv
from mqadmin.model.rpc.spec import Decoded
from tests.mock_transport import Answer, cluster_info, ok, runtime
from tests.unit.cli_helpers import A, B, Cli, assert_one_line_error, rows, scripted

SLAVE = "127.0.0.1:10915"

HEALTH_5X = {  # what a 5.x broker adds to the runtime info for Java's clusterList columns
    "sendThreadPoolQueueSize": "7",
    "sendThreadPoolQueueHeadWaitTimeMills": "12",
    "pullThreadPoolQueueSize": "3",
    "pullThreadPoolQueueHeadWaitTimeMills": "4",
    "ackThreadPoolQueueSize": "1",
    "ackThreadPoolQueueHeadWaitTimeMills": "2",
    "timerReadBehind": "5",
    "timerOffsetBehind": "6",
    "timerCongestNum": "25000",
    "timerEnqueueTps": "1.5",
    "timerDequeueTps": "0.5",
    "pageCacheLockTimeMills": "9",
    "brokerActive": "true",
}


def brokers_answering(
    monkeypatch,
    capsys,
    version: int = 479,
    *,
    hang: frozenset[str] = frozenset(),
    info: Any = None,
    health: frozenset[str] = frozenset(),
) -> Cli:
    """broker-a (with a slave at SLAVE) and broker-b, broker-b idle; those in ``hang`` never answer, those in
    ``health`` add what a 5.x broker reports for Java's health columns (HEALTH_5X)."""

    async def answer(req: Decoded[None, None], addr: str) -> Answer:
        if addr in hang:
            await asyncio.Event().wait()
        figures = runtime(version, "0.0 0.0 0.0" if addr == B else "12.5 11.0 10.0")
        return ok(figures | HEALTH_5X if addr in health else figures)

    table = {brokers.GET_BROKER_RUNTIME_INFO: answer}
    if info is not None:
        table[namesrv.GET_BROKER_CLUSTER_INFO] = ok(info)
    return scripted(monkeypatch, capsys, table, version=version)


def with_slave():
    return cluster_info(("broker-a", 0, A), ("broker-a", 1, SLAVE), ("broker-b", 0, B))


def test_cluster_list_table(monkeypatch, capsys) -> None:
    cli = brokers_answering(monkeypatch, capsys, info=with_slave(), health=frozenset({A, SLAVE}))
    r = cli("clusterList")
    assert r.code == 0, r.err
    a_cells = ["12.50(7,12ms)", "3.25(3,4ms|1,2ms)", "5-6(2.5w,", "1.5,", "0.5)", "9", "-", "0.2400", "true"]
    assert rows(r.out) == [
        ["CLUSTER", "BROKER", "BID", "ROLE", "ADDRESS", "VERSION", "IN", "TPS(LOAD)", "OUT", "TPS(LOAD)"]
        + ["TIMER(PROGRESS)", "PCWAIT(MS)", "HOUR", "SPACE", "ACTIVATED"],
        ["DefaultCluster", "broker-a", "0", "master", A, "V5_3_3", *a_cells],
        ["DefaultCluster", "broker-a", "1", "slave", SLAVE, "V5_3_3", *a_cells],
        ["DefaultCluster", "broker-b", "0", "master", B, "V5_3_3"]
        + ["0.00(-,-ms)", "3.25(-,-ms|-,-ms)", "-", "-", "-", "0.2400", "-"],
    ]
    more = cli("clusterList", "-m")
    assert rows(more.out)[:2] == [
        ["CLUSTER", "BROKER", "BID", "ROLE", "ADDRESS", "IN", "YESTERDAY", "OUT", "YESTERDAY", "IN", "TODAY"]
        + ["OUT", "TODAY"],
        ["DefaultCluster", "broker-a", "0", "master", A, "60", "50", "50", "30"],
    ]


def test_cluster_list_json_and_more_stats(monkeypatch, capsys) -> None:
    r = brokers_answering(monkeypatch, capsys, 409)("--format", "json", "clusterList", "-m")
    assert r.code == 0
    first = r.json()["brokers"][0]
    assert first == {
        "cluster": "DefaultCluster",
        "broker": "broker-a",
        "brokerId": 0,
        "role": "master",
        "addr": A,
        "version": "V4_9_8",
        "inTps": 12.5,
        "outTps": 3.25,
        **dict.fromkeys(["sendQueueSize", "sendQueueWaitMs", "pullQueueSize", "pullQueueWaitMs"], None),
        **dict.fromkeys(["ackQueueSize", "ackQueueWaitMs", "timer", "pageCacheWaitMs", "hours"], None),
        "diskRatio": 0.24,
        "activated": None,  # a 4.9 broker reports neither the timer nor brokerActive: unknown, not false
        "error": None,
        "inTotalYesterday": 60,
        "outTotalYesterday": 50,
        "inTotalToday": 50,
        "outTotalToday": 30,
    }


def test_runtime_info_is_fetched_concurrently(monkeypatch, capsys) -> None:
    asked = {A: asyncio.Event(), B: asyncio.Event()}

    async def barrier(req: Decoded[None, None], addr: str) -> Answer:
        asked[addr].set()
        await asyncio.gather(*(e.wait() for e in asked.values()))  # sequential fetching would hang here
        return ok(runtime(479, "0.0 0.0 0.0"))

    r = scripted(monkeypatch, capsys, {brokers.GET_BROKER_RUNTIME_INFO: barrier})("--timeout", "2", "clusterList")
    assert r.code == 0, r.err


def test_a_hanging_broker_is_marked_and_partial(monkeypatch, capsys) -> None:
    r = brokers_answering(monkeypatch, capsys, hang=frozenset({B}))("--timeout", "0.2", "clusterList")
    assert r.code == 3
    lines = r.out.splitlines()
    assert "ERROR" in lines[0]
    assert "no answer within 0.2s" in lines[2] and "V5_3_3" in lines[1]
    assert_one_line_error(r, "failed on 1 of 2")


def test_cluster_filter_and_unknown_cluster(monkeypatch, capsys) -> None:
    info = cluster_info(("broker-a", 0, A), ("broker-b", 0, B))
    info.brokers |= cluster_info(("broker-x", 0, "127.0.0.1:10981"), cluster="Other").brokers
    info.clusters["Other"] = ["broker-x"]
    cli = brokers_answering(monkeypatch, capsys, info=info)
    doc = cli("--format", "json", "clusterList", "-c", "Other").json()
    assert [x["broker"] for x in doc["brokers"]] == ["broker-x"]
    r = cli("clusterList", "-c", "Nope")
    assert r.code == 2
    assert_one_line_error(r, "'Nope'", "DefaultCluster, Other")


def test_interval_repeats_for_count_rounds_as_json_lines(monkeypatch, capsys) -> None:
    r = brokers_answering(monkeypatch, capsys)("--format", "json", "clusterList", "-i", "0.1", "--count", "3")
    assert r.code == 0
    lines = r.out.strip().splitlines()
    assert len(lines) == 3
    assert all(len(json.loads(line)["brokers"]) == 2 for line in lines)


def test_broker_status_of_one_broker_and_of_a_cluster(monkeypatch, capsys) -> None:
    cli = brokers_answering(monkeypatch, capsys, info=with_slave())
    r = cli("brokerStatus", "-b", A)
    assert r.code == 0
    assert ["brokerVersionDesc", "V5_3_3"] in rows(r.out)
    doc = cli("--format", "json", "brokerStatus", "-c", "DefaultCluster").json()
    assert [x["addr"] for x in doc["brokers"]] == [A, SLAVE, B]
    assert doc["brokers"][0]["info"]["putTps"] == "12.5 11.0 10.0"
    assert cli("brokerStatus").code == 2
