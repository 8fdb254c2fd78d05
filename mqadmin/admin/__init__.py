"""Typed async admin operations over the transport (no CLI imports here).

The names below are imported on first use, so that ``from mqadmin.admin import TargetResult`` does not
load every operation module (start-up is most of a one-request command's time).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqadmin.lazy_names import lazy_names

if TYPE_CHECKING:
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
    from mqadmin.admin.lazy_client import LazyAdminClient
    from mqadmin.admin.namesrv import NameServerSet, parse_namesrv_addrs, resolve_namesrv_addrs
    from mqadmin.admin.results import Status, TargetResult, outcome

_MODULE_OF = {
    "AdminClient": "client",
    "AdminError": "errors",
    "BadNameServerAddress": "errors",
    "LazyAdminClient": "lazy_client",
    "NameServerSet": "namesrv",
    "NameServerUnreachable": "errors",
    "NoNameServer": "errors",
    "ResponseError": "errors",
    "Status": "results",
    "Target": "fanout",
    "TargetResult": "results",
    "UnknownCluster": "errors",
    "fan_out": "fanout",
    "outcome": "results",
    "parse_namesrv_addrs": "namesrv",
    "resolve_namesrv_addrs": "namesrv",
}

__all__ = [
    "AdminClient",
    "AdminError",
    "BadNameServerAddress",
    "LazyAdminClient",
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


__getattr__ = lazy_names(__name__, _MODULE_OF)
