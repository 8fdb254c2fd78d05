"""A fake broker that keeps ACL 2.0 users and ACLs the way Apache 5.3's broker does (the parts the user/ACL
commands use), including its answers: NO_PERMISSION (16) for "The user is existed" and the like."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from mqadmin.model.auth import AclInfo, Policy, UserInfo
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand
from tests.unit.fake_remoting import FakeBroker, FakeNamesrv

NO = ResponseCode.NO_PERMISSION


@dataclass
class FakeAclBroker(FakeBroker):
    users: dict[str, UserInfo] = field(default_factory=dict)
    acls: dict[str, AclInfo] = field(default_factory=dict)
    acl_enabled: bool = True
    refuse: tuple[int, str] | None = None
    """Answer every request with this (code, remark): a broker refusing the credentials."""

    def _answer(self, cmd: RemotingCommand) -> RemotingCommand:
        if self.refuse is not None:
            return cmd.response(*self.refuse)
        if not RC.AUTH_CREATE_USER <= cmd.code <= RC.AUTH_LIST_ACL:
            return super()._answer(cmd)
        if self.version < 413:  # a 4.9 broker has no such requests
            return cmd.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, f" request type {cmd.code} not supported")
        if not self.acl_enabled:
            return cmd.response(ResponseCode.SYSTEM_ERROR, "An system error occurred, please try again later.")
        return self._auth(cmd)

    def _auth(self, cmd: RemotingCommand) -> RemotingCommand:
        ext, code = cmd.ext, cmd.code
        if code in (RC.AUTH_CREATE_USER, RC.AUTH_UPDATE_USER):
            user = replace(UserInfo.from_json(fastjson.loads(cmd.body)), username=ext["username"])
            old = self.users.get(user.username)
            if code == RC.AUTH_CREATE_USER:
                if old is not None:
                    return cmd.response(NO, "The user is existed")
                self.users[user.username] = replace(
                    user, user_type=user.user_type or "Normal", user_status=user.user_status or "enable"
                )
            else:
                if old is None:
                    return cmd.response(NO, "The user is not exist")
                self.users[user.username] = UserInfo(
                    user.username,
                    user.password or old.password,
                    user.user_type or old.user_type,
                    user.user_status or old.user_status,
                )
            return cmd.response()
        if code == RC.AUTH_DELETE_USER:
            self.users.pop(ext["username"], None)
            self.acls.pop(f"User:{ext['username']}", None)
            return cmd.response()
        if code == RC.AUTH_GET_USER:
            user = self.users.get(ext["username"])
            return cmd.response(body=fastjson.dumps_bytes(user.to_json()) if user else b"")
        if code == RC.AUTH_LIST_USER:
            found = [u.to_json() for n, u in sorted(self.users.items()) if ext.get("filter", "") in n]
            return cmd.response(body=fastjson.dumps_bytes(found) if found else b"")
        subject = ext.get("subject", "")
        if code != RC.AUTH_LIST_ACL and subject.removeprefix("User:") not in self.users:
            return cmd.response(NO, f"The subject of {subject} is not exist.")
        if code in (RC.AUTH_CREATE_ACL, RC.AUTH_UPDATE_ACL):
            new = AclInfo.from_json(fastjson.loads(cmd.body))
            entries = {e.resource: e for p in self.acls.get(subject, AclInfo(subject)).policies for e in p.entries}
            entries.update({e.resource: e for p in new.policies for e in p.entries})
            self.acls[subject] = AclInfo(subject, (Policy(tuple(entries.values()), "Custom"),))
            return cmd.response()
        if code == RC.AUTH_DELETE_ACL:
            acl = self.acls.get(subject)
            if acl is None:
                return cmd.response(NO, "The acl is not exist.")
            resource = ext.get("resource")
            kept = tuple(e for p in acl.policies for e in p.entries if resource and e.resource != resource)
            if kept:
                self.acls[subject] = AclInfo(subject, (Policy(kept, "Custom"),))
            else:
                del self.acls[subject]
            return cmd.response()
        if code == RC.AUTH_GET_ACL:
            acl = self.acls.get(subject)
            return cmd.response(body=fastjson.dumps_bytes(acl.to_json()) if acl else b"")
        found = [a.to_json() for s, a in sorted(self.acls.items()) if ext.get("subjectFilter", "") in s]
        return cmd.response(body=fastjson.dumps_bytes(found) if found else b"")


def acl_cluster() -> tuple[FakeNamesrv, FakeAclBroker, FakeAclBroker]:
    a = FakeAclBroker("broker-a", "127.0.0.1:10911")
    b = FakeAclBroker("broker-b", "127.0.0.1:10921")
    return FakeNamesrv("127.0.0.1:9876", [a, b]), a, b
