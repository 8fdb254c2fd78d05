"""Admin requests a broker answers: topics, broker config and runtime info (subscription groups are in
``group_admin``)."""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Awaitable, Callable
from typing import Any

from mqadmin.model.names import shown
from mqadmin.model.rpc import brokers, static_topics, topics
from mqadmin.model.rpc.spec import Decoded, RequestRefused
from mqadmin.model.static_topic import MappingError, StaticTopicConfig, TopicQueueMappingDetail, merge_mapping
from mqadmin.model.topic import TopicConfig
from mqadmin.server.broker.attributes import AttributeRefused, alter, parse_operations
from mqadmin.server.broker.brokerstore import BrokerParts, Processor, apply_store_settings
from mqadmin.server.remoting import ClientChannel
from mqadmin.wire import fastjson
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import DEFAULT_VERSION, RemotingCommand

VERSION_DESC = "V5_3_3"
MAX_QUEUE_NUMS = 65535
TOPIC_FILTER_TYPES = ("SINGLE_TAG", "MULTI_TAG")

SLAVE_REFUSAL = "Can't modify topic or subscription group from slave broker, please execute it from master broker."


class AdminProcessor(Processor):
    def __init__(self, parts: BrokerParts, announce: Callable[[], Awaitable[object]]) -> None:
        """``announce``: a full registration with every name server (after the broker's permission changed)."""
        super().__init__(parts)
        self.announce = announce

    def _slave_refusal(self, cmd: RemotingCommand) -> RemotingCommand | None:
        """A slave (broker id > 0) refuses topic and group changes, as a Java slave does."""
        if self.config.broker_id != 0:
            return cmd.response(ResponseCode.SYSTEM_ERROR, SLAVE_REFUSAL)
        return None

    def _refusal(self, cmd: RemotingCommand, cfg: TopicConfig) -> RemotingCommand | None:
        """The error answer for a topic config that must not be created or changed, or None.

        The name is legal (the declarations check it). System topics and MIXED attributes get
        INVALID_PARAMETER (Apache 5.3.2+); the other fields, which Apache's header decoding refuses,
        SYSTEM_ERROR."""
        name = cfg.topic_name
        if self.topics.is_system_topic(name):
            return cmd.response(ResponseCode.INVALID_PARAMETER, f"The topic[{name}] is conflict with system topic.")
        if cfg.attributes.get("+message.type") == "MIXED":
            return cmd.response(ResponseCode.INVALID_PARAMETER, "MIXED message type is not supported.")
        remark = None
        for field, n in (("readQueueNums", cfg.read_queue_nums), ("writeQueueNums", cfg.write_queue_nums)):
            if not 0 <= n <= MAX_QUEUE_NUMS:
                remark = f"{field}={n} is out of range 0..{MAX_QUEUE_NUMS}"
        if not 0 <= cfg.perm <= 15:
            remark = f"topicPermission value: {cfg.perm} is invalid."
        if cfg.topic_filter_type not in TOPIC_FILTER_TYPES:
            remark = f"topicFilterType {shown(cfg.topic_filter_type)} is not one of {', '.join(TOPIC_FILTER_TYPES)}"
        return None if remark is None else cmd.response(ResponseCode.SYSTEM_ERROR, remark)

    def _merged(self, requested: TopicConfig) -> TopicConfig:
        """The config to store: the request's, with its attribute operations applied to the
        topic's current attributes (Apache 5.x); raises AttributeRefused."""
        current = self.topics.get(requested.topic_name)
        if not requested.attributes and (current is None or not current.attributes):
            return requested  # no operations on no attributes: nothing to merge (most topics of a large list)
        attrs = alter(current is None, current.attributes if current else {}, requested.attributes)
        return requested.with_(attributes=attrs)

    # --- topics ----------------------------------------------------------------------------

    async def update_and_create_topic(
        self, req: Decoded[topics.CreateTopicHeader, None], ch: ClientChannel
    ) -> RemotingCommand:
        cmd, h = req.cmd, req.header
        if refusal := self._slave_refusal(cmd):
            return refusal
        cfg = TopicConfig(
            h.topic, h.read_queue_nums, h.write_queue_nums, h.perm, h.topic_filter_type or "SINGLE_TAG",
            h.topic_sys_flag or 0, h.order,
        )  # fmt: skip
        try:
            cfg = cfg.with_(attributes=parse_operations(h.attributes or ""))
        except ValueError as e:
            return cmd.response(ResponseCode.SYSTEM_ERROR, str(e))
        return await self._apply(cmd, [cfg])

    async def update_and_create_topic_list(
        self, req: Decoded[None, list[TopicConfig]], ch: ClientChannel
    ) -> RemotingCommand:
        if refusal := self._slave_refusal(req.cmd):
            return refusal
        if req.body is None:
            return req.cmd.response(ResponseCode.SYSTEM_ERROR, "bad CreateTopicListRequestBody: no body")
        return await self._apply(req.cmd, req.body)

    async def _apply(self, cmd: RemotingCommand, cfgs: list[TopicConfig]) -> RemotingCommand:
        """Check every config (a refusal changes nothing), then merge attributes in order and store: as Apache's
        broker does, the topics before one whose attributes are refused are kept (Apache keeps them in memory,
        unpersisted, until its next write; we store them) and the request is refused."""
        for cfg in cfgs:
            refusal = self._refusal(cmd, cfg)
            if refusal is not None:
                return refusal
        merged: list[TopicConfig] = []
        answer = cmd.response(ResponseCode.SUCCESS)
        for cfg in cfgs:
            try:
                merged.append(self._merged(cfg))
            except AttributeRefused as e:
                answer = cmd.response(ResponseCode.SYSTEM_ERROR, str(e))
                break
        if merged:
            await self.topics.update_many(merged)
        return answer

    async def delete_topic(self, req: Decoded[topics.TopicHeader, None], ch: ClientChannel) -> RemotingCommand:
        cmd, topic = req.cmd, req.header.topic
        if refusal := self._slave_refusal(cmd):
            return refusal
        if self.topics.is_system_topic(topic):
            return cmd.response(ResponseCode.INVALID_PARAMETER, f"The topic[{topic}] is conflict with system topic.")
        await self.topics.delete(topic)
        await self.store.delete_topic(topic)
        return cmd.response(ResponseCode.SUCCESS)

    async def get_all_topic_config(self, req: Decoded[None, None], ch: ClientChannel) -> RemotingCommand:
        return req.cmd.response(ResponseCode.SUCCESS, body=await self.topics.wrapper_body())

    async def get_topic_config(
        self, req: Decoded[topics.GetTopicConfigHeader, None], ch: ClientChannel
    ) -> RemotingCommand:
        topic = req.header.topic
        cfg = self.topics.get(topic)
        if cfg is None:
            return req.cmd.response(ResponseCode.TOPIC_NOT_EXIST, f"No topic in this broker. topic: {topic}")
        mapping = self.topics.mapping(topic) if req.header.lo else None
        return topics.GET_TOPIC_CONFIG.answer(req.cmd, body=StaticTopicConfig(cfg, mapping))

    async def update_and_create_static_topic(
        self, req: Decoded[topics.CreateTopicHeader, TopicQueueMappingDetail], ch: ClientChannel
    ) -> RemotingCommand:
        """A static topic's config and this broker's part of its logic-queue mapping (Apache's
        updateAndCreateStaticTopic): the mapping is merged into the one held (an older epoch is refused
        without ``force``), stored with the config in one record, and registered with the name servers. A mapping
        naming another broker is stored as it came, as Apache's broker stores it (its check of the name is a Java
        ``assert``, off in a running broker): the requests then answered are those of the broker it names."""
        cmd, h, detail = req.cmd, req.header, req.body
        if detail is None:
            return cmd.response(ResponseCode.SYSTEM_ERROR, "no TopicQueueMappingDetail in the request body")
        cfg = TopicConfig(
            h.topic, h.read_queue_nums, h.write_queue_nums, h.perm, h.topic_filter_type or "SINGLE_TAG",
            h.topic_sys_flag or 0,
        )  # fmt: skip
        if refusal := self._refusal(cmd, cfg):
            return refusal
        if detail.topic != h.topic:
            return cmd.response(ResponseCode.SYSTEM_ERROR, f"the mapping is for topic {detail.topic}, not {h.topic}")
        try:
            merged = merge_mapping(self.topics.mapping(h.topic), detail, force=bool(h.force))
            cfg = self._merged(cfg)
        except (MappingError, AttributeRefused) as e:
            return cmd.response(ResponseCode.SYSTEM_ERROR, str(e))
        await self.topics.update_static(cfg, merged)
        return static_topics.UPDATE_AND_CREATE_STATIC_TOPIC.answer(cmd)

    async def query_topic_consume_by_who(
        self, req: Decoded[topics.TopicHeader, None], ch: ClientChannel
    ) -> RemotingCommand:
        groups_ = sorted(self.store.consumer_groups(req.header.topic))
        return topics.QUERY_TOPIC_CONSUME_BY_WHO.answer(req.cmd, body=groups_)

    # --- broker config and runtime info ----------------------------------------------------

    async def get_broker_config(self, req: Decoded[None, None], ch: ClientChannel) -> RemotingCommand:
        header = brokers.ConfigVersionHeader(version=fastjson.dumps(self.parts.config_version.to_json()))
        return brokers.GET_BROKER_CONFIG.answer(req.cmd, header, self.config.to_properties())

    async def update_broker_config(self, req: Decoded[None, dict[str, str]], ch: ClientChannel) -> RemotingCommand:
        cmd, props = req.cmd, req.body
        if not props:
            return cmd.response(ResponseCode.SUCCESS)
        cfg = self.config
        old_perm = cfg.broker_permission
        try:
            applied = cfg.apply_properties(props)
        except RequestRefused as e:
            return cmd.response(e.code, e.remark)
        if applied:
            self.parts.config_version.next()
        self.groups.auto_create = cfg.auto_create_subscription_group
        apply_store_settings(cfg, self.store)
        if cfg.broker_permission != old_perm:
            self.topics.bump_version()
            await self.announce()
        return cmd.response(ResponseCode.SUCCESS)

    async def get_broker_runtime_info(self, req: Decoded[None, None], ch: ClientChannel) -> RemotingCommand:
        return brokers.GET_BROKER_RUNTIME_INFO.answer(req.cmd, body=runtime_info(self.parts))


def runtime_info(parts: BrokerParts) -> dict[str, str]:
    """The KVTable of GET_BROKER_RUNTIME_INFO: every key Java's clusterList/brokerStatus read
    (4.9 and 5.x spellings), with the message path's own figures merged over the defaults."""
    stats = parts.stats
    now = int(time.time() * 1000)
    put_tps, get_tps = stats.put_tps(), stats.get_tps()
    table: dict[str, Any] = {
        "brokerVersionDesc": VERSION_DESC,
        "brokerVersion": DEFAULT_VERSION,
        "brokerActive": str(parts.config.broker_id == 0).lower(),  # Apache: a master's services run, not a slave's
        "bootTimestamp": stats.boot_timestamp,
        "runtime": _runtime(now - stats.boot_timestamp),
        "putTps": put_tps,
        "getTransferredTps": get_tps,
        "getTransferedTps": get_tps,
        "getFoundTps": get_tps,
        "getMissTps": "0.0 0.0 0.0",
        "getTotalTps": get_tps,
        "sendThreadPoolQueueSize": 0,
        "sendThreadPoolQueueCapacity": 10000,
        "sendThreadPoolQueueHeadWaitTimeMills": 0,
        "pullThreadPoolQueueSize": 0,
        "pullThreadPoolQueueCapacity": 100000,
        "pullThreadPoolQueueHeadWaitTimeMills": 0,
        "queryThreadPoolQueueSize": 0,
        "queryThreadPoolQueueCapacity": 20000,
        "queryThreadPoolQueueHeadWaitTimeMills": 0,
        "ackThreadPoolQueueSize": 0,
        "ackThreadPoolQueueCapacity": 100000,
        "ackThreadPoolQueueHeadWaitTimeMills": 0,
        "litePullThreadPoolQueueSize": 0,
        "litePullThreadPoolQueueCapacity": 100000,
        "litePullThreadPoolQueueHeadWaitTimeMills": 0,
        "EndTransactionQueueSize": 0,
        "EndTransactionThreadPoolQueueCapacity": 100000,
        "msgPutTotalTodayNow": stats.put_total,
        "msgGetTotalTodayNow": stats.get_total,
        "msgPutTotalTodayMorning": stats.put_today_morning,
        "msgGetTotalTodayMorning": stats.get_today_morning,
        "msgPutTotalYesterdayMorning": stats.put_yesterday_morning,
        "msgGetTotalYesterdayMorning": stats.get_yesterday_morning,
        "startAcceptSendRequestTimeStamp": 0,
        "commitLogDiskRatio": f"{disk_ratio(parts.config.data_dir):.4f}",
        "commitLogDirCapacity": _disk_capacity(parts.config.data_dir),
        "commitLogMaxOffset": 0,
        "commitLogMinOffset": 0,
        "dispatchBehindBytes": 0,
        "pageCacheLockTimeMills": 0,
        "remainHowManyDataToFlush": "0 B",
        "remainHowManyDataToCommit": "0 B",
        "remainTransientStoreBufferNumbs": 0,
        "timerReadBehind": 0,
        "timerOffsetBehind": 0,
        "timerCongestNum": 0,
        "timerEnqueueTps": "0.0",
        "timerDequeueTps": "0.0",
        "putMessageEntireTimeMax": 0,
        "putMessageTimesTotal": stats.put_total,
        "putMessageSizeTotal": 0,
        "os": f"{platform.system()} {platform.release()}",
    }
    table.update(parts.store.runtime_info())
    return {k: str(v) for k, v in table.items()}


def _runtime(ms: int) -> str:
    s = ms // 1000
    return f"[ {s // 86400} days, {s // 3600 % 24} hours, {s // 60 % 60} minutes, {s % 60} seconds ]"


def disk_ratio(path: Any) -> float:
    """The used share (0..1) of the file system holding ``path``, as Apache's runtime info reports it."""
    try:
        st = os.statvfs(path)
    except OSError:
        return 0.0
    total = st.f_blocks * st.f_frsize
    return 0.0 if total == 0 else (total - st.f_bavail * st.f_frsize) / total


def _disk_capacity(path: Any) -> str:
    try:
        st = os.statvfs(path)
    except OSError:
        return "Cannot get the capacity of the store path"
    gib = 1024**3
    return f"Total : {st.f_blocks * st.f_frsize / gib:.1f} GiB, Free : {st.f_bavail * st.f_frsize / gib:.1f} GiB."
