"""A broker's ACL 2.0 users and ACLs: what the auth file gives at every start, plus the changes made through
the user/ACL requests, kept in ``<data dir>/config/auth.json`` (written atomically with a backup, like the
broker's other metadata). At start the file's users and ACLs replace the stored ones of the same name;
the others (created at run time) are kept.

The changes follow Apache 5.3's ``AuthenticationMetadataManager`` / ``AuthorizationMetadataManager``:
creating an existing user, or changing a missing one, is refused with NO_PERMISSION and Apache's remark;
a new user is Normal and enabled unless told; creating or updating a policy entry replaces the entry of
the same resource; deleting a user deletes its ACL.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from mqadmin.model.auth import AclInfo, Policy, UserInfo
from mqadmin.server.auth.config import AuthSettings
from mqadmin.server.persist import read_metadata, write_json
from mqadmin.wire.codes import ResponseCode


class AuthRefused(Exception):
    """A user/ACL change Apache refuses: NO_PERMISSION with this remark, or ``code`` (SYSTEM_ERROR for a request
    without its body, which Apache fails on with an exception)."""

    def __init__(self, remark: str, code: int = ResponseCode.NO_PERMISSION) -> None:
        super().__init__(remark)
        self.code = code


class AuthStore:
    def __init__(self, path: Path, settings: AuthSettings, *, reset_unreadable: bool = False) -> None:
        self.path = path
        self.settings = settings
        self._reset = reset_unreadable
        self.users: dict[str, UserInfo] = {}
        self.acls: dict[str, AclInfo] = {}

    def load(self) -> None:
        stored = read_metadata(self.path, _parse, reset=self._reset)
        self.users, self.acls = stored if stored is not None else ({}, {})
        self.users |= {u.username: u for u in self.settings.users}
        self.acls |= {a.subject: a for a in self.settings.acls}
        self._save()

    def _save(self) -> None:
        write_json(
            self.path,
            {
                "users": [u.to_json() for _, u in sorted(self.users.items())],
                "acls": [a.to_json() for _, a in sorted(self.acls.items())],
            },
            private=True,  # passwords, in plain text as Apache keeps them
        )

    def user(self, username: str) -> UserInfo | None:
        return self.users.get(username)

    def acl(self, subject: str) -> AclInfo | None:
        return self.acls.get(subject)

    # --- users -----------------------------------------------------------------------------------

    def create_user(self, user: UserInfo) -> None:
        if user.username in self.users:
            raise AuthRefused("The user is existed")
        if not user.password:
            raise AuthRefused("The password of user is null")
        self.users[user.username] = replace(
            user, user_type=user.user_type or "Normal", user_status=user.user_status or "enable"
        )
        self._save()

    def update_user(self, user: UserInfo) -> None:
        old = self.users.get(user.username)
        if old is None:
            raise AuthRefused("The user is not exist")
        self.users[user.username] = UserInfo(
            user.username,
            user.password or old.password,
            user.user_type or old.user_type,
            user.user_status or old.user_status,
        )
        self._save()

    def delete_user(self, username: str) -> None:
        user, acl = self.users.pop(username, None), self.acls.pop(f"User:{username}", None)
        if user is not None or acl is not None:
            self._save()

    def list_users(self, filter_: str | None) -> list[UserInfo]:
        return [u for name, u in sorted(self.users.items()) if (filter_ or "") in name]

    # --- ACLs ------------------------------------------------------------------------------------

    def _subject_user(self, subject: str) -> None:
        if subject.removeprefix("User:") not in self.users:
            raise AuthRefused(f"The subject of {subject} is not exist.")

    def put_acl(self, acl: AclInfo) -> None:
        """Create or update: each entry replaces the subject's entry of the same resource (per policy type)."""
        self._subject_user(acl.subject)
        old = self.acls.get(acl.subject, AclInfo(acl.subject))
        by_type: dict[str, dict[str, Any]] = {}
        for policy in (*old.policies, *acl.policies):
            entries = by_type.setdefault(policy.policy_type or "Custom", {})
            entries.update({e.resource: e for e in policy.entries})
        policies = tuple(Policy(tuple(entries.values()), kind) for kind, entries in by_type.items() if entries)
        self.acls[acl.subject] = AclInfo(acl.subject, policies)
        self._save()

    def delete_acl(self, subject: str, policy_type: str | None, resource: str | None) -> None:
        acl = self.acls.get(subject)
        if acl is None:
            raise AuthRefused("The acl is not exist.")
        kept = []
        for policy in acl.policies:
            if policy_type and (policy.policy_type or "Custom") != policy_type:
                kept.append(policy)
                continue
            entries = tuple(e for e in policy.entries if resource and e.resource != resource)
            if entries:
                kept.append(Policy(entries, policy.policy_type))
        if kept:
            self.acls[subject] = AclInfo(subject, tuple(kept))
        else:
            del self.acls[subject]
        self._save()

    def list_acls(self, subject_filter: str | None, resource_filter: str | None) -> list[AclInfo]:
        found = []
        for subject, acl in sorted(self.acls.items()):
            if subject_filter and subject_filter not in subject:
                continue
            if resource_filter:
                policies = tuple(
                    Policy(tuple(e for e in p.entries if resource_filter in e.resource), p.policy_type)
                    for p in acl.policies
                )
                acl = AclInfo(subject, tuple(p for p in policies if p.entries))
                if not acl.policies:
                    continue
            found.append(acl)
        return found


def _parse(obj: Any) -> tuple[dict[str, UserInfo], dict[str, AclInfo]]:
    if not isinstance(obj, dict) or not isinstance(obj.get("users"), list) or not isinstance(obj.get("acls"), list):
        raise ValueError("is not an object with the lists users and acls")
    users = [UserInfo.from_json(u) for u in obj["users"] if isinstance(u, dict)]
    acls = [AclInfo.from_json(a) for a in obj["acls"] if isinstance(a, dict)]
    return {u.username: u for u in users if u.username}, {a.subject: a for a in acls if a.subject}
