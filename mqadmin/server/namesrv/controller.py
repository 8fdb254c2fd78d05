"""The controller requests mqadmin sends, refused by the embedded name server as an Apache name server
without ``enableControllerInNamesrv`` refuses them (REQUEST_CODE_NOT_SUPPORTED), with a remark naming why."""

from __future__ import annotations

from mqadmin.model.rpc.ha import CONTROLLER_ADMIN_CODES
from mqadmin.server.remoting import ClientChannel, RemotingServer
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

NO_CONTROLLER = "mqadmin's embedded name server runs no controller (Apache's enableControllerInNamesrv)"


async def refuse(cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
    return cmd.response(
        ResponseCode.REQUEST_CODE_NOT_SUPPORTED, f" request type {cmd.code} not supported: {NO_CONTROLLER}"
    )


def install(server: RemotingServer) -> None:
    for code in CONTROLLER_ADMIN_CODES:
        server.register(code, refuse)
