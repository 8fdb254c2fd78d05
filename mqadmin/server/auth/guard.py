"""ACL 2.0 on an embedded broker (``RemotingServer.guard``), as Apache 5.3+ brokers do with
``authenticationEnabled`` and ``authorizationEnabled``. The name server checks nothing, as Apache's.

Authentication: every request carries ``AccessKey`` (the username) and ``Signature``, the HMAC-SHA1 of its
ext fields sorted by name (``Signature`` left out) followed by its body, keyed with the user's password
(``mqadmin.wire.signing``, what our client and Java's ``AclClientRPCHook`` send). A request without an
access key, of an unknown or disabled user, or with a wrong signature is answered NO_PERMISSION (16)
with Apache's remark (``username cannot be null.``, ``User:bob is not found.``, ``User:bob is disabled.``,
``check signature failed.``) and never reaches its handler.

Authorization: a Super user may do everything; a Normal user needs, for each resource the request
touches (Apache 5.5.0's rule for its code and its declaration's ``access`` rule: ``mqadmin.model.access``), a
policy that allows one of the actions (``mqadmin.server.auth.policy``). A request served without a declaration
is authorized by Apache's rule alone, from its ext fields. Refused: NO_PERMISSION, ``User:bob has no
permission to access Topic:Other from 127.0.0.1, no matched policies.``
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import Any

from mqadmin.model.access import CLUSTER, needs
from mqadmin.model.auth import AclInfo, UserInfo
from mqadmin.model.names import clipped
from mqadmin.model.rpc.spec import Decoded, Rpc
from mqadmin.server.auth.policy import decide
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand
from mqadmin.wire.signing import sign

ACCESS_KEY = "AccessKey"
SIGNATURE = "Signature"


class Guard:
    """``users`` finds a user by name, ``acls`` a subject's ACL; ``cluster`` names the ``Cluster`` resource."""

    def __init__(
        self, users: Callable[[str], UserInfo | None], acls: Callable[[str], AclInfo | None], cluster: str
    ) -> None:
        self._users = users
        self._acls = acls
        self._cluster = cluster

    def authenticate(self, cmd: RemotingCommand) -> RemotingCommand | None:
        """The refusal of a request that is not signed by an enabled user, or None."""
        name = cmd.ext.get(ACCESS_KEY)
        if not name:
            return _refuse(cmd, "username cannot be null.")
        user = self._users(name)
        if user is None:
            return _refuse(cmd, f"User:{clipped(name)} is not found.")
        if user.user_status == "disable":
            return _refuse(cmd, f"User:{name} is disabled.")
        expected = sign(cmd.ext, cmd.body, user.password or "")
        if not hmac.compare_digest(expected.encode(), cmd.ext.get(SIGNATURE, "").encode("utf-8", "surrogateescape")):
            return _refuse(cmd, "check signature failed.")
        return None

    def authorize(
        self, cmd: RemotingCommand, rpc: Rpc[Any, Any, Any, Any] | None, req: Decoded[Any, Any] | None, source_ip: str
    ) -> RemotingCommand | None:
        """The refusal of a request its (authenticated) user may not make, or None. ``rpc`` and ``req`` are its
        declaration and decoded form, None for a request served raw."""
        header, body = (req.header, req.body) if req is not None else (None, None)
        wanted = needs(cmd.code, rpc.access if rpc is not None else None, cmd.ext, header, body)
        if not wanted:
            return None
        name = cmd.ext[ACCESS_KEY]
        user = self._users(name)
        if user is None:  # deleted since it was authenticated (Apache's UserAuthorizationHandler remark)
            return _refuse(cmd, f"User:{clipped(name)} not found.")
        if user.user_type == "Super":
            return None
        acl = self._acls(f"User:{name}")
        for need in wanted:
            resource = f"{CLUSTER}:{self._cluster}" if need.resource == CLUSTER else need.resource
            why = decide(acl, resource, need.actions, source_ip)
            if why is not None:
                denied = f"User:{name} has no permission to access {clipped(resource)} from {source_ip}, {why}"
                return _refuse(cmd, denied)
        return None


def _refuse(cmd: RemotingCommand, remark: str) -> RemotingCommand:
    return cmd.response(ResponseCode.NO_PERMISSION, remark)
