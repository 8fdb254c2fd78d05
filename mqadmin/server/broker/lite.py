"""The lite-topic requests of Apache 5.5 (LiteManagerProcessor), answered as a 5.5 broker without lite topics
answers them. This broker has none: a topic cannot be given message.type=LITE (the attribute is refused). So
the broker's lite metadata is all zeros and a topic is "not exist" or "type not match", with Apache's codes and
remarks. A group can be bound to a parent topic (the lite.bind.topic attribute, which 5.5 accepts on any
topic): it then has no lag, as on Apache (total 0, or -1 for a named lite topic, no earliest time), and a
dispatch has nothing to do; an unbound group is "not a LITE group"."""

from __future__ import annotations

from typing import Any

from mqadmin.model.lite import BrokerLiteInfo, LiteGroupInfo
from mqadmin.model.rpc import lite
from mqadmin.model.rpc.spec import Decoded
from mqadmin.server.broker.brokerstore import Processor
from mqadmin.server.remoting import ClientChannel, RemotingServer
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

LMQ_PREFIX = "%LMQ%"


class LiteProcessor(Processor):
    def serve(self, server: RemotingServer) -> None:
        for declared, handler in (
            (lite.GET_BROKER_LITE_INFO, self.broker_info), (lite.GET_PARENT_TOPIC_INFO, self.parent_topic_info),
            (lite.GET_LITE_TOPIC_INFO, self.lite_topic_info), (lite.GET_LITE_CLIENT_INFO, self.client_info),
            (lite.GET_LITE_GROUP_INFO, self.group_info), (lite.TRIGGER_LITE_DISPATCH, self.trigger_dispatch),
        ):  # fmt: skip
            server.serve(declared, handler)

    async def broker_info(self, req: Decoded[None, None], ch: ClientChannel) -> RemotingCommand:
        config = self.config.to_properties()
        topics = self.messages.queue_topics()
        info = BrokerLiteInfo(
            store_type=config["storeType"],
            max_lmq_num=int(config["maxLmqConsumeQueueNum"]),
            current_lmq_num=sum(1 for t in topics if t.startswith(LMQ_PREFIX)),
            lite_subscription_count=0,
            order_info_count=0,
            cq_table_size=len(topics),
            offset_table_size=len(self.offsets.snapshot_table()),
            event_map_size=0,
        )
        return lite.GET_BROKER_LITE_INFO.answer(req.cmd, body=info)

    def _not_lite_topic(self, cmd: RemotingCommand, topic: str) -> RemotingCommand:
        if self.topics.get(topic) is None:
            return cmd.response(ResponseCode.TOPIC_NOT_EXIST, f"Topic [{topic}] not exist.")
        return cmd.response(ResponseCode.INVALID_PARAMETER, f"Topic [{topic}] type not match.")

    async def parent_topic_info(self, req: Decoded[lite.ParentTopicHeader, None], ch: ClientChannel) -> RemotingCommand:
        return self._not_lite_topic(req.cmd, req.header.topic)

    async def lite_topic_info(self, req: Decoded[lite.LiteTopicHeader, None], ch: ClientChannel) -> RemotingCommand:
        return self._not_lite_topic(req.cmd, req.header.parent_topic or "null")

    async def client_info(self, req: Decoded[lite.LiteClientHeader, None], ch: ClientChannel) -> RemotingCommand:
        return self._not_lite_topic(req.cmd, req.header.parent_topic or "null")

    async def _lite_group(self, cmd: RemotingCommand, group: str) -> str | RemotingCommand:
        """The parent topic a group is bound to, or Apache's refusal. Apache looks the group up as a pull does: a
        missing one is created when autoCreateSubscriptionGroup is on (and is then not a LITE group)."""
        found = await self.groups.find_or_create(group)
        if found is None:
            return cmd.response(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, f"Group [{group}] not exist.")
        bound = (found.get("attributes") or {}).get("lite.bind.topic")
        if not bound:
            return cmd.response(ResponseCode.INVALID_PARAMETER, f"Group [{group}] is not a LITE group.")
        return str(bound)

    async def group_info(self, req: Decoded[lite.LiteGroupHeader, Any], ch: ClientChannel) -> RemotingCommand:
        h = req.header
        parent = await self._lite_group(req.cmd, h.group)
        if isinstance(parent, RemotingCommand):
            return parent
        if h.lite_topic:  # no such lite topic here: Apache's answer for a queue that has no message
            info = LiteGroupInfo(h.group, parent, h.lite_topic, -1, -1, None, [], [])
        elif h.top_k <= 0:  # Apache fails building a top-K queue of that size (IllegalArgumentException)
            return req.cmd.response(ResponseCode.SYSTEM_ERROR, f"topK={h.top_k}: it must be at least 1")
        else:
            info = LiteGroupInfo(h.group, parent, None, 0, -1, None, [], [])
        return lite.GET_LITE_GROUP_INFO.answer(req.cmd, body=info)

    async def trigger_dispatch(
        self, req: Decoded[lite.TriggerLiteDispatchHeader, None], ch: ClientChannel
    ) -> RemotingCommand:
        parent = await self._lite_group(req.cmd, req.header.group)
        if isinstance(parent, RemotingCommand):
            return parent
        return req.cmd.response(ResponseCode.SUCCESS)  # no lite topic here: no event to dispatch
