"""Replication requests the embedded broker answers as an Apache broker without replication does: a master
reports its HA status with no slaves (a slave, no link to a master); the epoch cache is refused as by a broker
not in controller mode; controller requests are refused with a remark saying there is no controller."""

from __future__ import annotations

from typing import Any

from mqadmin.model.ha import HaRuntimeInfo
from mqadmin.model.rpc import ha as rpc
from mqadmin.model.rpc.spec import Decoded
from mqadmin.server.broker.brokerstore import Processor
from mqadmin.server.remoting import ClientChannel
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

NOT_CONTROLLER_MODE = "this request only for controllerMode "
"""Apache's answer to GET_BROKER_EPOCH_CACHE from a broker with enableControllerMode=false."""
NO_MASTER_LINK = "mqadmin's embedded slave replicates nothing from its master: there is no master flush offset to reset"
NO_CONTROLLER = "mqadmin's embedded broker is not a controller (the controller runs in a name server or on its own)"


class ReplicationProcessor(Processor):
    async def ha_status(self, req: Decoded[Any, Any], ch: ClientChannel) -> RemotingCommand:
        if self.config.broker_id == 0:
            info = HaRuntimeInfo(master=True, master_commit_log_max_offset=self.messages.max_phys_offset)
        else:
            info = HaRuntimeInfo(master=False)
        return rpc.GET_BROKER_HA_STATUS.answer(req.cmd, body=info)

    async def reset_master_flush_offset(self, req: Decoded[Any, Any], ch: ClientChannel) -> RemotingCommand:
        """Apache's master answers SUCCESS and changes nothing (the offset is a slave's); its slave sets the
        offset it replicates from, which ours, with no replication, does not have."""
        if self.config.broker_id == 0:
            return req.cmd.response(ResponseCode.SUCCESS)
        return req.cmd.response(
            ResponseCode.REQUEST_CODE_NOT_SUPPORTED, f" request type {req.cmd.code} not supported: {NO_MASTER_LINK}"
        )

    async def epoch_cache(self, req: Decoded[Any, Any], ch: ClientChannel) -> RemotingCommand:
        return req.cmd.response(ResponseCode.SYSTEM_ERROR, NOT_CONTROLLER_MODE)


async def no_controller(cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
    """Controller requests sent to a broker (registered raw: they carry no header the broker reads)."""
    return cmd.response(
        ResponseCode.REQUEST_CODE_NOT_SUPPORTED, f" request type {cmd.code} not supported: {NO_CONTROLLER}"
    )
