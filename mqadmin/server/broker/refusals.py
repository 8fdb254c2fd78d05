"""Requests of features the embedded broker does not have, refused as a Java broker without them refuses
any request it does not know (REQUEST_CODE_NOT_SUPPORTED), with a remark that names the feature, so
mqadmin's commands report a clear reason instead of an unknown request code."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqadmin.model.rpc.brokers import (
    CLEAN_EXPIRED_CONSUMEQUEUE,
    CLEAN_UNUSED_TOPIC,
    COLD_DATA_CODES,
    DELETE_EXPIRED_COMMITLOG,
    RESET_MASTER_FLUSH_OFFSET,
    SET_COMMITLOG_READ_MODE,
    SWITCH_TIMER_ENGINE,
)
from mqadmin.model.rpc.lite import LITE_CODES
from mqadmin.model.rpc.static_topics import UPDATE_AND_CREATE_STATIC_TOPIC_CODE
from mqadmin.server.remoting import ClientChannel, Handler
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

if TYPE_CHECKING:
    from mqadmin.server.broker.broker import Broker

STATIC_TOPICS = "static topics (logic queues) are not supported by mqadmin's embedded broker"
LITE_TOPICS = "lite topics (RocketMQ 5.5) are not supported by mqadmin's embedded broker"
STORE_FILES = "commit-log and consume-queue file maintenance does not apply to mqadmin's embedded broker store"
REPLICATION = "master/slave replication is not supported by mqadmin's embedded broker"
TIMER_ENGINE = "switching the timer-message engine (RocketMQ 5.5) is not supported by mqadmin's embedded broker"
COLD_DATA = "cold-read flow control is not supported by mqadmin's embedded broker"


def _refuse(remark: str) -> Handler:
    async def handler(cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        return cmd.response(
            ResponseCode.REQUEST_CODE_NOT_SUPPORTED, f" request type {cmd.code} not supported: {remark}"
        )

    return handler


def install(broker: Broker) -> None:
    broker.server.register(UPDATE_AND_CREATE_STATIC_TOPIC_CODE, _refuse(STATIC_TOPICS))
    for code in LITE_CODES:
        broker.server.register(code, _refuse(LITE_TOPICS))
    for store_request in (
        CLEAN_EXPIRED_CONSUMEQUEUE,
        CLEAN_UNUSED_TOPIC,
        DELETE_EXPIRED_COMMITLOG,
        SET_COMMITLOG_READ_MODE,
    ):
        broker.server.register(store_request.code, _refuse(STORE_FILES))
    broker.server.register(RESET_MASTER_FLUSH_OFFSET.code, _refuse(REPLICATION))
    for code in COLD_DATA_CODES:
        broker.server.register(code, _refuse(COLD_DATA))
    broker.server.register(SWITCH_TIMER_ENGINE.code, _refuse(TIMER_ENGINE))
