"""The name server: request handlers over RouteInfoManager and KVConfigManager, plus the expiry scan."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from mqadmin.model.names import shown
from mqadmin.model.route import QueueData
from mqadmin.server.broker.data_version import DataVersion
from mqadmin.server.headers import json_body, need, need_int, opt_bool, opt_int
from mqadmin.server.namesrv import controller, register_body
from mqadmin.server.namesrv.config import CONFIG_BLACKLIST, NamesrvConfig
from mqadmin.server.namesrv.kv import ORDER_TOPIC_CONFIG, KVConfigManager
from mqadmin.server.namesrv.route_body import route_body, wants_standard_json
from mqadmin.server.namesrv.routes import RouteInfoManager
from mqadmin.server.ratelog import RateLimitedLog
from mqadmin.server.remoting import ClientChannel, RemotingServer
from mqadmin.server.validation import check_request
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode, ResponseCode
from mqadmin.wire.frame import RemotingCommand
from mqadmin.wire.properties import format_properties, parse_properties

log = logging.getLogger(__name__)

FAQ = "\nSee https://rocketmq.apache.org/docs/bestPractice/06FAQ for further details."


class NameServer:
    def __init__(self, config: NamesrvConfig, clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.clock = clock
        self.server = RemotingServer("namesrv", check_request, config.limits)
        self.routes = RouteInfoManager(default_timeout=config.broker_expire)
        self.kv = KVConfigManager(config.kv_config_path, config.reset_unreadable_metadata)
        self._scan_task: asyncio.Task[None] | None = None
        self._bad_names = RateLimitedLog(log)
        self.server.on_close(self._channel_closed)
        for code, handler in self._handlers().items():
            self.server.register(code, handler)
        controller.install(self)

    @property
    def addr(self) -> str:
        return self.config.addr

    async def start(self) -> None:
        self.kv.load()
        self.config.listen_port = await self.server.start(self.config.listen_host, self.config.listen_port)
        self._scan_task = asyncio.get_running_loop().create_task(self._scan_loop())

    async def stop(self) -> None:
        if self._scan_task is not None:
            self._scan_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._scan_task
        await self.server.close()
        await self.kv.close()

    # --- broker liveness -------------------------------------------------------------------

    def _channel_closed(self, ch: ClientChannel) -> None:
        for addr in self.routes.channel_closed(ch):
            log.info("namesrv: broker %s unregistered: its connection closed", addr)

    async def _scan_loop(self) -> None:
        while True:
            await asyncio.sleep(max(self.config.scan_interval, 0.01))
            self.scan()

    def scan(self) -> None:
        """Expire brokers silent for longer than their timeout, and close their connections."""
        self.routes.default_timeout = self.config.broker_expire
        for addr, channel in self.routes.expire(self.clock()):
            log.warning("namesrv: broker %s expired", addr)
            if isinstance(channel, ClientChannel):
                channel.close()

    # --- handlers --------------------------------------------------------------------------

    def _handlers(self) -> dict[int, Callable]:
        return {
            RequestCode.REGISTER_BROKER: self.register_broker,
            RequestCode.UNREGISTER_BROKER: self.unregister_broker,
            RequestCode.BROKER_HEARTBEAT: self.broker_heartbeat,
            RequestCode.QUERY_DATA_VERSION: self.query_data_version,
            RequestCode.GET_ROUTEINFO_BY_TOPIC: self.get_route,
            RequestCode.GET_BROKER_CLUSTER_INFO: self.get_cluster_info,
            RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER: self.get_all_topics,
            RequestCode.GET_TOPICS_BY_CLUSTER: self.get_topics_by_cluster,
            RequestCode.GET_SYSTEM_TOPIC_LIST_FROM_NS: self.get_system_topics,
            RequestCode.DELETE_TOPIC_IN_NAMESRV: self.delete_topic,
            RequestCode.REGISTER_TOPIC_IN_NAMESRV: self.register_topic,
            RequestCode.PUT_KV_CONFIG: self.put_kv,
            RequestCode.GET_KV_CONFIG: self.get_kv,
            RequestCode.DELETE_KV_CONFIG: self.delete_kv,
            RequestCode.GET_KVLIST_BY_NAMESPACE: self.get_kv_list,
            RequestCode.WIPE_WRITE_PERM_OF_BROKER: self.wipe_write_perm,
            RequestCode.ADD_WRITE_PERM_OF_BROKER: self.add_write_perm,
            RequestCode.GET_NAMESRV_CONFIG: self.get_config,
            RequestCode.UPDATE_NAMESRV_CONFIG: self.update_config,
        }

    async def register_broker(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        name, addr, cluster = need(cmd, "brokerName"), need(cmd, "brokerAddr"), need(cmd, "clusterName")
        broker_id = need_int(cmd, "brokerId")
        crc = opt_int(cmd, "bodyCrc32", 0)
        if crc != 0 and register_body.crc32(cmd.body) != crc:
            return cmd.response(ResponseCode.SYSTEM_ERROR, "crc32 not match")
        try:
            body = register_body.decode(cmd.body, opt_bool(cmd, "compressed"))
        except register_body.BodyError as e:
            return cmd.response(ResponseCode.SYSTEM_ERROR, str(e))
        timeout_ms = opt_int(cmd, "heartbeatTimeoutMillis", 0)
        result = self.routes.register(
            cluster=cluster,
            addr=addr,
            name=name,
            broker_id=broker_id,
            ha_addr=cmd.ext.get("haServerAddr", ""),
            body=body,
            channel=ch,
            now=self.clock(),
            timeout=timeout_ms / 1000 if timeout_ms > 0 else None,
        )
        if result is None:
            return cmd.response(ResponseCode.SYSTEM_ERROR, "register broker failed")
        if result.left_out:
            self._bad_names.warning(
                "namesrv: broker %s registered %d topic(s) with illegal names, left out of the routes: %s",
                shown(name), len(result.left_out), ", ".join(shown(t) for t in result.left_out[:5]),
            )  # fmt: skip
        ext = {k: v for k, v in (("haServerAddr", result.ha_server_addr), ("masterAddr", result.master_addr)) if v}
        order = self.kv.namespace(ORDER_TOPIC_CONFIG) if self.config.return_order_topic_config_to_broker else None
        body_out = fastjson.dumps_bytes({"table": order}) if order else b""
        return cmd.response(ResponseCode.SUCCESS, ext=ext, body=body_out)

    async def unregister_broker(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        self.routes.unregister(
            need(cmd, "clusterName"), need(cmd, "brokerAddr"), need(cmd, "brokerName"), need_int(cmd, "brokerId")
        )
        return cmd.response(ResponseCode.SUCCESS)

    async def broker_heartbeat(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        self.routes.heartbeat(need(cmd, "clusterName"), need(cmd, "brokerAddr"), self.clock())
        return cmd.response(ResponseCode.SUCCESS)

    async def query_data_version(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        try:
            dv = DataVersion.from_json(json_body(cmd, "DataVersion")) if cmd.body else DataVersion(0, 0, 0)
        except (ValueError, TypeError) as e:
            return cmd.response(ResponseCode.SYSTEM_ERROR, str(e))
        changed, stored = self.routes.query_data_version(
            need(cmd, "clusterName"), need(cmd, "brokerAddr"), dv, self.clock()
        )
        body = fastjson.dumps_bytes(stored.to_json()) if stored is not None else b""
        return cmd.response(ResponseCode.SUCCESS, ext={"changed": "true" if changed else "false"}, body=body)

    async def get_route(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        topic = need(cmd, "topic")
        route = self.routes.route(topic)
        if route is None:
            return cmd.response(
                ResponseCode.TOPIC_NOT_EXIST, f"No topic route info in name server for the topic: {topic}{FAQ}"
            )
        if self.config.order_message_enable:
            route.order_topic_conf = self.kv.get(ORDER_TOPIC_CONFIG, topic)
        return cmd.response(ResponseCode.SUCCESS, body=route_body(route, wants_standard_json(cmd)))

    async def get_cluster_info(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        return cmd.response(ResponseCode.SUCCESS, body=fastjson.dumps_bytes(self.routes.cluster_info().to_json()))

    async def get_all_topics(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        if not self.config.enable_all_topic_list:
            return cmd.response(ResponseCode.SYSTEM_ERROR, "disable")
        return cmd.response(ResponseCode.SUCCESS, body=_topic_list(self.routes.all_topics()))

    async def get_topics_by_cluster(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        cluster = need(cmd, "cluster")
        if not self.config.enable_topic_list:
            return cmd.response(ResponseCode.SYSTEM_ERROR, "disable")
        return cmd.response(ResponseCode.SUCCESS, body=_topic_list(self.routes.topics_of_cluster(cluster)))

    async def get_system_topics(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        topics, addr = self.routes.system_topics()
        return cmd.response(ResponseCode.SUCCESS, body=_topic_list(topics, addr))

    async def delete_topic(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        self.routes.delete_topic(need(cmd, "topic"), cmd.ext.get("clusterName") or None)
        return cmd.response(ResponseCode.SUCCESS)

    async def register_topic(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        topic = need(cmd, "topic")
        try:
            obj = json_body(cmd, "TopicRouteData") if cmd.body else {}
            items = obj.get("queueDatas") if isinstance(obj, dict) else None
            qds = [QueueData.from_json(q) for q in items or []]
        except (ValueError, TypeError, AttributeError) as e:
            return cmd.response(ResponseCode.SYSTEM_ERROR, str(e))
        self.routes.register_topic(topic, qds)
        return cmd.response(ResponseCode.SUCCESS)

    async def put_kv(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        await self.kv.put(need(cmd, "namespace"), need(cmd, "key"), need(cmd, "value"))
        return cmd.response(ResponseCode.SUCCESS)

    async def get_kv(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        ns, key = need(cmd, "namespace"), need(cmd, "key")
        value = self.kv.get(ns, key)
        if value is None:
            return cmd.response(ResponseCode.QUERY_NOT_FOUND, f"No config item, Namespace: {ns} Key: {key}")
        return cmd.response(ResponseCode.SUCCESS, ext={"value": value})

    async def delete_kv(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        await self.kv.delete(need(cmd, "namespace"), need(cmd, "key"))
        return cmd.response(ResponseCode.SUCCESS)

    async def get_kv_list(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        ns = need(cmd, "namespace")
        table = self.kv.namespace(ns)
        if table is None:
            return cmd.response(ResponseCode.QUERY_NOT_FOUND, f"No config item, Namespace: {ns}")
        return cmd.response(ResponseCode.SUCCESS, body=fastjson.dumps_bytes({"table": table}))

    async def wipe_write_perm(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        count = self.routes.wipe_write_perm(need(cmd, "brokerName"))
        return cmd.response(ResponseCode.SUCCESS, ext={"wipeTopicCount": str(count)})

    async def add_write_perm(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        count = self.routes.add_write_perm(need(cmd, "brokerName"))
        return cmd.response(ResponseCode.SUCCESS, ext={"addTopicCount": str(count)})

    async def get_config(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        return cmd.response(ResponseCode.SUCCESS, body=format_properties(self.config.to_properties()).encode())

    async def update_config(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        if not cmd.body:
            return cmd.response(ResponseCode.SUCCESS)
        try:
            props = parse_properties(cmd.body.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            return cmd.response(ResponseCode.SYSTEM_ERROR, "string2Properties error")
        if CONFIG_BLACKLIST & props.keys():
            return cmd.response(ResponseCode.NO_PERMISSION, "Can not update config in black list.")
        try:
            self.config.apply_properties(props)
        except ValueError as e:
            return cmd.response(ResponseCode.SYSTEM_ERROR, str(e))
        return cmd.response(ResponseCode.SUCCESS)


def _topic_list(topics: list[str], broker_addr: str | None = None) -> bytes:
    obj: dict[str, object] = {"topicList": topics}
    if broker_addr:
        obj["brokerAddr"] = broker_addr
    return fastjson.dumps_bytes(obj)
