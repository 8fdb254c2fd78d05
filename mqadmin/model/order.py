"""orderTopicConf: ``brokerName:queueNums;…`` per ordered topic, kept in the name servers' KV store
(namespace ``ORDER_TOPIC_CONFIG``) and returned in routes."""

from __future__ import annotations

import re

ORDER_TOPIC_CONFIG = "ORDER_TOPIC_CONFIG"
"""The name-server KV namespace holding orderTopicConf per ordered topic."""

ORDER_CONF_ENTRY = r"^(.*):([0-9]+)$"
"""One entry, trimmed of spaces: the broker name is everything before the last colon, the queue
count ASCII digits. The audit job (mqadmin/audit/job.py, which imports nothing from mqadmin) uses
the same pattern in Spark SQL and in Python; a test checks that it is this one."""
_ENTRY = re.compile(ORDER_CONF_ENTRY)


def order_conf_entries(value: str) -> list[str]:
    """The entries of ``b:n;b:n``, trimmed of spaces, blanks dropped."""
    return [e for e in (e.strip(" ") for e in value.split(";")) if e]


def parse_order_conf(value: str) -> dict[str, int]:
    """``broker-a:8;broker-b:8`` into ``{"broker-a": 8, "broker-b": 8}`` (malformed entries are dropped)."""
    out: dict[str, int] = {}
    for entry in order_conf_entries(value):
        m = _ENTRY.match(entry)
        if m and m.group(1):
            out[m.group(1)] = int(m.group(2))
    return out


def order_conf_problem(value: str) -> str | None:
    """Why ``value`` is not a well-formed orderTopicConf, or None."""
    entries = order_conf_entries(value)
    if not entries:
        return "it lists no broker"
    bad = [e for e in entries if not parse_order_conf(e)]
    if bad:
        return f"{bad[0]!r} is not brokerName:queueNums"
    names = [next(iter(parse_order_conf(e))) for e in entries]
    dup = next((n for n in names if names.count(n) > 1), None)
    return f"broker {dup!r} is listed twice" if dup else None


def format_order_conf(entries: dict[str, int]) -> str:
    return ";".join(f"{name}:{n}" for name, n in sorted(entries.items()))
