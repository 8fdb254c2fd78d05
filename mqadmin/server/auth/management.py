"""The user and ACL requests (AUTH_CREATE_USER … AUTH_LIST_ACL, 3001-3010) on a broker with ``--auth``,
answered as Apache 5.3's ``AdminBrokerProcessor`` does: SUCCESS, or NO_PERMISSION with its remark.

A user is answered with its password, as Apache does (``copyUser`` needs it; mqadmin never shows it). Only a
Super user may create, change or delete a Super user ("The super user can only be update by super user").
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mqadmin.model.auth import AclInfo, UserInfo
from mqadmin.model.rpc import Decoded
from mqadmin.model.rpc import auth as rpc
from mqadmin.server.auth.guard import ACCESS_KEY
from mqadmin.server.auth.store import AuthRefused, AuthStore
from mqadmin.server.remoting import ClientChannel, RemotingServer
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

SUPER_ONLY = "The super user can only be update by super user"


class AuthManagement:
    def __init__(self, store: AuthStore) -> None:
        self.store = store

    def serve(self, server: RemotingServer) -> None:
        for declared, handler in (
            (rpc.AUTH_CREATE_USER, self.create_user), (rpc.AUTH_UPDATE_USER, self.update_user),
            (rpc.AUTH_DELETE_USER, self.delete_user), (rpc.AUTH_GET_USER, self.get_user),
            (rpc.AUTH_LIST_USER, self.list_users), (rpc.AUTH_CREATE_ACL, self.put_acl),
            (rpc.AUTH_UPDATE_ACL, self.put_acl), (rpc.AUTH_DELETE_ACL, self.delete_acl),
            (rpc.AUTH_GET_ACL, self.get_acl), (rpc.AUTH_LIST_ACL, self.list_acls),
        ):  # fmt: skip
            server.serve(declared, _answering(handler))

    def _by_super(self, cmd: RemotingCommand) -> bool:
        user = self.store.user(cmd.ext.get(ACCESS_KEY, ""))
        return user is not None and user.user_type == "Super"

    def _touches_super(self, username: str, new: UserInfo | None) -> bool:
        old = self.store.user(username)
        return (old is not None and old.user_type == "Super") or (new is not None and new.user_type == "Super")

    def _user_body(self, req: Decoded[rpc.UsernameHeader, UserInfo | None]) -> UserInfo:
        if req.body is None:
            raise AuthRefused("The body of user is null", ResponseCode.SYSTEM_ERROR)
        user = replace(req.body, username=req.header.username)
        if self._touches_super(user.username, user) and not self._by_super(req.cmd):
            raise AuthRefused(SUPER_ONLY)
        return user

    async def create_user(self, req: Decoded[Any, Any]) -> RemotingCommand:
        self.store.create_user(self._user_body(req))
        return req.cmd.response()

    async def update_user(self, req: Decoded[Any, Any]) -> RemotingCommand:
        self.store.update_user(self._user_body(req))
        return req.cmd.response()

    async def delete_user(self, req: Decoded[Any, Any]) -> RemotingCommand:
        if self._touches_super(req.header.username, None) and not self._by_super(req.cmd):
            raise AuthRefused(SUPER_ONLY)
        self.store.delete_user(req.header.username)
        return req.cmd.response()

    async def get_user(self, req: Decoded[Any, Any]) -> RemotingCommand:
        user = self.store.user(req.header.username)
        return rpc.AUTH_GET_USER.answer(req.cmd, body=user)

    async def list_users(self, req: Decoded[Any, Any]) -> RemotingCommand:
        users = self.store.list_users(req.header.filter)
        return rpc.AUTH_LIST_USER.answer(req.cmd, body=users or None)

    async def put_acl(self, req: Decoded[Any, Any]) -> RemotingCommand:
        if req.body is None:
            raise AuthRefused("The body of acl is null", ResponseCode.SYSTEM_ERROR)
        self.store.put_acl(AclInfo(req.header.subject, req.body.policies))
        return req.cmd.response()

    async def delete_acl(self, req: Decoded[Any, Any]) -> RemotingCommand:
        h = req.header
        self.store.delete_acl(h.subject, h.policy_type, h.resource)
        return req.cmd.response()

    async def get_acl(self, req: Decoded[Any, Any]) -> RemotingCommand:
        subject = req.header.subject
        if subject.removeprefix("User:") not in self.store.users:
            raise AuthRefused(f"The subject of {subject} is not exist.")
        return rpc.AUTH_GET_ACL.answer(req.cmd, body=self.store.acl(subject))

    async def list_acls(self, req: Decoded[Any, Any]) -> RemotingCommand:
        acls = self.store.list_acls(req.header.subject_filter, req.header.resource_filter)
        return rpc.AUTH_LIST_ACL.answer(req.cmd, body=acls or None)


def _answering(handler: Any) -> Any:
    """``handler`` as a server handler: a refused change answers its code (NO_PERMISSION) with its remark."""

    async def serve(req: Decoded[Any, Any], ch: ClientChannel) -> RemotingCommand:
        try:
            return await handler(req)
        except AuthRefused as e:
            return req.cmd.response(e.code, str(e))

    return serve
