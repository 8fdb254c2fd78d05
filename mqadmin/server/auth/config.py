"""The ``--auth FILE`` of ``mqadmin dev up``: ACL 2.0 users and ACLs in TOML, checked whole before a server
starts (``AuthFileError``: one line naming the entry and what is wrong).

```toml
[[users]]
username = "admin"
password = "admin-secret"
type = "Super"            # Super | Normal (default Normal)
status = "enable"         # enable | disable (default enable)

[[acls]]
subject = "User:alice"
policies = [
  { resource = "Topic:Orders", actions = ["Pub"], decision = "Allow" },
  { resource = "Group:G*", actions = ["Sub"], decision = "Allow", sourceIps = ["127.0.0.1"] },
]
```
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mqadmin.model.auth import (
    ACTIONS,
    DECISIONS,
    USER_STATUSES,
    USER_TYPES,
    AclInfo,
    Policy,
    PolicyEntry,
    UserInfo,
    canonical,
    check_resource,
    check_source_ip,
    check_subject,
)


class AuthFileError(ValueError):
    """An auth file that cannot be used; the message is one line naming the file and the entry."""


@dataclass(frozen=True, slots=True)
class AuthSettings:
    """Authentication and authorization on, with these users and ACLs to start from."""

    users: tuple[UserInfo, ...]
    acls: tuple[AclInfo, ...] = ()

    @property
    def internal(self) -> UserInfo:
        """The first Super user: what the embedded brokers sign their registrations with."""
        return next(u for u in self.users if u.user_type == "Super")


def load_auth_file(path: Path) -> AuthSettings:
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise AuthFileError(f"{path}: cannot read it: {e.strerror or e}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise AuthFileError(f"{path}: not valid TOML: {e}") from None
    try:
        return parse_auth(doc)
    except ValueError as e:
        raise AuthFileError(f"{path}: {e}") from None


def parse_auth(doc: dict[str, Any]) -> AuthSettings:
    """The settings in a decoded auth file; ValueError naming the entry."""
    unknown = set(doc) - {"users", "acls"}
    if unknown:
        raise ValueError(f"unknown key {sorted(unknown)[0]!r} (the file has [[users]] and [[acls]])")
    users = tuple(_user(i, u) for i, u in enumerate(_tables(doc, "users")))
    names = [u.username for u in users]
    for name in names:
        if names.count(name) > 1:
            raise ValueError(f"user {name!r} is defined twice")
    if not any(u.user_type == "Super" for u in users):
        raise ValueError(
            'no Super user: add one ([[users]] with type = "Super"); the brokers register with its keys '
            "and only a Super user can manage users and ACLs at first"
        )
    acls = tuple(_acl(i, a, set(names)) for i, a in enumerate(_tables(doc, "acls")))
    subjects = [a.subject for a in acls]
    for subject in subjects:
        if subjects.count(subject) > 1:
            raise ValueError(f"the ACL of {subject} is defined twice (put all its policies in one [[acls]])")
    return AuthSettings(users, acls)


def _tables(doc: dict[str, Any], key: str) -> list[dict[str, Any]]:
    items = doc.get(key, [])
    if not isinstance(items, list) or not all(isinstance(x, dict) for x in items):
        raise ValueError(f"{key} must be a list of tables ([[{key}]])")
    return items


def _keys(where: str, obj: dict[str, Any], allowed: set[str]) -> None:
    unknown = set(obj) - allowed
    if unknown:
        raise ValueError(f"{where}: unknown key {sorted(unknown)[0]!r} (known: {', '.join(sorted(allowed))})")


def _text(where: str, obj: dict[str, Any], key: str, default: str | None = None) -> str:
    value = obj.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: {key} must be a non-empty string")
    return value


def _user(i: int, obj: dict[str, Any]) -> UserInfo:
    where = f"users[{i}]" + (f" ({obj['username']})" if isinstance(obj.get("username"), str) else "")
    _keys(where, obj, {"username", "password", "type", "status"})
    name = _text(where, obj, "username")
    if ":" in name or name != name.strip():
        raise ValueError(f"{where}: username {name!r} may not contain ':' or surrounding spaces")
    try:
        kind = canonical(_text(where, obj, "type", "Normal"), USER_TYPES, "user type")
        status = canonical(_text(where, obj, "status", "enable"), USER_STATUSES, "user status")
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    return UserInfo(name, _text(where, obj, "password"), kind, status)


def _acl(i: int, obj: dict[str, Any], users: set[str]) -> AclInfo:
    where = f"acls[{i}]" + (f" ({obj['subject']})" if isinstance(obj.get("subject"), str) else "")
    _keys(where, obj, {"subject", "policies"})
    try:
        subject = check_subject(_text(where, obj, "subject"))
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    if subject.removeprefix("User:") not in users:
        raise ValueError(f"{where}: {subject} is not a user of this file (add it under [[users]])")
    policies = obj.get("policies")
    if not isinstance(policies, list) or not policies or not all(isinstance(p, dict) for p in policies):
        raise ValueError(f"{where}: policies must be a non-empty list of tables")
    return AclInfo(
        subject, (Policy(tuple(_entry(f"{where} policies[{j}]", p) for j, p in enumerate(policies)), "Custom"),)
    )


def _entry(where: str, obj: dict[str, Any]) -> PolicyEntry:
    _keys(where, obj, {"resource", "actions", "decision", "sourceIps"})
    actions, ips = obj.get("actions"), obj.get("sourceIps", [])
    if not isinstance(actions, list) or not actions or not all(isinstance(a, str) for a in actions):
        raise ValueError(f'{where}: actions must be a non-empty list such as ["Pub", "Sub"]')
    if not isinstance(ips, list) or not all(isinstance(ip, str) for ip in ips):
        raise ValueError(f"{where}: sourceIps must be a list of IP addresses or CIDR blocks")
    try:
        return PolicyEntry(
            check_resource(_text(where, obj, "resource")),
            tuple(canonical(a, ACTIONS, "action") for a in actions),
            canonical(_text(where, obj, "decision"), DECISIONS, "decision"),
            tuple(check_source_ip(ip) for ip in ips),
        )
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
