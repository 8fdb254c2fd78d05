"""Typed async admin operations over the transport (no CLI imports here)."""

from mqadmin.admin.client import ORDER_TOPIC_CONFIG, AdminClient
from mqadmin.admin.errors import (
    AdminError,
    BadNameServerAddress,
    NameServerUnreachable,
    NoNameServer,
    ResponseError,
    UnknownCluster,
)
from mqadmin.admin.namesrv import NameServerSet, parse_namesrv_addrs, resolve_namesrv_addrs
from mqadmin.admin.results import Status, TargetResult, outcome

__all__ = [
    "ORDER_TOPIC_CONFIG",
    "AdminClient",
    "AdminError",
    "BadNameServerAddress",
    "NameServerSet",
    "NameServerUnreachable",
    "NoNameServer",
    "ResponseError",
    "Status",
    "TargetResult",
    "UnknownCluster",
    "outcome",
    "parse_namesrv_addrs",
    "resolve_namesrv_addrs",
]
