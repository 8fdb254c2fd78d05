"""Deciding one ACL 2.0 access as Apache 5.3+'s ``AclAuthorizationHandler`` does: of a subject's policy
entries (its Custom policy, else its Default one) those matching the resource, one of the actions and the
source IP are ranked (a literal name before a prefix before ``Type:*`` before ``*``; a longer prefix
first; Deny before Allow at equal rank) and the first decides. No match refuses."""

from __future__ import annotations

import ipaddress

from mqadmin.model.auth import AclInfo, PolicyEntry


def decide(acl: AclInfo | None, resource: str, actions: tuple[str, ...], source_ip: str) -> str | None:
    """None when allowed, else why not (Apache's wording after the comma)."""
    entries = []
    for policy_type in ("Custom", "Default"):
        policies = [p for p in (acl.policies if acl else ()) if (p.policy_type or "Custom") == policy_type]
        entries = [e for p in policies for e in p.entries if _matches(e, resource, actions, source_ip)]
        if entries:
            break
    if not entries:
        return "no matched policies."
    best = min(entries, key=lambda e: (*_rank(e.resource), e.decision != "Deny"))
    return "the decision is deny." if best.decision == "Deny" else None


def _rank(resource: str) -> tuple[int, int]:
    if resource == "*":
        return (3, 0)
    name = resource.partition(":")[2]
    if name == "*":
        return (2, 0)
    if name.endswith("*"):
        return (1, -len(name))
    return (0, 0)


def _matches(entry: PolicyEntry, resource: str, actions: tuple[str, ...], source_ip: str) -> bool:
    return (
        _resource_matches(entry.resource, resource)
        and ("All" in entry.actions or any(a in entry.actions for a in actions))
        and (not entry.source_ips or _ip_in(source_ip, entry.source_ips))
    )


def _resource_matches(pattern: str, resource: str) -> bool:
    if pattern == "*":
        return True
    kind, _, name = pattern.partition(":")
    want_kind, _, want_name = resource.partition(":")
    if kind != want_kind:
        return False
    if name.endswith("*"):
        return want_name.startswith(name[:-1])
    return name == want_name


def _ip_in(ip: str, networks: tuple[str, ...]) -> bool:
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return False
    return any(addr in ipaddress.ip_network(n, strict=False) for n in networks)
