"""VIEW_BROKER_STATS_DATA (315) and GET_SYSTEM_TOPIC_LIST_FROM_BROKER (305) on the embedded broker, the
minute/hour/day counts behind them, and statsAll end to end on an in-process cluster."""

from __future__ import annotations

from mqadmin.model.rpc.clients import UPDATE_CONSUMER_OFFSET, UpdateOffsetHeader
from mqadmin.model.rpc.messages import PULL_MESSAGE, SEND_MESSAGE
from mqadmin.model.rpc.stats import (
    GET_SYSTEM_TOPIC_LIST_FROM_BROKER,
    VIEW_BROKER_STATS_DATA,
    VIEW_BROKER_STATS_DATA_CODE,
    StatsItemHeader,
)
from mqadmin.server.broker.rates import Rates
from mqadmin.wire.codes import ResponseCode as R

from .conftest import pull_header, request, send_header


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_counts_cover_the_last_minute_hour_and_day() -> None:
    clock = Clock()
    rates = Rates(clock)
    assert rates.put_counts("T") is None
    rates.put("T", 5)
    clock.now += 30
    rates.put("T", 3)
    assert rates.put_counts("T") == (8, 8, 8)
    clock.now += 60  # the first two seconds leave the minute (archived at this count)
    rates.put("T", 1)
    assert rates.put_counts("T") == (1, 9, 9)
    clock.now += 3600
    rates.put("T", 2)
    assert rates.put_counts("T") == (2, 2, 11)
    clock.now += 86400
    rates.put("T", 4)
    assert rates.put_counts("T") == (4, 4, 4)
    assert rates.put_tps("T") == round(4 / 60, 2)
    rates.got("G", "T", 7)
    assert rates.get_counts("G", "T") == (7, 7, 7) and rates.get_counts("G", "Other") is None


async def stats(transport, addr: str, name: str, key: str):
    return await transport.request(
        addr, VIEW_BROKER_STATS_DATA.request(StatsItemHeader(stats_name=name, stats_key=key))
    )


async def send(transport, addr: str, topic: str, body: bytes):
    return await transport.request(addr, SEND_MESSAGE.request(send_header(topic), body))


async def pull(transport, addr: str, topic: str, group: str, max_msg_nums: int = 32):
    return await transport.request(addr, PULL_MESSAGE.request(pull_header(topic, group=group, max_msgs=max_msg_nums)))


async def test_view_broker_stats_data_for_puts_and_gets(cluster, transport):
    addr = cluster.brokers[0].config.addr
    for i in range(3):
        assert (await send(transport, addr, "Counted", b"m%d" % i)).code == R.SUCCESS
    pulled = await pull(transport, addr, "Counted", "CG_STATS")
    assert pulled.code == R.SUCCESS

    put = await stats(transport, addr, "TOPIC_PUT_NUMS", "Counted")
    assert put.code == R.SUCCESS
    data = VIEW_BROKER_STATS_DATA.reply(put).body
    assert (data.minute.sum, data.hour.sum, data.day.sum, data.minute.tps) == (3, 3, 3, 0.05)
    got = await stats(transport, addr, "GROUP_GET_NUMS", "Counted@CG_STATS")
    assert VIEW_BROKER_STATS_DATA.reply(got).body.sum_24h == 3

    for name, key in (("TOPIC_PUT_NUMS", "NeverSent"), ("GROUP_GET_NUMS", "Counted"), ("SNDBCK_PUT_NUMS", "Counted")):
        none = await stats(transport, addr, name, key)
        assert (none.code, none.remark) == (R.SYSTEM_ERROR, f"The stats <{name}> <{key}> not exist")
    # a header without its required key, which the declaration cannot build: a raw frame
    missing = await request(transport, addr, VIEW_BROKER_STATS_DATA_CODE, {"statsName": "TOPIC_PUT_NUMS"})
    assert (missing.code, missing.remark) == (R.SYSTEM_ERROR, "the custom field <statsKey> is null")


async def test_system_topic_list_names_the_fixed_and_start_up_topics(cluster, transport):
    resp = await transport.request(cluster.brokers[0].config.addr, GET_SYSTEM_TOPIC_LIST_FROM_BROKER.request())
    topics = GET_SYSTEM_TOPIC_LIST_FROM_BROKER.reply(resp).body
    assert resp.code == R.SUCCESS
    assert {"TBW102", "SCHEDULE_TOPIC_XXXX", "DefaultCluster", "broker-a", "DefaultCluster_REPLY_TOPIC"} <= set(topics)
    assert "Counted" not in topics


async def test_stats_all_reports_rates_counts_and_accumulation(cluster, transport, admin):
    addr = cluster.brokers[0].config.addr
    for _ in range(4):
        await send(transport, addr, "StatsAll", b"x")
    await pull(transport, addr, "StatsAll", "CG_ALL", max_msg_nums=3)
    commit = UpdateOffsetHeader(consumer_group="CG_ALL", topic="StatsAll", queue_id=0, commit_offset=3)
    assert (await transport.request(addr, UPDATE_CONSUMER_OFFSET.request(commit))).code == R.SUCCESS

    rows, results = await admin.stats_all("StatsAll")
    assert [(r.topic, r.group, r.accumulation, r.in_24h, r.out_24h) for r in rows] == [("StatsAll", "CG_ALL", 1, 4, 3)]
    assert rows[0].in_tps == round(4 / 60, 2) and rows[0].out_tps == round(3 / 60, 2)
    assert [(r.name, str(r.status)) for r in results] == [("broker-a", "ok")]

    everything, _ = await admin.stats_all()
    topics = {r.topic for r in everything}
    assert "StatsAll" in topics and not any(t.startswith(("%RETRY%", "%DLQ%")) for t in topics)
    quiet = next(r for r in everything if r.topic == "SELF_TEST_TOPIC")
    assert (quiet.group, quiet.in_24h, quiet.out_24h, quiet.active) == (None, 0, None, False)
