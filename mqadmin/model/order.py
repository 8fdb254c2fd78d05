"""orderTopicConf: ``brokerName:queueNums;…`` per ordered topic, kept in the name servers' KV store
(namespace ``ORDER_TOPIC_CONFIG``) and returned in routes."""

from __future__ import annotations

ORDER_TOPIC_CONFIG = "ORDER_TOPIC_CONFIG"
"""The name-server KV namespace holding orderTopicConf per ordered topic."""


def parse_order_conf(value: str) -> dict[str, int]:
    """``broker-a:8;broker-b:8`` into ``{"broker-a": 8, "broker-b": 8}`` (malformed entries are dropped)."""
    out: dict[str, int] = {}
    for entry in value.split(";"):
        name, sep, num = entry.strip().rpartition(":")
        if sep and name.strip() and num.strip().isdigit():
            out[name.strip()] = int(num)
    return out


def order_conf_problem(value: str) -> str | None:
    """Why ``value`` is not a well-formed orderTopicConf, or None."""
    entries = [e for e in value.split(";") if e.strip()]
    if not entries:
        return "it lists no broker"
    bad = [e.strip() for e in entries if not parse_order_conf(e)]
    if bad:
        return f"{bad[0]!r} is not brokerName:queueNums"
    names = [next(iter(parse_order_conf(e))) for e in entries]
    dup = next((n for n in names if names.count(n) > 1), None)
    return f"broker {dup!r} is listed twice" if dup else None


def format_order_conf(entries: dict[str, int]) -> str:
    return ";".join(f"{name}:{n}" for name, n in sorted(entries.items()))
