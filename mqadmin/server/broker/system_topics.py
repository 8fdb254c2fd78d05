"""GET_SYSTEM_TOPIC_LIST_FROM_BROKER (305): the topics this broker treats as system topics, as Java's
TopicValidator holds them: the fixed ones plus those the broker creates at start (its cluster and broker
names, the reply, revive and sync topics). exportMetadata and exportMetrics leave these out."""

from __future__ import annotations

from typing import Any

from mqadmin.model.names import SYSTEM_TOPICS
from mqadmin.model.rpc import Decoded
from mqadmin.model.rpc.stats import GET_SYSTEM_TOPIC_LIST_FROM_BROKER
from mqadmin.server.broker.config import BrokerConfig
from mqadmin.server.broker.topics import startup_topics
from mqadmin.server.remoting import DecodedHandler
from mqadmin.wire.frame import RemotingCommand


def system_topic_list(config: BrokerConfig) -> DecodedHandler:
    """The handler of GET_SYSTEM_TOPIC_LIST_FROM_BROKER for a broker with this config."""

    async def handler(req: Decoded[Any, Any], ch: object) -> RemotingCommand:
        names = SYSTEM_TOPICS | {t.topic_name for t in startup_topics(config)}
        return GET_SYSTEM_TOPIC_LIST_FROM_BROKER.answer(req.cmd, body=sorted(names))

    return handler
