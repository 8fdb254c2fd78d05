"""GET_ROUTEINFO_BY_TOPIC (105) bodies in the form the asking client reads.

Apache's name server (ClientRequestProcessor.getRouteInfoByTopic, 4.9.4 on) answers in standard
JSON when the request's ``version`` is V4_9_4 (401) or later, or when its header says
``acceptStandardJsonOnly=true``; otherwise it sends fastjson's default form, in which the
broker-id keys of ``brokerAddrs`` are bare integers (``{0:"127.0.0.1:10911"}``). Older clients
(the C++ client sends 333, Go 317) read those ids as integers, and some fail on ``"0"``.
"""

from __future__ import annotations

from typing import Any

from mqadmin.model.route import TopicRouteData
from mqadmin.model.rpc.namesrv import RouteHeader
from mqadmin.model.rpc.spec import Decoded
from mqadmin.model.version import V4_9_4
from mqadmin.wire import fastjson


def wants_standard_json(req: Decoded[RouteHeader, None]) -> bool:
    """Java's rule: ``version >= V4_9_4`` or ``acceptStandardJsonOnly`` (Boolean.parseBoolean)."""
    return req.cmd.version >= V4_9_4 or bool(req.header.accept_standard_json_only)


def route_body(route: TopicRouteData, standard: bool) -> bytes:
    obj = route.to_json()
    if standard:
        return fastjson.dumps_bytes(obj)
    return _legacy(obj).encode()


def _legacy(value: Any, key: str = "") -> str:
    """Compact sorted JSON, except that a ``brokerAddrs`` map writes its integer keys bare."""
    if isinstance(value, dict):
        bare = key == "brokerAddrs"
        items = sorted(value.items(), key=lambda kv: int(kv[0]) if bare else kv[0])
        return "{" + ",".join(f"{k if bare else fastjson.dumps(k)}:{_legacy(v, k)}" for k, v in items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_legacy(v) for v in value) + "]"
    return fastjson.dumps(value)
