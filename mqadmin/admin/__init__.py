"""Typed async admin operations over the transport (no CLI imports here)."""

from mqadmin.admin.client import AdminClient
from mqadmin.admin.errors import (
    AdminError,
    BadNameServerAddress,
    NameServerUnreachable,
    NoNameServer,
    ResponseError,
    UnknownCluster,
)
from mqadmin.admin.fanout import Target, fan_out
from mqadmin.admin.namesrv import NameServerSet, parse_namesrv_addrs, resolve_namesrv_addrs
from mqadmin.admin.results import Status, TargetResult, outcome

__all__ = [
    "AdminClient",
    "AdminError",
    "BadNameServerAddress",
    "NameServerSet",
    "NameServerUnreachable",
    "NoNameServer",
    "ResponseError",
    "Status",
    "Target",
    "TargetResult",
    "UnknownCluster",
    "fan_out",
    "outcome",
    "parse_namesrv_addrs",
    "resolve_namesrv_addrs",
]
