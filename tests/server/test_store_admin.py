"""Store maintenance requests on the embedded broker, as Apache 5.5 answers them: read-ahead mode, cold-read
thresholds kept and reported, the cleaning requests, and the timer-engine switch refused with Apache's reason."""

from __future__ import annotations

import json

from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode as R

from .conftest import request
from .test_broker_admin import addr_of


async def test_read_ahead_mode_reaches_the_commit_log_and_the_config(cluster, transport):
    addr, broker = addr_of(cluster), cluster.brokers[0]
    resp = await request(transport, addr, RC.SET_COMMITLOG_READ_MODE, {"READ_AHEAD_MODE": "1"})
    assert (resp.code, resp.remark) == (R.SUCCESS, "set commitlog readahead mode success, mode: 1")
    assert broker.store.messages.log.read_ahead is False and broker.config.data_read_ahead is False
    got = await request(transport, addr, RC.GET_BROKER_CONFIG)
    assert "dataReadAheadEnable=false" in got.body.decode().splitlines()
    for mode, answer in [("2", (R.INVALID_PARAMETER, "set commitlog readahead mode param value error")),
                         ("x", (R.SYSTEM_ERROR, "set commitlog readahead mode failed"))]:  # fmt: skip
        resp = await request(transport, addr, RC.SET_COMMITLOG_READ_MODE, {"READ_AHEAD_MODE": mode})
        assert (resp.code, resp.remark) == answer
    assert broker.store.messages.log.read_ahead is False
    resp = await request(transport, addr, RC.UPDATE_BROKER_CONFIG, body=b"dataReadAheadEnable=true\n")
    assert resp.code == R.SUCCESS and broker.store.messages.log.read_ahead is True


async def test_cold_read_thresholds_are_kept_and_reported(cluster, transport):
    addr = addr_of(cluster)
    body = b"G1=4096\nG2=8192\n"
    assert (await request(transport, addr, RC.UPDATE_COLD_DATA_FLOW_CTR_CONFIG, body=body)).code == R.SUCCESS
    bad = await request(transport, addr, RC.UPDATE_COLD_DATA_FLOW_CTR_CONFIG, body=b"G1=1\nG3=lots\n")
    assert (bad.code, bad.remark) == (R.SYSTEM_ERROR, "threshold of 'G3' is not a number: 'lots'")
    assert (await request(transport, addr, RC.REMOVE_COLD_DATA_FLOW_CTR_CONFIG, body=b"G2")).code == R.SUCCESS
    info = json.loads((await request(transport, addr, RC.GET_COLD_DATA_FLOW_CTR_INFO)).body)
    assert info == {
        "runtimeTable": {},
        "configTable": {"G1": 4096},
        "cgColdReadThreshold": 3145728,
        "globalColdReadThreshold": 104857600,
        "globalAcc": 0,
    }


async def test_unused_topics_lose_their_queues(cluster, transport):
    """A topic whose config is gone (a hand-edited topics.json, say) but whose queues are still in the store."""
    from mqadmin.model.topic import TopicConfig
    from tests.store.conftest import message

    from .test_broker_admin import create

    addr, messages = addr_of(cluster), cluster.brokers[0].store.messages
    await create(transport, addr, TopicConfig("Kept"))
    for topic in ("Kept", "Orphan"):
        await messages.put(message(topic))
    for code in (RC.DELETE_EXPIRED_COMMITLOG, RC.CLEAN_EXPIRED_CONSUMEQUEUE):  # nothing expired: nothing changes
        assert (await request(transport, addr, code)).code == R.SUCCESS
    assert messages.max_offset("Orphan", 0) == messages.max_offset("Kept", 0) == 1
    assert (await request(transport, addr, RC.CLEAN_UNUSED_TOPIC)).code == R.SUCCESS
    assert (messages.max_offset("Orphan", 0), messages.max_offset("Kept", 0)) == (0, 1)


async def test_timer_engine_switch_refused_as_apache_without_a_timer_store(cluster, transport):
    resp = await request(transport, addr_of(cluster), RC.SWITCH_TIMER_ENGINE, {"E_T": "F"})
    assert (resp.code, resp.remark) == (R.INVALID_PARAMETER, "broker timerWheelEnable is false")


async def test_expired_segments_go_at_a_delete_when_hour_as_with_apaches_clean_service(tmp_path, transport):
    """Without any request: at an hour of deleteWhen the segments older than fileReservedTime are deleted, within
    cleanResourceInterval; at another hour (and a disk below diskMaxUsedSpaceRatio) they stay."""
    import asyncio
    import time

    from mqadmin.server.broker.admin import disk_ratio
    from mqadmin.server.broker.broker import Broker
    from mqadmin.server.broker.config import BrokerConfig
    from tests.conftest import Deadline
    from tests.store.conftest import message

    other_hour = (time.localtime().tm_hour + 12) % 24
    config = BrokerConfig(listen_port=0, namesrv_addrs=[], data_dir=tmp_path, mapped_file_size_commitlog=4096)
    broker = Broker(config)
    await broker.start()
    try:
        messages = broker.store.messages
        for _ in range(20):
            await messages.put(message("Old", body=b"x" * 600))
        await messages.flush()
        assert len(messages.log.segments()) > 2
        addr = config.addr
        body = f"fileReservedTime=0\ndeleteWhen={other_hour}\ndiskMaxUsedSpaceRatio=95\ncleanResourceInterval=100\n"
        assert (await request(transport, addr, RC.UPDATE_BROKER_CONFIG, body=body.encode())).code == R.SUCCESS
        if disk_ratio(tmp_path) <= 0.95:  # a fuller disk deletes expired segments at any hour
            assert broker.store_admin.time_to_delete() is False
        now_hour = time.localtime().tm_hour
        body = f"deleteWhen={other_hour};{now_hour};{(now_hour + 1) % 24}\n"  # the hour may turn meanwhile
        assert (await request(transport, addr, RC.UPDATE_BROKER_CONFIG, body=body.encode())).code == R.SUCCESS
        deadline = Deadline(30, "the clean service deleting the expired segments")
        while len(messages.log.segments()) > 1:
            if deadline.expired():
                raise deadline.fail()
            await asyncio.sleep(0.05)
        assert messages.min_offset("Old", 0) > 0
    finally:
        await broker.stop()


async def test_pull_size_limits_follow_the_broker_config(cluster, transport):
    """maxTransferCountOnMessageInMemory / maxTransferBytesOnMessageInMemory, read by Apache on every pull."""
    from tests.store.conftest import message

    addr, messages = addr_of(cluster), cluster.brokers[0].store.messages
    for _ in range(5):
        await messages.put(message("Limited", body=b"x" * 100))
    assert len(messages.get_messages("Limited", 0, 0, 32).messages) == 5
    body = b"maxTransferCountOnMessageInMemory=2\n"
    assert (await request(transport, addr, RC.UPDATE_BROKER_CONFIG, body=body)).code == R.SUCCESS
    assert len(messages.get_messages("Limited", 0, 0, 32).messages) == 2
    body = b"maxTransferCountOnMessageInMemory=32\nmaxTransferBytesOnMessageInMemory=1\n"
    assert (await request(transport, addr, RC.UPDATE_BROKER_CONFIG, body=body)).code == R.SUCCESS
    assert len(messages.get_messages("Limited", 0, 0, 32).messages) == 1  # always at least one
