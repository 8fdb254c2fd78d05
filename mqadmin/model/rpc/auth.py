"""ACL 2.0 user and ACL requests (RocketMQ 5.3+, codes 3001-3010), answered by brokers.

Bodies are fastjson ``UserInfo`` / ``AclInfo`` documents (lists of them for the list requests). A get for
a user or subject that does not exist answers SUCCESS with no body (user), or NO_PERMISSION "The subject
is not exist." (ACL); brokers without an authentication metadata provider answer SYSTEM_ERROR, and
brokers before 5.3 REQUEST_CODE_NOT_SUPPORTED.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqadmin.model.auth import AclInfo, UserInfo
from mqadmin.model.rpc.bodies import JsonBody
from mqadmin.model.rpc.spec import Header, Rpc, wire
from mqadmin.wire.codes import RequestCode as C


@dataclass(frozen=True, slots=True, kw_only=True)
class UsernameHeader(Header):
    username: str = wire("username")


@dataclass(frozen=True, slots=True, kw_only=True)
class ListUsersHeader(Header):
    filter: str | None = wire("filter", None)


@dataclass(frozen=True, slots=True, kw_only=True)
class SubjectHeader(Header):
    subject: str = wire("subject")


@dataclass(frozen=True, slots=True, kw_only=True)
class DeleteAclHeader(Header):
    subject: str = wire("subject")
    policy_type: str | None = wire("policyType", None)
    resource: str | None = wire("resource", None)


@dataclass(frozen=True, slots=True, kw_only=True)
class ListAclsHeader(Header):
    subject_filter: str | None = wire("subjectFilter", None)
    resource_filter: str | None = wire("resourceFilter", None)


def _list_of(kind: Any) -> Any:
    def read(obj: Any) -> list[Any]:
        if not isinstance(obj, list):
            raise ValueError(f"expected a JSON list, not {type(obj).__name__}")
        return [kind.from_json(x) for x in obj]

    return read


USER = JsonBody("UserInfo", UserInfo.from_json, UserInfo.to_json)
USERS = JsonBody("UserInfo list", _list_of(UserInfo), lambda users: [u.to_json() for u in users])
ACL = JsonBody("AclInfo", AclInfo.from_json, AclInfo.to_json)
ACLS = JsonBody("AclInfo list", _list_of(AclInfo), lambda acls: [a.to_json() for a in acls])

AUTH_CREATE_USER = Rpc(C.AUTH_CREATE_USER, "AUTH_CREATE_USER", UsernameHeader, USER, summary="create a user")
AUTH_UPDATE_USER = Rpc(
    C.AUTH_UPDATE_USER,
    "AUTH_UPDATE_USER",
    UsernameHeader,
    USER,
    summary="change a user's password, type or status",
)
AUTH_DELETE_USER = Rpc(
    C.AUTH_DELETE_USER,
    "AUTH_DELETE_USER",
    UsernameHeader,
    summary="delete a user and its ACL",
)
AUTH_GET_USER = Rpc(C.AUTH_GET_USER, "AUTH_GET_USER", UsernameHeader, response_body=USER, summary="one user")
AUTH_LIST_USER = Rpc(
    C.AUTH_LIST_USER,
    "AUTH_LIST_USER",
    ListUsersHeader,
    response_body=USERS,
    summary="users matching a filter",
)
AUTH_CREATE_ACL = Rpc(C.AUTH_CREATE_ACL, "AUTH_CREATE_ACL", SubjectHeader, ACL, summary="add policies to an ACL")
AUTH_UPDATE_ACL = Rpc(C.AUTH_UPDATE_ACL, "AUTH_UPDATE_ACL", SubjectHeader, ACL, summary="replace policy entries")
AUTH_DELETE_ACL = Rpc(
    C.AUTH_DELETE_ACL,
    "AUTH_DELETE_ACL",
    DeleteAclHeader,
    summary="delete a subject's ACL, or one resource of it",
)
AUTH_GET_ACL = Rpc(C.AUTH_GET_ACL, "AUTH_GET_ACL", SubjectHeader, response_body=ACL, summary="a subject's ACL")
AUTH_LIST_ACL = Rpc(
    C.AUTH_LIST_ACL,
    "AUTH_LIST_ACL",
    ListAclsHeader,
    response_body=ACLS,
    summary="ACLs matching subject/resource",
)
