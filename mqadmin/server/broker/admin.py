"""Admin requests a broker answers: topics, subscription groups, broker config and runtime info."""

from __future__ import annotations

import os
import platform
import time
from typing import TYPE_CHECKING, Any

from mqadmin.model.topic import TOPIC_MAX_LENGTH, TopicConfig, alter_attributes, topic_name_problem
from mqadmin.model.topic_batch import ops_from_map
from mqadmin.server.broker.config import CONFIG_BLACKLIST
from mqadmin.server.headers import json_body, need, opt_bool
from mqadmin.server.remoting import ClientChannel
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode, ResponseCode
from mqadmin.wire.frame import DEFAULT_VERSION, RemotingCommand
from mqadmin.wire.properties import format_properties, parse_properties

if TYPE_CHECKING:
    from mqadmin.server.broker.broker import Broker

VERSION_DESC = "V5_3_3"
MAX_QUEUE_NUMS = 65535


def topic_remark(topic: str) -> str | None:
    """Java TopicValidator's remark for an illegal topic name, or None when the name is legal."""
    if topic_name_problem(topic) is None:
        return None
    if not topic.strip():
        return "The specified topic is blank."
    if len(topic) > TOPIC_MAX_LENGTH:
        return "The specified topic is longer than topic max length."
    return f"The specified topic[{topic}] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"


SLAVE_REFUSAL = "Can't modify topic or subscription group from slave broker, please execute it from master broker."


class AdminProcessor:
    def __init__(self, broker: Broker) -> None:
        self.broker = broker

    def _slave_refusal(self, cmd: RemotingCommand) -> RemotingCommand | None:
        """A slave (broker id > 0) refuses topic and group changes, as a Java slave does."""
        if self.broker.config.broker_id != 0:
            return cmd.response(ResponseCode.SYSTEM_ERROR, SLAVE_REFUSAL)
        return None

    def _refusal(self, cmd: RemotingCommand, cfg: TopicConfig) -> RemotingCommand | None:
        """The error answer for a topic config that must not be created, or None."""
        remark = topic_remark(cfg.topic_name)
        if remark is None and self.broker.topics.is_system_topic(cfg.topic_name):
            remark = f"The topic[{cfg.topic_name}] is conflict with system topic."
        if remark is None:
            for field, n in (("readQueueNums", cfg.read_queue_nums), ("writeQueueNums", cfg.write_queue_nums)):
                if not 0 <= n <= MAX_QUEUE_NUMS:
                    remark = f"{field}={n} is out of range 0..{MAX_QUEUE_NUMS}"
            if not 0 <= cfg.perm <= 15:
                remark = f"topicPermission value: {cfg.perm} is invalid."
        return None if remark is None else cmd.response(ResponseCode.SYSTEM_ERROR, remark)

    # --- topics ----------------------------------------------------------------------------

    async def update_and_create_topic(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        if refusal := self._slave_refusal(cmd):
            return refusal
        for name in ("topic", "readQueueNums", "writeQueueNums", "perm"):
            need(cmd, name)
        try:
            cfg = TopicConfig.from_ext(cmd.ext)
        except ValueError as e:
            return cmd.response(ResponseCode.SYSTEM_ERROR, str(e))
        refusal = self._refusal(cmd, cfg)
        if refusal is not None:
            return refusal
        await self.broker.topics.update(cfg)
        return cmd.response(ResponseCode.SUCCESS)

    async def update_and_create_topic_list(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        if refusal := self._slave_refusal(cmd):
            return refusal
        try:
            obj = json_body(cmd, "CreateTopicListRequestBody")
            items = obj.get("topicConfigList") if isinstance(obj, dict) else None
            if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
                raise ValueError("topicConfigList is not a list of objects")
            cfgs = [self._attribute_ops_applied(TopicConfig.from_json(i)) for i in items]
        except (ValueError, TypeError) as e:
            return cmd.response(ResponseCode.SYSTEM_ERROR, f"bad CreateTopicListRequestBody: {e}")
        for cfg in cfgs:
            refusal = self._refusal(cmd, cfg)
            if refusal is not None:
                return refusal
        await self.broker.topics.update_many(cfgs)
        return cmd.response(ResponseCode.SUCCESS)

    def _attribute_ops_applied(self, cfg: TopicConfig) -> TopicConfig:
        """A list entry's attributes are operations (``+k``: v, ``-k``), applied to what the topic has."""
        current = self.broker.topics.get(cfg.topic_name)
        attrs = alter_attributes(current.attributes if current else {}, ops_from_map(cfg.attributes))
        return cfg.with_(attributes=attrs)

    async def delete_topic(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        if refusal := self._slave_refusal(cmd):
            return refusal
        topic = need(cmd, "topic")
        if not topic.strip():
            return cmd.response(ResponseCode.SYSTEM_ERROR, "The specified topic is blank.")
        if self.broker.topics.is_system_topic(topic):
            return cmd.response(ResponseCode.SYSTEM_ERROR, f"The topic[{topic}] is conflict with system topic.")
        await self.broker.topics.delete(topic)
        hook = getattr(self.broker.store, "delete_topic", None)
        if hook is not None:
            await hook(topic)
        return cmd.response(ResponseCode.SUCCESS)

    async def get_all_topic_config(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        return cmd.response(ResponseCode.SUCCESS, body=fastjson.dumps_bytes(self.broker.topics.wrapper_json()))

    async def get_topic_config(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        topic = need(cmd, "topic")
        cfg = self.broker.topics.get(topic)
        if cfg is None:
            return cmd.response(ResponseCode.TOPIC_NOT_EXIST, f"No topic in this broker. topic: {topic}")
        return cmd.response(ResponseCode.SUCCESS, body=fastjson.dumps_bytes(cfg.to_json()))

    async def query_topic_consume_by_who(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        topic = need(cmd, "topic")
        groups: set[str] = set()
        for provider in self.broker.consumer_groups_of:
            groups.update(provider(topic))
        return cmd.response(ResponseCode.SUCCESS, body=fastjson.dumps_bytes({"groupList": sorted(groups)}))

    # --- subscription groups ---------------------------------------------------------------

    async def update_subscription_group(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        if refusal := self._slave_refusal(cmd):
            return refusal
        try:
            await self.broker.groups.update(json_body(cmd, "SubscriptionGroupConfig") if cmd.body else None)
        except ValueError as e:
            return cmd.response(ResponseCode.SYSTEM_ERROR, f"bad SubscriptionGroupConfig: {e}")
        return cmd.response(ResponseCode.SUCCESS)

    async def delete_subscription_group(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        if refusal := self._slave_refusal(cmd):
            return refusal
        group = need(cmd, "groupName")
        await self.broker.groups.delete(group)
        hook = getattr(self.broker.store, "delete_group", None)
        if hook is not None and opt_bool(cmd, "cleanOffset"):
            await hook(group)
        return cmd.response(ResponseCode.SUCCESS)

    async def get_all_subscription_groups(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        return cmd.response(ResponseCode.SUCCESS, body=fastjson.dumps_bytes(self.broker.groups.wrapper_json()))

    # --- broker config and runtime info ----------------------------------------------------

    async def get_broker_config(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        body = format_properties(self.broker.config.to_properties()).encode()
        ext = {"version": fastjson.dumps(self.broker.config_version.to_json())}
        return cmd.response(ResponseCode.SUCCESS, ext=ext, body=body)

    async def update_broker_config(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        if not cmd.body:
            return cmd.response(ResponseCode.SUCCESS)
        try:
            props = parse_properties(cmd.body.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            return cmd.response(ResponseCode.SYSTEM_ERROR, f"string2Properties error: {e}")
        if CONFIG_BLACKLIST & props.keys():
            return cmd.response(ResponseCode.NO_PERMISSION, "Can not update config in black list.")
        cfg = self.broker.config
        old_perm = cfg.broker_permission
        perm = props.get("brokerPermission", "").strip()
        if perm and not (perm.isdigit() and 0 <= int(perm) <= 7):
            return cmd.response(ResponseCode.SYSTEM_ERROR, f"brokerPermission={perm!r} is not in 0..7")
        try:
            applied = cfg.apply_properties(props)
        except ValueError as e:
            return cmd.response(ResponseCode.SYSTEM_ERROR, str(e))
        if applied:
            self.broker.config_version.next()
        self.broker.groups.auto_create = cfg.auto_create_subscription_group
        if cfg.broker_permission != old_perm:
            self.broker.topics.bump_version()
            await self.broker.registrar.register_all()
        return cmd.response(ResponseCode.SUCCESS)

    async def get_broker_runtime_info(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        body = fastjson.dumps_bytes({"table": runtime_info(self.broker)})
        return cmd.response(ResponseCode.SUCCESS, body=body)


def runtime_info(broker: Broker) -> dict[str, str]:
    """The KVTable of GET_BROKER_RUNTIME_INFO: every key Java's clusterList/brokerStatus read
    (4.9 and 5.x spellings), with the message path's own figures merged over the defaults."""
    stats = broker.stats
    now = int(time.time() * 1000)
    put_tps, get_tps = stats.put_tps(), stats.get_tps()
    table: dict[str, Any] = {
        "brokerVersionDesc": VERSION_DESC,
        "brokerVersion": DEFAULT_VERSION,
        "brokerActive": "true",
        "bootTimestamp": broker.boot_timestamp,
        "runtime": _runtime(now - broker.boot_timestamp),
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
        "earliestMessageTimeStamp": now,
        "startAcceptSendRequestTimeStamp": 0,
        "commitLogDiskRatio": f"{_disk_ratio(broker.config.data_dir):.4f}",
        "commitLogDirCapacity": _disk_capacity(broker.config.data_dir),
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
    extra = getattr(broker.store, "runtime_info", None)
    if extra is not None:
        table.update(extra())
    return {k: str(v) for k, v in table.items()}


def _runtime(ms: int) -> str:
    s = ms // 1000
    return f"[ {s // 86400} days, {s // 3600 % 24} hours, {s // 60 % 60} minutes, {s % 60} seconds ]"


def _disk_ratio(path: Any) -> float:
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


def install(broker: Broker) -> None:
    p = AdminProcessor(broker)
    handlers = {
        RequestCode.UPDATE_AND_CREATE_TOPIC: p.update_and_create_topic,
        RequestCode.UPDATE_AND_CREATE_TOPIC_LIST: p.update_and_create_topic_list,
        RequestCode.DELETE_TOPIC_IN_BROKER: p.delete_topic,
        RequestCode.GET_ALL_TOPIC_CONFIG: p.get_all_topic_config,
        RequestCode.GET_TOPIC_CONFIG: p.get_topic_config,
        RequestCode.QUERY_TOPIC_CONSUME_BY_WHO: p.query_topic_consume_by_who,
        RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP: p.update_subscription_group,
        RequestCode.DELETE_SUBSCRIPTIONGROUP: p.delete_subscription_group,
        RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG: p.get_all_subscription_groups,
        RequestCode.GET_BROKER_CONFIG: p.get_broker_config,
        RequestCode.UPDATE_BROKER_CONFIG: p.update_broker_config,
        RequestCode.GET_BROKER_RUNTIME_INFO: p.get_broker_runtime_info,
    }
    for code, handler in handlers.items():
        broker.server.register(code, handler)
