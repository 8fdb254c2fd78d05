"""The broker's admin requests over TCP, against an in-process cluster."""

from __future__ import annotations

import asyncio
import json

import pytest

from mqadmin.admin.client import AdminClient
from mqadmin.model.group import GroupWrite, SubscriptionGroupConfig
from mqadmin.model.rpc import brokers, groups, topics
from mqadmin.model.topic import TopicConfig
from mqadmin.server.broker.groups import SYSTEM_GROUPS
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode as R
from tests.conftest import Deadline

from .conftest import call, request, topic_ext


def addr_of(cluster, i: int = 0) -> str:
    return cluster.brokers[i].config.addr


async def create(transport, addr: str, cfg: TopicConfig):
    return await call(transport, addr, topics.UPDATE_AND_CREATE_TOPIC, topics.CreateTopicHeader.of(cfg))


async def test_create_topic_answers_success_without_remark_and_the_route_is_there_at_once(cluster, transport, admin):
    resp = await create(transport, addr_of(cluster), TopicConfig("Orders", 4, 4))
    assert (resp.code, resp.remark) == (R.SUCCESS, None)
    route = await admin.topic_route("Orders")
    assert [(q.broker_name, q.write_queue_nums) for q in route.queue_datas] == [("broker-a", 4)]


async def test_identical_create_does_not_bump_the_data_version(cluster, transport):
    broker = cluster.brokers[0]
    await create(transport, broker.config.addr, TopicConfig("Same"))
    counter = broker.topics.data_version["counter"]
    assert (await create(transport, broker.config.addr, TopicConfig("Same"))).code == R.SUCCESS
    assert broker.topics.data_version["counter"] == counter


@pytest.mark.parametrize(
    ("topic", "remark"),
    [
        ("bad topic", "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"),
        ("abc\n", "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"),
        ("x" * 128, "The specified topic is longer than topic max length."),
        ("TBW102", "The topic[TBW102] is conflict with system topic."),
        ("DefaultCluster", "The topic[DefaultCluster] is conflict with system topic."),
        ("broker-a", "The topic[broker-a] is conflict with system topic."),
        ("rmq_sys_mine", "The topic[rmq_sys_mine] is conflict with system topic."),
    ],
)
async def test_create_refuses_illegal_and_system_topics_with_code_29(cluster, transport, topic, remark):
    """Apache 5.3.2+ answers INVALID_PARAMETER (29) with these remarks (1 before)."""
    resp = await create(transport, addr_of(cluster), TopicConfig(topic))
    assert (resp.code, resp.remark) == (R.INVALID_PARAMETER, remark)
    assert cluster.brokers[0].topics.get(topic) is None or topic in ("TBW102", "DefaultCluster", "broker-a")


async def test_create_with_bad_header_values(cluster, transport):
    """Raw fields: no declaration writes a non-number count or leaves a required field out."""
    ext = topic_ext(TopicConfig("Typo")) | {"readQueueNums": "eight"}
    resp = await request(transport, addr_of(cluster), RC.UPDATE_AND_CREATE_TOPIC, ext)
    assert resp.code == R.SYSTEM_ERROR and "readQueueNums" in resp.remark
    missing = {k: v for k, v in topic_ext(TopicConfig("NoPerm")).items() if k != "perm"}
    resp = await request(transport, addr_of(cluster), RC.UPDATE_AND_CREATE_TOPIC, missing)
    assert resp.code == R.SYSTEM_ERROR and "perm" in resp.remark


async def test_create_keeps_attributes_and_order(cluster, transport):
    cfg = TopicConfig("Fifo", order=True, attributes={"message.type": "FIFO"})
    await create(transport, addr_of(cluster), cfg)
    header = topics.GetTopicConfigHeader(topic="Fifo", lo=True)
    got = await call(transport, addr_of(cluster), topics.GET_TOPIC_CONFIG, header)
    assert got.code == R.SUCCESS
    assert topics.GET_TOPIC_CONFIG.reply(got).body.config == cfg


async def test_get_topic_config_of_unknown_topic_is_17(cluster, transport):
    got = await call(transport, addr_of(cluster), topics.GET_TOPIC_CONFIG, topics.GetTopicConfigHeader(topic="Nope"))
    assert (got.code, got.remark) == (R.TOPIC_NOT_EXIST, "No topic in this broker. topic: Nope")


async def test_create_topic_list(cluster, transport, admin):
    listed = [TopicConfig(f"L{i}", 2, 2) for i in range(3)]
    resp = await call(transport, addr_of(cluster), topics.UPDATE_AND_CREATE_TOPIC_LIST, body=listed)
    assert resp.code == R.SUCCESS
    for i in range(3):
        assert (await admin.topic_route(f"L{i}")).queue_datas[0].read_queue_nums == 2
    bad = [TopicConfig("Fine"), TopicConfig("SELF_TEST_TOPIC")]
    resp = await call(transport, addr_of(cluster), topics.UPDATE_AND_CREATE_TOPIC_LIST, body=bad)
    assert resp.code == R.INVALID_PARAMETER and "conflict with system topic" in resp.remark
    assert cluster.brokers[0].topics.get("Fine") is None  # validated before anything is created
    configs = [TopicConfig("A1"), TopicConfig("A2", attributes={"+nope": "1"}), TopicConfig("A3")]
    resp = await call(transport, addr_of(cluster), topics.UPDATE_AND_CREATE_TOPIC_LIST, body=configs)
    assert (resp.code, resp.remark) == (R.SYSTEM_ERROR, "unsupported key: nope")
    held = [cluster.brokers[0].topics.get(t) is not None for t in ("A1", "A2", "A3")]
    assert held == [True, False, False]  # as Apache's: the topics before the refused one are kept
    broken = await request(transport, addr_of(cluster), RC.UPDATE_AND_CREATE_TOPIC_LIST, body=b"{not json")  # raw
    assert broken.code == R.SYSTEM_ERROR


async def test_large_topic_list_is_stored_persisted_and_registered(make_cluster, transport, tmp_path):
    """A list larger than the broker announces before answering (Java's updateTopicList of 50,000 topics): every
    topic is held once answered, announced to the name server right after, and still there after a restart."""
    from mqadmin.server.broker.topics import ANNOUNCED_BEFORE_ANSWER

    data = tmp_path / "large"
    cluster = await make_cluster(data_dir=data)
    names = [f"Bulk_{i:05d}" for i in range(5000)]
    assert len(names) > ANNOUNCED_BEFORE_ANSWER
    listed = [TopicConfig(n, 4, 4, attributes={"+message.type": "FIFO"} if n.endswith("7") else {}) for n in names]
    resp = await call(transport, addr_of(cluster), topics.UPDATE_AND_CREATE_TOPIC_LIST, body=listed)
    assert resp.code == R.SUCCESS
    held = topics.GET_ALL_TOPIC_CONFIG.reply(await call(transport, addr_of(cluster), topics.GET_ALL_TOPIC_CONFIG)).body
    assert {n: (held[n].write_queue_nums, held[n].attributes) for n in names} == {
        cfg.topic_name: (4, {"message.type": "FIFO"} if cfg.attributes else {}) for cfg in listed
    }
    async with AdminClient([cluster.namesrv_addr], transport=transport, timeout=10) as admin:
        deadline = Deadline(60, "the name server to list every topic of the list")
        while not set(names) <= set(await admin.topic_list()):
            if deadline.expired():
                raise deadline.fail()
            await asyncio.sleep(0.05)
        assert (await admin.topic_route(names[-1])).queue_datas[0].read_queue_nums == 4
    await cluster.stop()
    again = await make_cluster(data_dir=data)
    reread = topics.GET_ALL_TOPIC_CONFIG.reply(await call(transport, addr_of(again), topics.GET_ALL_TOPIC_CONFIG)).body
    assert {n: reread[n].attributes for n in names} == {n: held[n].attributes for n in names}


async def test_get_all_topic_config_shape(cluster, transport):
    """The wire shape itself (keys the declaration does not read), so the body is read as JSON."""
    await create(transport, addr_of(cluster), TopicConfig("Listed"))
    obj = json.loads((await call(transport, addr_of(cluster), topics.GET_ALL_TOPIC_CONFIG)).body)
    assert set(obj) >= {"dataVersion", "topicConfigTable", "topicQueueMappingInfoMap", "topicQueueMappingDetailMap"}
    assert set(obj["dataVersion"]) == {"counter", "stateVersion", "timestamp"}
    assert obj["topicConfigTable"]["Listed"]["topicName"] == "Listed"
    assert "TBW102" in obj["topicConfigTable"]


async def test_delete_topic(cluster, transport):
    await create(transport, addr_of(cluster), TopicConfig("Doomed"))
    delete = topics.DELETE_TOPIC_IN_BROKER
    assert (await call(transport, addr_of(cluster), delete, topics.TopicHeader(topic="Doomed"))).code == 0
    assert cluster.brokers[0].topics.get("Doomed") is None
    refused = await call(transport, addr_of(cluster), delete, topics.TopicHeader(topic="TBW102"))
    assert (refused.code, refused.remark) == (R.INVALID_PARAMETER, "The topic[TBW102] is conflict with system topic.")


async def test_runtime_info_has_the_keys_java_tools_read(cluster, transport):
    resp = await call(transport, addr_of(cluster), brokers.GET_BROKER_RUNTIME_INFO)
    table = brokers.GET_BROKER_RUNTIME_INFO.reply(resp).body
    for key in (
        "brokerVersionDesc", "brokerVersion", "putTps", "getTransferredTps", "getTransferedTps",
        "earliestMessageTimeStamp", "commitLogDiskRatio", "dispatchBehindBytes", "pageCacheLockTimeMills",
        "msgPutTotalTodayNow", "msgGetTotalTodayNow", "msgPutTotalYesterdayMorning", "msgGetTotalYesterdayMorning",
        "msgPutTotalTodayMorning", "msgGetTotalTodayMorning", "sendThreadPoolQueueSize",
        "sendThreadPoolQueueCapacity", "pullThreadPoolQueueSize", "pullThreadPoolQueueCapacity",
        "remainHowManyDataToFlush", "commitLogMaxOffset", "commitLogMinOffset", "bootTimestamp", "runtime",
        "brokerActive", "timerReadBehind", "timerOffsetBehind", "timerCongestNum", "timerEnqueueTps",
        "timerDequeueTps", "sendThreadPoolQueueHeadWaitTimeMills", "pullThreadPoolQueueHeadWaitTimeMills",
    ):  # fmt: skip
        assert key in table, key
    assert all(isinstance(v, str) for v in json.loads(resp.body)["table"].values())  # strings on the wire
    assert len(table["putTps"].split(" ")) == 3 and float(table["commitLogDiskRatio"]) >= 0


async def runtime_info(transport, addr: str) -> dict[str, str]:
    return brokers.GET_BROKER_RUNTIME_INFO.reply(await call(transport, addr, brokers.GET_BROKER_RUNTIME_INFO)).body


async def test_runtime_info_counts_sent_messages(cluster, transport, admin):
    from mqadmin.admin.messaging import send_message
    from mqadmin.wire.message import parse_offset_msg_id

    await create(transport, addr_of(cluster), TopicConfig("Counted"))
    empty = await runtime_info(transport, addr_of(cluster))
    assert empty["earliestMessageTimeStamp"] == "-1"  # as Apache's store with nothing in it
    sent = [await send_message(admin, "Counted", b"x") for _ in range(3)]
    table = await runtime_info(transport, addr_of(cluster))
    assert table["msgPutTotalTodayNow"] == "3"
    first = await admin.view_message(addr_of(cluster), parse_offset_msg_id(sent[0].msg_id)[1])
    assert table["earliestMessageTimeStamp"] == str(first.store_timestamp)  # clusterList's HOUR counts from it
    assert float(table["putTps"].split()[0]) > 0


async def test_broker_config_get_update_and_blacklist(cluster, transport):
    addr = addr_of(cluster)
    got = brokers.GET_BROKER_CONFIG.reply(await call(transport, addr, brokers.GET_BROKER_CONFIG))
    assert got.body["brokerName"] == "broker-a" and got.body["autoCreateTopicEnable"] == "true"
    assert got.header.version is not None and json.loads(got.header.version)["counter"] == 0
    update = brokers.UPDATE_BROKER_CONFIG
    for key in ("brokerConfigPath", "configBlackList", "rocketmqHome"):
        resp = await call(transport, addr, update, body={key: "/x"})
        assert (resp.code, resp.remark) == (R.NO_PERMISSION, "Can not update config in black list.")
    resp = await call(transport, addr, update, body={"autoCreateTopicEnable": "false", "noSuchKey": "1"})
    assert (resp.code, resp.remark) == (R.SYSTEM_ERROR, "'noSuchKey' is not a setting this server knows")
    assert cluster.brokers[0].config.auto_create_topic_enable is True  # all or nothing
    resp = await call(transport, addr, update, body={"autoCreateTopicEnable": "false"})
    assert resp.code == R.SUCCESS
    assert cluster.brokers[0].config.auto_create_topic_enable is False
    again = brokers.GET_BROKER_CONFIG.reply(await call(transport, addr, brokers.GET_BROKER_CONFIG))
    assert again.body["autoCreateTopicEnable"] == "false"
    assert again.header.version is not None and json.loads(again.header.version)["counter"] == 1
    bad = await call(transport, addr, update, body={"maxMessageSize": "many"})
    assert bad.code == R.SYSTEM_ERROR and "maxMessageSize" in bad.remark


START_UP_ONLY = "cannot be changed at runtime; it is read at start-up only"


@pytest.mark.parametrize(
    ("line", "remark"),
    [
        ("registerNameServerPeriod=0", f"registerNameServerPeriod {START_UP_ONLY}"),
        ("storePathRootDir=/tmp/elsewhere", f"storePathRootDir {START_UP_ONLY}"),
        ("brokerName=other", f"brokerName {START_UP_ONLY}"),
        ("listenPort=1", f"listenPort {START_UP_ONLY}"),
        ("defaultTopicQueueNums=4", f"defaultTopicQueueNums {START_UP_ONLY}"),
        ("brokerPermission=8", "brokerPermission=8 is out of range 0..7"),
        ("maxMessageSize=0", "maxMessageSize=0 is out of range 1..2147483647"),
        ("maxMessageSize=4294967296", "maxMessageSize=4294967296 is out of range 1..2147483647"),
        ("registerBrokerTimeoutMills=0", "registerBrokerTimeoutMills=0 is out of range 1000..2147483647"),
        ("regionId=a\\ud800", "regionId='a\\ud800' must be printable text of at most 1024 characters"),
        ("regionId=a\\nb", "regionId='a\\nb' must be printable text of at most 1024 characters"),
    ],
)
async def test_runtime_config_refuses_what_java_does_not_change_while_running(cluster, transport, line, remark):
    """Only the keys a Java broker reads while running change, within Java's ranges; the rest is an
    error, never a SUCCESS that changes nothing (registerNameServerPeriod=0 used to spin the CPU). The lines
    are sent raw: some hold escapes (\\ud800) as a user would type them into a properties file."""
    broker = cluster.brokers[0]
    before = broker.config.to_properties()
    resp = await request(transport, addr_of(cluster), RC.UPDATE_BROKER_CONFIG, body=f"traceOn=false\n{line}\n".encode())
    assert (resp.code, resp.remark) == (R.SYSTEM_ERROR, remark)
    assert broker.config.to_properties() == before
    got = brokers.GET_BROKER_CONFIG.reply(await call(transport, addr_of(cluster), brokers.GET_BROKER_CONFIG))
    assert got.header.version is not None and json.loads(got.header.version)["counter"] == 0


async def test_every_apache_setting_is_reported_and_an_update_stores_it(cluster, transport):
    """GET_BROKER_CONFIG reports every setting an Apache 5.5 broker reports (its defaults where this broker has
    none); an update of one this broker does not implement is stored and reported, of the flush intervals
    applied to the running store, of a setting Apache reads only at start or of a value its Java type cannot
    hold refused with the key named."""
    from mqadmin.server.broker.config import APACHE_DEFAULTS

    addr, broker = addr_of(cluster), cluster.brokers[0]

    async def config() -> dict[str, str]:
        got = await request(transport, addr, RC.GET_BROKER_CONFIG)
        return dict(line.split("=", 1) for line in got.body.decode().splitlines())

    before = await config()
    assert (
        set(APACHE_DEFAULTS) <= set(before) and len(before) >= 487
    )  # Apache 5.5 reports 487 with storePathCommitLog set
    assert (before["fileReservedTime"], before["flushIntervalCommitLog"]) == ("72", "500")
    assert (before["brokerRole"], before["haListenPort"]) == ("ASYNC_MASTER", str(broker.config.listen_port + 1))
    assert before["timerWheelEnable"] == "false"  # no timer store here (Apache's default is true)
    body = b"fileReservedTime=48\nflushIntervalCommitLog=200\nflushConsumerOffsetInterval=1000\n"
    assert (await request(transport, addr, RC.UPDATE_BROKER_CONFIG, body=body)).code == R.SUCCESS
    after = await config()
    assert (after["fileReservedTime"], after["flushIntervalCommitLog"]) == ("48", "200")
    assert broker.store.messages.flush_interval == 0.2 and broker.store.offsets.flush_interval == 1.0
    for line, remark in [
        (
            "isBrokerContainer=true",
            "isBrokerContainer cannot be changed by an update; Apache reads it at start-up only",
        ),
        ("accessMessageInMemoryMaxRatio=soon", "accessMessageInMemoryMaxRatio='soon' is not a Java int"),
        (
            "broadcastOffsetExpireSecond=9223372036854775808",
            "broadcastOffsetExpireSecond='9223372036854775808' is not a Java long",
        ),
        ("logicalDiskSpaceCleanForciblyThreshold=0.9", None),
    ]:
        resp = await request(transport, addr, RC.UPDATE_BROKER_CONFIG, body=f"fileReservedTime=1\n{line}\n".encode())
        if remark is None:
            assert resp.code == R.SUCCESS, resp.remark
        else:
            assert (resp.code, resp.remark) == (R.SYSTEM_ERROR, remark)
            assert (await config())["fileReservedTime"] == "48"  # all or nothing


async def test_broker_permission_change_reaches_routes(cluster, transport, admin):
    addr = addr_of(cluster)
    await create(transport, addr, TopicConfig("Perm"))
    resp = await call(transport, addr, brokers.UPDATE_BROKER_CONFIG, body={"brokerPermission": "4"})
    assert resp.code == R.SUCCESS
    assert (await admin.topic_route("Perm")).queue_datas[0].perm == 4
    bad = await call(transport, addr, brokers.UPDATE_BROKER_CONFIG, body={"brokerPermission": "9"})
    assert bad.code == R.SYSTEM_ERROR


async def test_subscription_groups_create_get_delete_and_persist(cluster, transport):
    addr = addr_of(cluster)
    write = GroupWrite(SubscriptionGroupConfig("G1", consume_broadcast_enable=False, retry_max_times=3))
    assert (await call(transport, addr, groups.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, body=write)).code == R.SUCCESS
    table = await group_table(transport, addr)
    g1 = table["G1"]
    assert (g1.consume_broadcast_enable, g1.retry_max_times, g1.retry_queue_nums) == (False, 3, 1)
    assert table.data_version is not None and "TOOLS_CONSUMER" in table
    on_disk = json.loads(cluster.brokers[0].data_path("subscriptionGroup.json").read_text())
    assert on_disk["subscriptionGroupTable"]["G1"]["retryMaxTimes"] == 3
    delete = groups.DeleteGroupHeader(group_name="G1", clean_offset=True)
    assert (await call(transport, addr, groups.DELETE_SUBSCRIPTIONGROUP, delete)).code == R.SUCCESS
    assert "G1" not in await group_table(transport, addr)


async def group_table(transport, addr: str) -> groups.GroupTable:
    rpc = groups.GET_ALL_SUBSCRIPTIONGROUP_CONFIG
    return rpc.reply(await call(transport, addr, rpc)).body


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"", R.SYSTEM_ERROR),
        (b"[1,2]", R.SYSTEM_ERROR),
        (b'{"groupName":""}', R.INVALID_PARAMETER),
        (b'{"groupName":"a.b"}', R.INVALID_PARAMETER),
        (b'{"groupName":"G","retryMaxTimes":"x"}', R.SYSTEM_ERROR),
        (b"\xff", R.SYSTEM_ERROR),
    ],
)
async def test_bad_subscription_group_bodies_are_refused(cluster, transport, body, code):
    """Raw bodies: malformed ones no declaration would encode."""
    resp = await request(transport, addr_of(cluster), RC.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, body=body)
    assert resp.code == code
    assert set(cluster.brokers[0].groups.all()) == set(SYSTEM_GROUPS)


async def test_query_topic_consume_by_who(cluster, transport):
    offsets = cluster.brokers[0].store.offsets
    offsets.commit("CG1", "T", 0, 1)
    offsets.commit("CG2", "T", 1, 5)
    offsets.commit("CG3", "Other", 0, 1)
    who = topics.QUERY_TOPIC_CONSUME_BY_WHO
    assert who.reply(await call(transport, addr_of(cluster), who, topics.TopicHeader(topic="T"))).body == ["CG1", "CG2"]


async def test_unknown_code_answers_3(cluster, transport):
    """Raw: no declaration has code 9999."""
    resp = await request(transport, addr_of(cluster), 9999)
    assert resp.code == R.REQUEST_CODE_NOT_SUPPORTED


async def test_acl_fields_are_ignored(cluster, transport):
    cmd = topics.UPDATE_AND_CREATE_TOPIC.request(topics.CreateTopicHeader.of(TopicConfig("Signed")))
    cmd.ext |= {"AccessKey": "rocketmq2", "Signature": "xyz="}  # what a signing client adds to any request
    assert (await transport.request(addr_of(cluster), cmd)).code == R.SUCCESS


async def test_a_slave_refuses_topic_and_group_changes(tmp_path, transport):
    from mqadmin.server.broker.broker import Broker
    from mqadmin.server.broker.config import BrokerConfig

    slave = Broker(BrokerConfig(listen_port=0, broker_id=1, namesrv_addrs=[], data_dir=tmp_path))
    await slave.start()
    try:
        addr = slave.config.addr
        requests = [
            topics.UPDATE_AND_CREATE_TOPIC.request(topics.CreateTopicHeader.of(TopicConfig("OnSlave"))),
            topics.DELETE_TOPIC_IN_BROKER.request(topics.TopicHeader(topic="OnSlave")),
            groups.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP.request(body=GroupWrite(SubscriptionGroupConfig("G"))),
            groups.DELETE_SUBSCRIPTIONGROUP.request(groups.DeleteGroupHeader(group_name="G")),
        ]
        for cmd in requests:
            resp = await transport.request(addr, cmd)
            assert resp.code == R.SYSTEM_ERROR and resp.remark.startswith("Can't modify topic or subscription group")
        assert slave.topics.get("OnSlave") is None
        config = await request(transport, addr, RC.GET_BROKER_CONFIG)
        assert "brokerRole=SLAVE" in config.body.decode().splitlines()
    finally:
        await slave.stop()
