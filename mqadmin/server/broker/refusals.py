"""Requests of features the embedded broker does not have, refused as a Java broker without them refuses
any request it does not know (REQUEST_CODE_NOT_SUPPORTED), with a remark that names the feature, so
mqadmin's commands report a clear reason instead of an unknown request code."""

from __future__ import annotations

from typing import Any

from mqadmin.model.rpc import Decoded, Rpc
from mqadmin.model.rpc import store as store_rpc
from mqadmin.server.remoting import ClientChannel, DecodedHandler
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

ROCKSDB_CQ = (
    "mqadmin's embedded broker keeps its consume queues in files only: there is no RocksDB consume queue to check"
)
ROCKSDB_CONFIG = (
    "mqadmin's embedded broker keeps topics, groups and offsets in JSON files only (<store>/config/*.json): "
    "there is no RocksDB metadata to export"
)
ROCKSDB_POP = "mqadmin's embedded broker keeps no POP records in RocksDB: there is nothing to move to the file store"


def _refuse(remark: str) -> DecodedHandler:
    async def handler(req: Decoded[Any, Any], ch: ClientChannel) -> RemotingCommand:
        cmd = req.cmd
        remark_ = f" request type {cmd.code} not supported: {remark}"
        return cmd.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, remark_)

    return handler


def refused() -> list[tuple[Rpc[Any, Any, Any, Any], DecodedHandler]]:
    """Each refused request with its handler."""
    return [
        (store_rpc.CHECK_ROCKSDB_CQ_WRITE_PROGRESS, _refuse(ROCKSDB_CQ)),
        (store_rpc.EXPORT_ROCKSDB_CONFIG_TO_JSON, _refuse(ROCKSDB_CONFIG)),
        (store_rpc.POP_ROLLBACK, _refuse(ROCKSDB_POP)),
    ]
