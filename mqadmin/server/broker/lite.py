"""The lite-topic requests of Apache 5.5 (LiteManagerProcessor), answered as a 5.5 broker without lite topics
or lite groups answers them. This broker has neither: a topic cannot be given message.type=LITE (the attribute
is refused), and a group config keeps no liteBindTopic. So the broker's lite metadata is all zeros, a topic is
"not exist" or "type not match", and a group "not exist" or "not a LITE group", with Apache's codes and
remarks."""

from __future__ import annotations

from typing import Any

from mqadmin.model.lite import BrokerLiteInfo
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

    async def _not_lite_group(self, cmd: RemotingCommand, group: str) -> RemotingCommand:
        """Apache looks the group up as a pull does: a missing one is created when autoCreateSubscriptionGroup
        is on (and is then not a LITE group)."""
        if await self.groups.find_or_create(group) is None:
            return cmd.response(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, f"Group [{group}] not exist.")
        return cmd.response(ResponseCode.INVALID_PARAMETER, f"Group [{group}] is not a LITE group.")

    async def group_info(self, req: Decoded[lite.LiteGroupHeader, Any], ch: ClientChannel) -> RemotingCommand:
        return await self._not_lite_group(req.cmd, req.header.group)

    async def trigger_dispatch(
        self, req: Decoded[lite.TriggerLiteDispatchHeader, None], ch: ClientChannel
    ) -> RemotingCommand:
        return await self._not_lite_group(req.cmd, req.header.group)
