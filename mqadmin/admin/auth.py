"""ACL 2.0 users and ACLs (RocketMQ 5.3+), and telling an authentication or authorization refusal apart
from the other errors brokers answer with the same code.

Each broker keeps its own users and ACLs, so the changing operations act on one target each and the
commands fan them out (to every address of a cluster: masters and slaves, as Java mqadmin does). Every
change reads first and sends nothing when the broker already holds what was asked (``unchanged``), so a
fan-out can be run again after a broker was down.

Refusals (Apache ``AuthenticationPipeline`` / ``AuthorizationPipeline``): both answer NO_PERMISSION (16)
with the exception's message, the same code the user/ACL requests use for "The user is existed" and
the like; the message tells them apart (``auth_refusal``).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from mqadmin.admin.core import AdminCore
from mqadmin.admin.errors import AdminError, ResponseError
from mqadmin.admin.fanout import Target, fan_out
from mqadmin.admin.results import Status, TargetResult
from mqadmin.model.auth import AclInfo, Policy, PolicyEntry, UserInfo
from mqadmin.model.rpc import auth as rpc
from mqadmin.model.rpc.spec import RB, RH, B, H, Reply, Rpc
from mqadmin.transport.errors import TransportError
from mqadmin.wire.codes import ResponseCode

AUTHENTICATION = "authentication"
AUTHORIZATION = "authorization"

_AUTHENTICATION = re.compile(
    r"check signature failed|^user:.* is (not found|disabled)|username cannot be null|^authentication failed"
    r"|authentication (header|keyvalues|credential)|create authentication context|^datetime is null"
    r"|aclexception",  # ACL 1.0 (4.9 aclEnable): the validator's exception, answered as SYSTEM_ERROR
    re.I,
)
_AUTHORIZATION = re.compile(
    r"has no permission to access|^authorization failed|^user:.* not found\.?$|can only be \w+ by super user", re.I
)


def auth_refusal(code: int, remark: str | None) -> str | None:
    """``authentication`` when the broker did not accept who is asking, ``authorization`` when that user may
    not do this, None for any other answer."""
    text = (remark or "").strip()
    if code == ResponseCode.NO_PERMISSION:
        if _AUTHENTICATION.search(text):
            return AUTHENTICATION
        if _AUTHORIZATION.search(text):
            return AUTHORIZATION
    elif code == ResponseCode.SYSTEM_ERROR and "AclException" in text:
        return AUTHENTICATION
    return None


def refusal_of(error: Exception | None) -> str | None:
    """``auth_refusal`` of a failure: a server's refusal by its response code (and remark), None for any other."""
    return auth_refusal(error.code, error.remark) if isinstance(error, ResponseError) else None


NO_AUTH_HINT = (
    "is ACL 2.0 on? brokers 5.3+ need authenticationEnabled=true and authenticationMetadataProvider / "
    "authorizationMetadataProvider in broker.conf; older brokers have no user/ACL requests"
)


def no_auth_on_broker(e: ResponseError) -> bool:
    """The answer of a broker without ACL 2.0 to a user/ACL request: REQUEST_CODE_NOT_SUPPORTED before 5.3,
    SYSTEM_ERROR "An system error occurred" (no metadata provider configured) after."""
    if e.code == ResponseCode.REQUEST_CODE_NOT_SUPPORTED:
        return True
    return e.code == ResponseCode.SYSTEM_ERROR and "system error occurred" in e.remark.lower()


class AuthNotEnabled(AdminError):
    """A broker without ACL 2.0 answered a user/ACL request."""

    PREFIX = "ACL 2.0 is not enabled on"

    def __init__(self, error: ResponseError) -> None:
        self.addr = error.addr
        self.error = error
        super().__init__(f"{self.PREFIX} {error.addr} (it answered {error.describe()})")


def _same_entry(a: PolicyEntry, b: PolicyEntry) -> bool:
    return (
        a.resource == b.resource
        and {x.lower() for x in a.actions} == {x.lower() for x in b.actions}
        and a.decision.lower() == b.decision.lower()
        and set(a.source_ips) == set(b.source_ips)
    )


def describe_entry(e: PolicyEntry | None) -> str | None:
    """``Pub,Sub Allow from 10.0.0.0/8`` (None for no entry)."""
    if e is None:
        return None
    ips = f" from {','.join(e.source_ips)}" if e.source_ips else ""
    return f"{','.join(e.actions)} {e.decision}{ips}"


def custom_entries(acl: AclInfo | None) -> dict[str, PolicyEntry]:
    """Resource -> entry of the ACL's Custom policy (the one the commands write)."""
    if acl is None:
        return {}
    return {e.resource: e for p in acl.policies if (p.policy_type or "Custom") == "Custom" for e in p.entries}


class AuthOps(AdminCore):
    async def _auth_request(
        self, addr: str, rpc_: Rpc[H, B, RH, RB], header: H, body: B | None = None
    ) -> Reply[RH, RB]:
        """A user/ACL request; a broker without ACL 2.0 raises ``AuthNotEnabled``."""
        try:
            return await self.request(addr, rpc_, header, body)
        except ResponseError as e:
            if no_auth_on_broker(e):
                raise AuthNotEnabled(e) from None
            raise

    # --- reading (one broker) ----------------------------------------------------------------------

    async def get_user(self, addr: str, username: str) -> UserInfo | None:
        reply = await self._auth_request(addr, rpc.AUTH_GET_USER, rpc.UsernameHeader(username=username))
        return reply.body

    async def list_users(self, addr: str, filter: str | None = None) -> list[UserInfo]:
        reply = await self._auth_request(addr, rpc.AUTH_LIST_USER, rpc.ListUsersHeader(filter=filter or None))
        return reply.body or []

    async def get_acl(self, addr: str, subject: str) -> AclInfo | None:
        reply = await self._auth_request(addr, rpc.AUTH_GET_ACL, rpc.SubjectHeader(subject=subject))
        return reply.body

    async def list_acls(self, addr: str, subject: str | None = None, resource: str | None = None) -> list[AclInfo]:
        header = rpc.ListAclsHeader(subject_filter=subject or None, resource_filter=resource or None)
        return (await self._auth_request(addr, rpc.AUTH_LIST_ACL, header)).body or []

    # --- users -------------------------------------------------------------------------------------

    async def create_user(self, target: Target, user: UserInfo) -> TargetResult:
        """created; unchanged when the broker holds the same user; failed when it holds one that differs."""
        current = await self.get_user(target.addr, user.username)
        if current is not None:
            if not _user_changes(current, user):
                return TargetResult(target.name, target.addr, Status.UNCHANGED, data=current)
            reason = f"user {user.username} exists with other settings (change them with updateUser)"
            return TargetResult(target.name, target.addr, Status.FAILED, reason)
        await self._auth_request(target.addr, rpc.AUTH_CREATE_USER, rpc.UsernameHeader(username=user.username), user)
        return TargetResult(target.name, target.addr, Status.CREATED, data=user)

    async def update_user(self, target: Target, change: UserInfo) -> TargetResult:
        """Change the fields ``change`` sets (password, type, status); failed when there is no such user."""
        current = await self.get_user(target.addr, change.username)
        if current is None:
            reason = f"no user {change.username} (create it with createUser)"
            return TargetResult(target.name, target.addr, Status.FAILED, reason)
        changes = _user_changes(current, change)
        if not changes:
            return TargetResult(target.name, target.addr, Status.UNCHANGED, data=current)
        await self._auth_request(
            target.addr, rpc.AUTH_UPDATE_USER, rpc.UsernameHeader(username=change.username), change
        )
        return TargetResult(target.name, target.addr, Status.UPDATED, changes=changes, data=change)

    async def delete_user(self, target: Target, username: str, *, dry_run: bool = False) -> TargetResult:
        """deleted (the broker deletes the user's ACL with it), or not found."""
        current = await self.get_user(target.addr, username)
        if current is None:
            return TargetResult(target.name, target.addr, Status.NOT_FOUND)
        if not dry_run:
            await self._auth_request(target.addr, rpc.AUTH_DELETE_USER, rpc.UsernameHeader(username=username))
        return TargetResult(target.name, target.addr, Status.DELETED, data=current)

    async def create_user_on(self, targets: list[Target], user: UserInfo) -> list[TargetResult]:
        return await fan_out(targets, lambda t: self.create_user(t, user))

    async def update_user_on(self, targets: list[Target], change: UserInfo) -> list[TargetResult]:
        return await fan_out(targets, lambda t: self.update_user(t, change))

    async def delete_user_on(self, targets: list[Target], username: str, *, dry_run: bool) -> list[TargetResult]:
        return await fan_out(targets, lambda t: self.delete_user(t, username, dry_run=dry_run))

    # --- ACLs --------------------------------------------------------------------------------------

    async def put_acl(self, target: Target, acl: AclInfo, *, create: bool) -> TargetResult:
        """Add or replace the entries of ``acl`` (per resource) in the subject's ACL, as Apache's createAcl and
        updateAcl both do: created (no ACL before), updated (with old -> new per resource) or unchanged."""
        current = await self.get_acl(target.addr, acl.subject)
        held = custom_entries(current)
        changes: dict[str, tuple[Any, Any]] = {}
        for entry in (e for p in acl.policies for e in p.entries):
            old = held.get(entry.resource)
            if old is None or not _same_entry(old, entry):
                changes[entry.resource] = (describe_entry(old), describe_entry(entry))
        if not changes:
            return TargetResult(target.name, target.addr, Status.UNCHANGED, data=current)
        rpc_ = rpc.AUTH_CREATE_ACL if create else rpc.AUTH_UPDATE_ACL
        await self._auth_request(target.addr, rpc_, rpc.SubjectHeader(subject=acl.subject), acl)
        status = Status.CREATED if current is None or not current.policies else Status.UPDATED
        return TargetResult(target.name, target.addr, status, changes=changes, data=acl)

    async def delete_acl(
        self, target: Target, subject: str, resource: str | None = None, *, dry_run: bool = False
    ) -> TargetResult:
        """Delete the subject's whole ACL, or the entry of one resource: deleted, or not found."""
        current = await self.get_acl(target.addr, subject)
        held = custom_entries(current)
        if current is None or not current.policies or (resource is not None and resource not in held):
            return TargetResult(target.name, target.addr, Status.NOT_FOUND)
        if not dry_run:
            header = rpc.DeleteAclHeader(subject=subject, resource=resource)
            await self._auth_request(target.addr, rpc.AUTH_DELETE_ACL, header)
        changes = {resource: (describe_entry(held[resource]), None)} if resource else {}
        return TargetResult(target.name, target.addr, Status.DELETED, changes=changes, data=current)

    async def put_acl_on(self, targets: list[Target], acl: AclInfo, *, create: bool) -> list[TargetResult]:
        return await fan_out(targets, lambda t: self.put_acl(t, acl, create=create))

    async def delete_acl_on(
        self, targets: list[Target], subject: str, resource: str | None, *, dry_run: bool
    ) -> list[TargetResult]:
        return await fan_out(targets, lambda t: self.delete_acl(t, subject, resource, dry_run=dry_run))

    # --- copying between brokers -------------------------------------------------------------------

    async def copy_users(self, source: str, target: Target, usernames: list[str] | None) -> list[TargetResult]:
        """Every user of ``source`` (or the ones named) onto ``target``: one row per user (``name`` = the user)."""
        users = await self._source_users(source, usernames)

        async def one(user: UserInfo) -> TargetResult:
            row = Target(user.username, target.addr)
            if await self.get_user(target.addr, user.username) is None:
                return await self.create_user(row, user)
            return await self.update_user(row, user)

        return await _each(users, lambda u: u.username, target.addr, one)

    async def _source_users(self, source: str, usernames: list[str] | None) -> list[UserInfo]:
        if not usernames:
            return await self.list_users(source)
        found = [await self.get_user(source, name) for name in usernames]
        return [u for u in found if u is not None]

    async def copy_acls(self, source: str, target: Target, subjects: list[str] | None) -> list[TargetResult]:
        """Every ACL of ``source`` (or the subjects named) onto ``target``: one row per subject."""
        if subjects:
            acls = [a for a in [await self.get_acl(source, s) for s in subjects] if a is not None]
        else:
            acls = await self.list_acls(source)

        async def one(acl: AclInfo) -> TargetResult:
            custom = AclInfo(acl.subject, tuple(_as_custom(p) for p in acl.policies if p.entries))
            return await self.put_acl(Target(acl.subject, target.addr), custom, create=True)

        return await _each(acls, lambda a: a.subject, target.addr, one)


async def _each(items: list[Any], name: Any, addr: str, op: Any) -> list[TargetResult]:
    """``op`` on each item in turn (one broker: no point in racing it), a failure recorded on its row."""
    results = []
    for item in items:
        try:
            results.append(await op(item))
        except (AdminError, TransportError) as e:
            results.append(TargetResult.failure(name(item), addr, e))
    return results


def _as_custom(policy: Policy) -> Policy:
    return replace(policy, policy_type=policy.policy_type or "Custom")


def _user_changes(current: UserInfo, wanted: UserInfo) -> dict[str, tuple[Any, Any]]:
    """Field -> (old, new) for what ``wanted`` sets differently; passwords are shown as ``***``."""
    changes: dict[str, tuple[Any, Any]] = {}
    if wanted.password is not None and wanted.password != current.password:
        changes["password"] = ("***", "***")
    if wanted.user_type is not None and (current.user_type or "").lower() != wanted.user_type.lower():
        changes["userType"] = (current.user_type, wanted.user_type)
    if wanted.user_status is not None and (current.user_status or "").lower() != wanted.user_status.lower():
        changes["userStatus"] = (current.user_status, wanted.user_status)
    return changes
