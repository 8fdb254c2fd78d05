"""The name server: request handlers over RouteInfoManager and KVConfigManager, plus the expiry scan."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from mqadmin.model import register_body
from mqadmin.model.data_version import DataVersion
from mqadmin.model.names import shown
from mqadmin.model.order import ORDER_TOPIC_CONFIG
from mqadmin.model.route import TopicRouteData
from mqadmin.model.rpc import namesrv as rpc
from mqadmin.model.rpc import namesrv_admin as kv
from mqadmin.model.rpc import registration as reg
from mqadmin.model.rpc.spec import Decoded, RequestRefused
from mqadmin.server.loop import stop_task
from mqadmin.server.namesrv import controller
from mqadmin.server.namesrv.config import NamesrvConfig
from mqadmin.server.namesrv.kv import KVConfigManager
from mqadmin.server.namesrv.route_body import route_body, wants_standard_json
from mqadmin.server.namesrv.routes import RouteInfoManager
from mqadmin.server.ratelog import RateLimitedLog
from mqadmin.server.remoting import ClientChannel, RemotingServer
from mqadmin.server.validation import check_text
from mqadmin.wire import fastjson
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

log = logging.getLogger(__name__)

FAQ = "\nSee https://rocketmq.apache.org/docs/bestPractice/06FAQ for further details."


class NameServer:
    def __init__(self, config: NamesrvConfig, clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.clock = clock
        self.server = RemotingServer("namesrv", check_text, config.limits)
        self.routes = RouteInfoManager(default_timeout=config.broker_expire)
        self.kv = KVConfigManager(config.kv_config_path, config.reset_unreadable_metadata)
        self._scan_task: asyncio.Task[None] | None = None
        self._bad_names = RateLimitedLog(log)
        self.server.on_close(self._channel_closed)
        self._serve()
        controller.install(self.server)

    @property
    def addr(self) -> str:
        return self.config.addr

    async def start(self) -> None:
        self.kv.load()
        cfg = self.config
        tls = cfg.tls.server_context() if cfg.tls else None
        permissive = cfg.tls is not None and cfg.tls.permissive
        cfg.listen_port = await self.server.start(cfg.listen_host, cfg.listen_port, tls, permissive)
        self._scan_task = asyncio.get_running_loop().create_task(self._scan_loop())

    async def stop(self) -> None:
        await stop_task(self._scan_task)
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

    def _serve(self) -> None:
        serve = self.server.serve
        serve(reg.REGISTER_BROKER, self.register_broker)
        serve(reg.UNREGISTER_BROKER, self.unregister_broker)
        serve(reg.BROKER_HEARTBEAT, self.broker_heartbeat)
        serve(reg.QUERY_DATA_VERSION, self.query_data_version)
        serve(reg.REGISTER_TOPIC_IN_NAMESRV, self.register_topic)
        serve(rpc.GET_ROUTEINFO_BY_TOPIC, self.get_route)
        serve(rpc.GET_BROKER_CLUSTER_INFO, self.get_cluster_info)
        serve(rpc.GET_ALL_TOPIC_LIST_FROM_NAMESERVER, self.get_all_topics)
        serve(rpc.GET_TOPICS_BY_CLUSTER, self.get_topics_by_cluster)
        serve(rpc.GET_SYSTEM_TOPIC_LIST_FROM_NS, self.get_system_topics)
        serve(rpc.DELETE_TOPIC_IN_NAMESRV, self.delete_topic)
        serve(kv.PUT_KV_CONFIG, self.put_kv)
        serve(kv.GET_KV_CONFIG, self.get_kv)
        serve(kv.DELETE_KV_CONFIG, self.delete_kv)
        serve(kv.GET_KVLIST_BY_NAMESPACE, self.get_kv_list)
        serve(kv.WIPE_WRITE_PERM_OF_BROKER, self.wipe_write_perm)
        serve(kv.ADD_WRITE_PERM_OF_BROKER, self.add_write_perm)
        serve(rpc.GET_NAMESRV_CONFIG, self.get_config)
        serve(rpc.UPDATE_NAMESRV_CONFIG, self.update_config)

    # --- brokers ---------------------------------------------------------------------------

    async def register_broker(
        self, req: Decoded[reg.RegisterBrokerHeader, register_body.RegisterBody], ch: ClientChannel
    ) -> RemotingCommand:
        cmd, h = req.cmd, req.header
        timeout_ms = h.heartbeat_timeout_millis or 0
        result = self.routes.register(
            cluster=h.cluster_name,
            addr=h.broker_addr,
            name=h.broker_name,
            broker_id=h.broker_id,
            ha_addr=h.ha_server_addr,
            body=req.body or register_body.RegisterBody(),
            channel=ch,
            now=self.clock(),
            timeout=timeout_ms / 1000 if timeout_ms > 0 else None,
        )
        if result is None:
            return cmd.response(ResponseCode.SYSTEM_ERROR, "register broker failed")
        if result.left_out:
            self._bad_names.warning(
                "namesrv: broker %s registered %d topic(s) with illegal names, left out of the routes: %s",
                shown(h.broker_name), len(result.left_out), ", ".join(shown(t) for t in result.left_out[:5]),
            )  # fmt: skip
        header = reg.RegisterBrokerResultHeader(
            ha_server_addr=result.ha_server_addr or None, master_addr=result.master_addr or None
        )
        order = self.kv.namespace(ORDER_TOPIC_CONFIG) if self.config.return_order_topic_config_to_broker else None
        return reg.REGISTER_BROKER.answer(cmd, header, order or None)

    async def unregister_broker(
        self, req: Decoded[reg.BrokerIdentityHeader, None], ch: ClientChannel
    ) -> RemotingCommand:
        h = req.header
        self.routes.unregister(h.cluster_name, h.broker_addr, h.broker_name, h.broker_id)
        return req.cmd.response(ResponseCode.SUCCESS)

    async def broker_heartbeat(
        self, req: Decoded[reg.BrokerLivenessHeader, None], ch: ClientChannel
    ) -> RemotingCommand:
        self.routes.heartbeat(req.header.cluster_name, req.header.broker_addr, self.clock())
        return req.cmd.response(ResponseCode.SUCCESS)

    async def query_data_version(
        self, req: Decoded[reg.BrokerLivenessHeader, DataVersion], ch: ClientChannel
    ) -> RemotingCommand:
        h = req.header
        dv = req.body if req.body is not None else DataVersion(0, 0, 0)
        changed, stored = self.routes.query_data_version(h.cluster_name, h.broker_addr, dv, self.clock())
        return reg.QUERY_DATA_VERSION.answer(req.cmd, reg.DataVersionChangedHeader(changed=changed), stored)

    async def register_topic(
        self, req: Decoded[reg.RegisterTopicHeader, TopicRouteData], ch: ClientChannel
    ) -> RemotingCommand:
        self.routes.register_topic(req.header.topic, req.body.queue_datas if req.body else [])
        return req.cmd.response(ResponseCode.SUCCESS)

    # --- routes and topics -----------------------------------------------------------------

    async def get_route(self, req: Decoded[rpc.RouteHeader, None], ch: ClientChannel) -> RemotingCommand:
        cmd, topic = req.cmd, req.header.topic
        route = self.routes.route(topic)
        if route is None:
            return cmd.response(
                ResponseCode.TOPIC_NOT_EXIST, f"No topic route info in name server for the topic: {topic}{FAQ}"
            )
        if self.config.order_message_enable:
            route.order_topic_conf = self.kv.get(ORDER_TOPIC_CONFIG, topic)
        return cmd.response(ResponseCode.SUCCESS, body=route_body(route, wants_standard_json(req)))

    async def get_cluster_info(self, req: Decoded[None, None], ch: ClientChannel) -> RemotingCommand:
        return rpc.GET_BROKER_CLUSTER_INFO.answer(req.cmd, body=self.routes.cluster_info())

    async def get_all_topics(self, req: Decoded[None, None], ch: ClientChannel) -> RemotingCommand:
        if not self.config.enable_all_topic_list:
            return req.cmd.response(ResponseCode.SYSTEM_ERROR, "disable")
        return rpc.GET_ALL_TOPIC_LIST_FROM_NAMESERVER.answer(req.cmd, body=self.routes.all_topics())

    async def get_topics_by_cluster(self, req: Decoded[rpc.ClusterHeader, None], ch: ClientChannel) -> RemotingCommand:
        if not self.config.enable_topic_list:
            return req.cmd.response(ResponseCode.SYSTEM_ERROR, "disable")
        topics = self.routes.topics_of_cluster(req.header.cluster)
        return rpc.GET_TOPICS_BY_CLUSTER.answer(req.cmd, body=topics)

    async def get_system_topics(self, req: Decoded[None, None], ch: ClientChannel) -> RemotingCommand:
        topics, addr = self.routes.system_topics()
        obj: dict[str, object] = {"topicList": topics}
        if addr:
            obj["brokerAddr"] = addr
        return req.cmd.response(ResponseCode.SUCCESS, body=fastjson.dumps_bytes(obj))

    async def delete_topic(self, req: Decoded[rpc.DeleteTopicHeader, None], ch: ClientChannel) -> RemotingCommand:
        self.routes.delete_topic(req.header.topic, req.header.cluster_name or None)
        return req.cmd.response(ResponseCode.SUCCESS)

    # --- KV config -------------------------------------------------------------------------

    async def put_kv(self, req: Decoded[kv.PutKvHeader, None], ch: ClientChannel) -> RemotingCommand:
        h = req.header
        await self.kv.put(h.namespace, h.key, h.value)
        return req.cmd.response(ResponseCode.SUCCESS)

    async def get_kv(self, req: Decoded[kv.KvHeader, None], ch: ClientChannel) -> RemotingCommand:
        ns, key = req.header.namespace, req.header.key
        value = self.kv.get(ns, key)
        if value is None:
            return req.cmd.response(ResponseCode.QUERY_NOT_FOUND, f"No config item, Namespace: {ns} Key: {key}")
        return kv.GET_KV_CONFIG.answer(req.cmd, kv.KvValueHeader(value=value))

    async def delete_kv(self, req: Decoded[kv.KvHeader, None], ch: ClientChannel) -> RemotingCommand:
        await self.kv.delete(req.header.namespace, req.header.key)
        return req.cmd.response(ResponseCode.SUCCESS)

    async def get_kv_list(self, req: Decoded[kv.NamespaceHeader, None], ch: ClientChannel) -> RemotingCommand:
        ns = req.header.namespace
        table = self.kv.namespace(ns)
        if table is None:
            return req.cmd.response(ResponseCode.QUERY_NOT_FOUND, f"No config item, Namespace: {ns}")
        return kv.GET_KVLIST_BY_NAMESPACE.answer(req.cmd, body=table)

    # --- write permission and config -------------------------------------------------------

    async def wipe_write_perm(self, req: Decoded[kv.BrokerNameHeader, None], ch: ClientChannel) -> RemotingCommand:
        count = self.routes.wipe_write_perm(req.header.broker_name)
        return kv.WIPE_WRITE_PERM_OF_BROKER.answer(req.cmd, kv.WipeCountHeader(count=count))

    async def add_write_perm(self, req: Decoded[kv.BrokerNameHeader, None], ch: ClientChannel) -> RemotingCommand:
        count = self.routes.add_write_perm(req.header.broker_name)
        return kv.ADD_WRITE_PERM_OF_BROKER.answer(req.cmd, kv.AddCountHeader(count=count))

    async def get_config(self, req: Decoded[None, None], ch: ClientChannel) -> RemotingCommand:
        return rpc.GET_NAMESRV_CONFIG.answer(req.cmd, body=self.config.to_properties())

    async def update_config(self, req: Decoded[None, dict[str, str]], ch: ClientChannel) -> RemotingCommand:
        cmd, props = req.cmd, req.body
        if not props:
            return cmd.response(ResponseCode.SUCCESS)
        try:
            self.config.apply_properties(props)
        except RequestRefused as e:
            return cmd.response(e.code, e.remark)
        return cmd.response(ResponseCode.SUCCESS)
