"""Store maintenance requests of Apache 5.3+ brokers, answered as an Apache broker whose consume queues,
metadata and POP records are not in RocksDB answers them: nothing to check, export or move."""

from __future__ import annotations

from typing import Any

from mqadmin.model.rpc import store as rpc
from mqadmin.model.rpc.spec import Decoded
from mqadmin.server.remoting import ClientChannel
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

NO_ROCKSDB_CQ = "It is not CombineConsumeQueueStore, no need check"
"""Apache's check result for a broker without RocksDB consume queues."""


async def check_cq(req: Decoded[rpc.CheckCqHeader, Any], ch: ClientChannel) -> RemotingCommand:
    result = rpc.CheckCqResult(rpc.CHECK_STATUSES.index("CHECK_OK"), NO_ROCKSDB_CQ)
    return rpc.CHECK_ROCKSDB_CQ_WRITE_PROGRESS.answer(req.cmd, body=result)


async def export_config(req: Decoded[rpc.ExportConfigHeader, Any], ch: ClientChannel) -> RemotingCommand:
    try:
        rpc.config_types_of(req.header.config_type)
    except ValueError as e:
        return req.cmd.response(ResponseCode.SYSTEM_ERROR, str(e))
    return req.cmd.response(ResponseCode.SUCCESS, "export done.")  # the metadata is in JSON files already


async def pop_rollback(req: Decoded[Any, Any], ch: ClientChannel) -> RemotingCommand:
    return req.cmd.response(ResponseCode.SUCCESS)  # POP records are not kept in RocksDB: nothing to move
