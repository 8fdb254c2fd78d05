"""Delay levels on the embedded broker: delayed sends and consumer retries wait in SCHEDULE_TOPIC_XXXX and
come back after their level's delay; retries climb the levels until maxReconsumeTimes, then %DLQ%; a
delayed message the broker acknowledged survives kill -9, before and after it was delivered."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from mqadmin.model.rpc.messages import (
    CONSUMER_SEND_MSG_BACK,
    PULL_MESSAGE,
    SEND_MESSAGE,
    SendBackHeader,
    SendHeader,
    SendResultHeader,
)
from mqadmin.server.broker.broker import Broker
from mqadmin.server.broker.config import BrokerConfig
from mqadmin.server.broker.schedule import SCHEDULE_TOPIC, delay_levels
from mqadmin.server.namesrv.config import NamesrvConfig
from mqadmin.server.namesrv.server import NameServer
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire.codes import ResponseCode as R
from mqadmin.wire.message import MessageExt, decode_messages, decode_properties, encode_properties, parse_offset_msg_id

from .conftest import call, pull_header, send_header
from .test_messaging_crash import dev_up

FAST_LEVELS = "200ms 400ms 600ms 800ms 1s 1s"


def test_delay_levels_parse_java_units_and_name_a_bad_entry():
    assert delay_levels("1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h")[:5] == (
        1000, 5000, 10_000, 30_000, 60_000
    )  # fmt: skip
    assert delay_levels("1d 250ms") == (86_400_000, 250)
    with pytest.raises(ValueError, match="'5x'"):
        delay_levels("1s 5x")
    with pytest.raises(ValueError, match="empty"):
        delay_levels("  ")


@pytest.fixture
async def fast_broker(tmp_path: Path) -> AsyncIterator[Broker]:
    """One broker whose delay levels last a fraction of a second, registered with its own name server."""
    ns = NameServer(NamesrvConfig(listen_host="127.0.0.1", listen_port=0, data_dir=tmp_path / "ns"))
    await ns.start()
    broker = Broker(
        BrokerConfig(listen_port=0, namesrv_addrs=[ns.addr], data_dir=tmp_path / "b", message_delay_level=FAST_LEVELS)
    )
    await broker.start()
    yield broker
    await broker.stop()
    await ns.stop()


@pytest.fixture
async def transport() -> AsyncIterator[TcpTransport]:
    t = TcpTransport(timeout=10)
    yield t
    await t.aclose()


def delayed_send(topic: str, level: int, queue_id: int = 0) -> SendHeader:
    header = send_header(topic, queue_id=queue_id, keys="dk")
    return replace(header, properties=encode_properties({**decode_properties(header.properties), "DELAY": str(level)}))


async def send(transport: TcpTransport, addr: str, header: SendHeader, body: bytes) -> SendResultHeader:
    """SEND_MESSAGE, answered with success."""
    resp = await call(transport, addr, SEND_MESSAGE, header, body)
    assert resp.code == R.SUCCESS, resp.remark
    return SEND_MESSAGE.reply(resp).header


async def send_back(transport: TcpTransport, addr: str, header: SendBackHeader) -> None:
    assert (await call(transport, addr, CONSUMER_SEND_MSG_BACK, header)).code == R.SUCCESS


def back_of(sent: SendResultHeader, topic: str, group: str, delay_level: int, **fields: Any) -> SendBackHeader:
    """CONSUMER_SEND_MSG_BACK of the message ``sent`` (to ``topic``) by ``group``."""
    assert sent.msg_id is not None
    return SendBackHeader(
        offset=parse_offset_msg_id(sent.msg_id)[1], group=group, delay_level=delay_level, origin_msg_id=sent.msg_id,
        origin_topic=topic, unit_mode=False, **fields,
    )  # fmt: skip


async def pull(
    transport: TcpTransport, addr: str, topic: str, queue_id: int = 0, group: str = "CG_T"
) -> list[MessageExt]:
    resp = await call(transport, addr, PULL_MESSAGE, pull_header(topic, queue_id, group=group))
    return decode_messages(PULL_MESSAGE.reply(resp).body or b"") if resp.code == R.SUCCESS else []


async def arrived(
    transport: TcpTransport, addr: str, topic: str, queue_id: int = 0, group: str = "CG_T", count: int = 1
) -> list[MessageExt]:
    """The queue's messages once it holds at least ``count`` (polled, with a deadline)."""
    deadline = time.monotonic() + 30
    while len(found := await pull(transport, addr, topic, queue_id, group)) < count:
        assert time.monotonic() < deadline, f"{topic} queue {queue_id} never held {count} message(s)"
        await asyncio.sleep(0.05)
    return found


async def test_a_delayed_send_waits_in_its_level_then_arrives_without_delay(fast_broker, transport):
    addr = fast_broker.config.addr
    sent = await send(transport, addr, delayed_send("Later", 3, queue_id=1), b"in a while")
    assert sent.queue_id == 1
    (waiting,) = await pull(transport, addr, SCHEDULE_TOPIC, queue_id=2)  # level 3 -> queue 2
    assert waiting.properties["REAL_TOPIC"] == "Later" and waiting.properties["REAL_QID"] == "1"
    assert await pull(transport, addr, "Later", queue_id=1) == []
    (delivered,) = await arrived(transport, addr, "Later", queue_id=1)
    assert delivered.body == b"in a while" and "DELAY" not in delivered.properties
    assert delivered.store_timestamp - waiting.store_timestamp >= delay_levels(FAST_LEVELS)[2]
    assert delivered.properties["KEYS"] == "dk" and delivered.uniq_key == waiting.uniq_key


async def test_a_level_past_the_last_waits_the_last(fast_broker, transport):
    addr = fast_broker.config.addr
    await send(transport, addr, delayed_send("Capped", 99), b"x")
    (waiting,) = await pull(transport, addr, SCHEDULE_TOPIC, queue_id=len(delay_levels(FAST_LEVELS)) - 1)
    assert waiting.properties["DELAY"] == str(len(delay_levels(FAST_LEVELS)))
    await arrived(transport, addr, "Capped")


async def test_retries_climb_the_delay_levels_then_go_to_the_dead_letter_queue(fast_broker, transport):
    addr = fast_broker.config.addr
    sent = await send(transport, addr, send_header("Failing"), b"poison")
    back = back_of(sent, "Failing", "CG_R", 0, max_reconsume_times=2)
    for attempt in (1, 2):
        await send_back(transport, addr, back)
        # 3 + reconsumeTimes of the message handed back: level 3, then 4
        (waiting,) = (await pull(transport, addr, SCHEDULE_TOPIC, queue_id=1 + attempt))[-1:]
        assert waiting.properties["REAL_TOPIC"] == "%RETRY%CG_R" and waiting.reconsume_times == attempt
        m = (await arrived(transport, addr, "%RETRY%CG_R", group="CG_R", count=attempt))[attempt - 1]
        assert m.body == b"poison" and m.reconsume_times == attempt and m.properties["RETRY_TOPIC"] == "Failing"
        back = replace(back, offset=m.commit_log_offset)
    await send_back(transport, addr, back)
    (dead,) = await pull(transport, addr, "%DLQ%CG_R", group="CG_R")  # stored at once: no delay for the DLQ
    assert dead.body == b"poison" and dead.properties["RETRY_TOPIC"] == "Failing" and "DELAY" not in dead.properties


async def test_a_negative_delay_level_sends_back_straight_to_the_dead_letter_queue(fast_broker, transport):
    addr = fast_broker.config.addr
    sent = await send(transport, addr, send_header("Doomed"), b"bad")
    await send_back(transport, addr, back_of(sent, "Doomed", "CG_D", -1))
    assert [m.body for m in await pull(transport, addr, "%DLQ%CG_D", group="CG_D")] == [b"bad"]


async def test_a_retry_sent_by_a_producer_goes_to_the_dlq_only_past_max_reconsume_times(fast_broker, transport):
    """A client whose send-back failed sends the retry itself (reconsumeTimes already + 1): 5.x puts it in
    %DLQ% when reconsumeTimes > maxReconsumeTimes."""
    addr = fast_broker.config.addr
    at_max = replace(send_header("%RETRY%CG_P"), reconsume_times=2, max_reconsume_times=2)
    await send(transport, addr, at_max, b"retry")
    assert await pull(transport, addr, "%DLQ%CG_P", group="CG_P") == []
    await send(transport, addr, replace(at_max, reconsume_times=3), b"dead")
    assert [m.body for m in await pull(transport, addr, "%DLQ%CG_P", group="CG_P")] == [b"dead"]


async def test_an_acknowledged_delayed_message_survives_kill_9_before_and_after_delivery(tmp_path: Path):
    """Level 1 waits 1 s with the default levels. Killed before it is due, the message is delivered after
    the restart; killed right after it was delivered (before the progress file is written), it is
    delivered again: a duplicate, never a loss."""
    proc, info = await dev_up(tmp_path)
    transport = TcpTransport(timeout=10)
    try:
        addr = info["brokers"][0]["addr"]
        await send(transport, addr, delayed_send("Kept", 1), b"m0")
        os.kill(proc.pid, signal.SIGKILL)  # well within the 1 s delay
        await proc.wait()
        await transport.aclose()
        proc, info = await dev_up(tmp_path)
        transport = TcpTransport(timeout=10)
        addr = info["brokers"][0]["addr"]
        assert [m.body for m in await arrived(transport, addr, "Kept")] == [b"m0"]
        await send(transport, addr, delayed_send("Kept", 1), b"m1")
        await arrived(transport, addr, "Kept", count=2)
        os.kill(proc.pid, signal.SIGKILL)  # the progress is written every 5 s: most likely not yet
        await proc.wait()
        await transport.aclose()
        proc, info = await dev_up(tmp_path)
        transport = TcpTransport(timeout=10)
        addr = info["brokers"][0]["addr"]
        bodies = [m.body for m in await pull(transport, addr, "Kept")]
        assert set(bodies) == {b"m0", b"m1"}  # possibly twice, never missing
    finally:
        await transport.aclose()
        if proc.returncode is None:
            proc.terminate()
            await proc.wait()


@pytest.mark.parametrize("text", ["1s 5x", ""])
async def test_a_bad_delay_level_setting_stops_the_start_naming_it(tmp_path: Path, text: str):
    broker = Broker(BrokerConfig(listen_port=0, namesrv_addrs=[], data_dir=tmp_path, message_delay_level=text))
    with pytest.raises(ValueError, match="messageDelayLevel"):
        await broker.start()
    await broker.stop()
