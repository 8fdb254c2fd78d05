"""clusterList and brokerStatus through the CLI entry point."""

from __future__ import annotations

import asyncio
import json

from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.frame import RemotingCommand
from tests.unit.cli_helpers import Cli, assert_one_line_error, rows
from tests.unit.fake_remoting import FakeBroker, two_broker_cluster

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


def _with_slave():
    ns, a, b = two_broker_cluster()
    a.runtime.update(HEALTH_5X)
    slave = FakeBroker("broker-a", "127.0.0.1:10915", broker_id=1, runtime=dict(a.runtime))
    ns.brokers.append(slave)
    return ns, a, b, slave


def test_cluster_list_table(monkeypatch, capsys) -> None:
    ns, a, b, slave = _with_slave()
    r = Cli(monkeypatch, capsys, ns, a, b, slave)("clusterList")
    assert r.code == 0, r.err
    a_cells = ["12.50(7,12ms)", "3.25(3,4ms|1,2ms)", "5-6(2.5w,", "1.5,", "0.5)", "9", "-", "0.2400", "true"]
    assert rows(r.out) == [
        ["CLUSTER", "BROKER", "BID", "ROLE", "ADDRESS", "VERSION", "IN", "TPS(LOAD)", "OUT", "TPS(LOAD)"]
        + ["TIMER(PROGRESS)", "PCWAIT(MS)", "HOUR", "SPACE", "ACTIVATED"],
        ["DefaultCluster", "broker-a", "0", "master", a.addr, "V5_3_3", *a_cells],
        ["DefaultCluster", "broker-a", "1", "slave", slave.addr, "V5_3_3", *a_cells],
        ["DefaultCluster", "broker-b", "0", "master", b.addr, "V5_3_3"]
        + ["0.00(-,-ms)", "3.25(-,-ms|-,-ms)", "-", "-", "-", "0.2400", "-"],
    ]
    more = Cli(monkeypatch, capsys, ns, a, b, slave)("clusterList", "-m")
    assert rows(more.out)[:2] == [
        ["CLUSTER", "BROKER", "BID", "ROLE", "ADDRESS", "IN", "YESTERDAY", "OUT", "YESTERDAY", "IN", "TODAY"]
        + ["OUT", "TODAY"],
        ["DefaultCluster", "broker-a", "0", "master", a.addr, "60", "50", "50", "30"],
    ]


def test_cluster_list_json_and_more_stats(monkeypatch, capsys) -> None:
    ns, a, b = two_broker_cluster(409)  # 4.9 spells getTransferedTps
    r = Cli(monkeypatch, capsys, ns, a, b)("--format", "json", "clusterList", "-m")
    assert r.code == 0
    first = r.json()["brokers"][0]
    assert first == {
        "cluster": "DefaultCluster",
        "broker": "broker-a",
        "brokerId": 0,
        "role": "master",
        "addr": a.addr,
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
    ns, a, b = two_broker_cluster()
    asked = {a.addr: asyncio.Event(), b.addr: asyncio.Event()}

    def barrier(me: FakeBroker):
        async def hook(cmd: RemotingCommand) -> None:
            if cmd.code == RC.GET_BROKER_RUNTIME_INFO:
                asked[me.addr].set()
                await asyncio.gather(*(e.wait() for e in asked.values()))  # sequential fetching would hang here

        return hook

    a.before, b.before = barrier(a), barrier(b)
    r = Cli(monkeypatch, capsys, ns, a, b)("--timeout", "2", "clusterList")
    assert r.code == 0, r.err


def test_a_hanging_broker_is_marked_and_partial(monkeypatch, capsys) -> None:
    ns, a, b = two_broker_cluster()
    b.hang = True
    r = Cli(monkeypatch, capsys, ns, a, b)("--timeout", "0.2", "clusterList")
    assert r.code == 3
    lines = r.out.splitlines()
    assert "ERROR" in lines[0]
    assert "no answer within 0.2s" in lines[2] and "V5_3_3" in lines[1]
    assert_one_line_error(r, "failed on 1 of 2")


def test_cluster_filter_and_unknown_cluster(monkeypatch, capsys) -> None:
    ns, a, b = two_broker_cluster()
    other = FakeBroker("broker-x", "127.0.0.1:10981", cluster="Other")
    ns.brokers.append(other)
    cli = Cli(monkeypatch, capsys, ns, a, b, other)
    doc = cli("--format", "json", "clusterList", "-c", "Other").json()
    assert [x["broker"] for x in doc["brokers"]] == ["broker-x"]
    r = cli("clusterList", "-c", "Nope")
    assert r.code == 2
    assert_one_line_error(r, "'Nope'", "DefaultCluster, Other")


def test_interval_repeats_for_count_rounds_as_json_lines(monkeypatch, capsys) -> None:
    ns, a, b = two_broker_cluster()
    r = Cli(monkeypatch, capsys, ns, a, b)("--format", "json", "clusterList", "-i", "0.1", "--count", "3")
    assert r.code == 0
    lines = r.out.strip().splitlines()
    assert len(lines) == 3
    assert all(len(json.loads(line)["brokers"]) == 2 for line in lines)


def test_broker_status_of_one_broker_and_of_a_cluster(monkeypatch, capsys) -> None:
    ns, a, b, slave = _with_slave()
    cli = Cli(monkeypatch, capsys, ns, a, b, slave)
    r = cli("brokerStatus", "-b", a.addr)
    assert r.code == 0
    assert ["brokerVersionDesc", "V5_3_3"] in rows(r.out)
    doc = cli("--format", "json", "brokerStatus", "-c", "DefaultCluster").json()
    assert [x["addr"] for x in doc["brokers"]] == [a.addr, slave.addr, b.addr]
    assert doc["brokers"][0]["info"]["putTps"] == "12.5 11.0 10.0"
    assert cli("brokerStatus").code == 2
