"""ACL 2.0 (RocketMQ 5.3+) users and ACLs as the brokers send them (``UserInfo``, ``AclInfo`` bodies), and
the checks mqadmin makes before sending one (the broker would drop an unknown action silently, turn an
unknown user type into Normal, or refuse with a vague remark)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import Any

USER_TYPES = ("Super", "Normal")
USER_STATUSES = ("enable", "disable")
ACTIONS = ("All", "Pub", "Sub", "Create", "Update", "Delete", "Get", "List")
DECISIONS = ("Allow", "Deny")
RESOURCE_TYPES = ("Cluster", "Namespace", "Topic", "Group")
POLICY_TYPES = ("Custom", "Default")


@dataclass(frozen=True, slots=True)
class UserInfo:
    username: str
    password: str | None = field(default=None, repr=False)
    user_type: str | None = None
    """``Super`` or ``Normal``."""
    user_status: str | None = None
    """``enable`` or ``disable``."""

    def to_json(self) -> dict[str, Any]:
        doc = {"username": self.username, "password": self.password, "userType": self.user_type}
        doc["userStatus"] = self.user_status
        return {k: v for k, v in doc.items() if v is not None}

    @classmethod
    def from_json(cls, obj: Any) -> UserInfo:
        return cls(
            username=str(obj.get("username") or ""),
            password=obj.get("password"),
            user_type=obj.get("userType"),
            user_status=obj.get("userStatus"),
        )


@dataclass(frozen=True, slots=True)
class PolicyEntry:
    resource: str
    """``Topic:Orders``, ``Group:g*`` (prefix), ``Topic:*``, ``Cluster:DefaultCluster`` or ``*``."""
    actions: tuple[str, ...]
    decision: str
    source_ips: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"resource": self.resource, "actions": list(self.actions), "decision": self.decision}
        if self.source_ips:
            doc["sourceIps"] = list(self.source_ips)
        return doc

    @classmethod
    def from_json(cls, obj: Any) -> PolicyEntry:
        return cls(
            resource=str(obj.get("resource") or ""),
            actions=tuple(str(a) for a in obj.get("actions") or ()),
            decision=str(obj.get("decision") or ""),
            source_ips=tuple(str(ip) for ip in obj.get("sourceIps") or ()),
        )


@dataclass(frozen=True, slots=True)
class Policy:
    entries: tuple[PolicyEntry, ...]
    policy_type: str | None = None
    """``Custom`` (what the commands create) or ``Default``; None lets the broker choose (Custom)."""

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"entries": [e.to_json() for e in self.entries]}
        if self.policy_type:
            doc["policyType"] = self.policy_type
        return doc

    @classmethod
    def from_json(cls, obj: Any) -> Policy:
        return cls(
            entries=tuple(PolicyEntry.from_json(e) for e in obj.get("entries") or ()),
            policy_type=obj.get("policyType"),
        )


@dataclass(frozen=True, slots=True)
class AclInfo:
    subject: str
    """``User:alice``."""
    policies: tuple[Policy, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"subject": self.subject, "policies": [p.to_json() for p in self.policies]}

    @classmethod
    def from_json(cls, obj: Any) -> AclInfo:
        return cls(
            subject=str(obj.get("subject") or ""),
            policies=tuple(Policy.from_json(p) for p in obj.get("policies") or ()),
        )

    @classmethod
    def of(
        cls, subject: str, resources: list[str], actions: list[str], decision: str, source_ips: list[str] | None = None
    ) -> AclInfo:
        """One Custom-type policy with one entry per resource (what Java's createAcl/updateAcl send)."""
        entries = tuple(PolicyEntry(r, tuple(actions), decision, tuple(source_ips or ())) for r in resources)
        return cls(subject, (Policy(entries),))

    def rows(self) -> list[tuple[str, str, PolicyEntry | None]]:
        """(subject, policy type, entry) per entry; one row with no entry for an ACL without any."""
        out: list[tuple[str, str, PolicyEntry | None]] = [
            (self.subject, p.policy_type or "", e) for p in self.policies for e in p.entries
        ]
        return out or [(self.subject, "", None)]


# --- checks ------------------------------------------------------------------------------------------


def canonical(value: str, allowed: tuple[str, ...], what: str) -> str:
    """``value`` spelled as the broker names it (matched in any case, as the broker does); ValueError else."""
    for name in allowed:
        if name.lower() == value.strip().lower():
            return name
    raise ValueError(f"{value!r} is not a known {what} (one of: {', '.join(allowed)})")


def check_subject(subject: str) -> str:
    kind, sep, name = subject.strip().partition(":")
    if not sep or kind.lower() != "user" or not name:
        raise ValueError(f"{subject!r} is not a subject: write User:NAME")
    return f"User:{name}"


def check_resource(resource: str) -> str:
    text = resource.strip()
    if text == "*":
        return text
    kind, sep, name = text.partition(":")
    if not sep or not name:
        raise ValueError(f"{resource!r} is not a resource: write TYPE:NAME, TYPE:PREFIX*, TYPE:* or *")
    return f"{canonical(kind, RESOURCE_TYPES, 'resource type')}:{name}"


def check_source_ip(value: str) -> str:
    text = value.strip()
    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise ValueError(f"{value!r} is not an IP address or CIDR block") from None
    return text


def split_list(value: str | None) -> list[str]:
    """Java's comma-separated option values, trimmed, empty items dropped."""
    return [v.strip() for v in (value or "").split(",") if v.strip()]
