"""The checks every request passes before its handler runs (``RemotingServer(check=check_request)``).

1. Text: every header field (key and value) and the remark must be valid Unicode. A JSON header
   can carry a lone surrogate (``"\\ud800"``), and invalid UTF-8 in a header arrives as lone
   surrogates too (the server decodes headers with ``surrogateescape``); neither may reach a
   handler, where it would be stored and make every later write or response fail to encode.
2. Names: the header fields that hold a topic or a group, per request code (``NAME_FIELDS``),
   must pass ``mqadmin.model.names`` (Apache's rules). A refused request gets Apache's code and
   remark and changes nothing.

Names inside bodies (heartbeats, topic lists, group configs, lock requests, registrations) are
checked by their handlers with ``body_name_refusal`` after the body is decoded and before any
state changes. Bodies decoded by ``mqadmin.server.headers.json_body`` are checked for invalid
Unicode there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mqadmin.model.names import NameKind, name_refusal
from mqadmin.wire import fastjson
from mqadmin.wire.codes import RequestCode as C
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

TOPIC, GROUP = NameKind.TOPIC, NameKind.GROUP
SEARCH_OFFSET_BY_TIMESTAMP = 29
GET_EARLIEST_MSG_STORETIME = 32


@dataclass(frozen=True, slots=True)
class NameField:
    """A header field holding a name. ``optional``: empty means "none" and is not checked.
    A missing field is left to the handler, which answers as Java does for a null field."""

    field: str
    kind: NameKind
    optional: bool = False


def _t(field: str, optional: bool = False) -> NameField:
    return NameField(field, TOPIC, optional)


def _g(field: str, optional: bool = False) -> NameField:
    return NameField(field, GROUP, optional)


_SEND_LONG = (_t("topic"), _t("defaultTopic", True), _g("producerGroup", True))
_SEND_SHORT = (_t("b"), _t("c", True), _g("a", True))
"""SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE carry the same fields under the keys a–n."""
_GROUP_TOPIC = (_g("consumerGroup"), _t("topic"))

NAME_FIELDS: dict[int, tuple[NameField, ...]] = {
    # broker: messages and offsets
    C.PULL_MESSAGE: _GROUP_TOPIC,
    C.QUERY_MESSAGE: (_t("topic"),),
    C.QUERY_CONSUMER_OFFSET: _GROUP_TOPIC,
    C.UPDATE_CONSUMER_OFFSET: _GROUP_TOPIC,
    C.GET_MAX_OFFSET: (_t("topic"),),
    C.GET_MIN_OFFSET: (_t("topic"),),
    SEARCH_OFFSET_BY_TIMESTAMP: (_t("topic"),),
    GET_EARLIEST_MSG_STORETIME: (_t("topic"),),
    C.VIEW_MESSAGE_BY_ID: (_t("topic", True),),
    C.QUERY_CONSUME_QUEUE: (_t("topic"), _g("consumerGroup", True)),
    C.CONSUMER_SEND_MSG_BACK: (_g("group"), _t("originTopic", True)),
    C.GET_TOPIC_STATS_INFO: (_t("topic"),),
    C.GET_CONSUME_STATS: (_g("consumerGroup"), _t("topic", True)),
    # broker: clients
    C.UNREGISTER_CLIENT: (_g("producerGroup", True), _g("consumerGroup", True)),
    C.GET_CONSUMER_LIST_BY_GROUP: (_g("consumerGroup"),),
    C.GET_CONSUMER_CONNECTION_LIST: (_g("consumerGroup"),),
    C.GET_PRODUCER_CONNECTION_LIST: (_g("producerGroup"),),
    C.GET_CONSUMER_RUNNING_INFO: (_g("consumerGroup"),),
    C.CONSUME_MESSAGE_DIRECTLY: (_g("consumerGroup"), _t("topic", True)),
    # broker: admin
    C.UPDATE_AND_CREATE_TOPIC: (_t("topic"),),
    C.DELETE_TOPIC_IN_BROKER: (_t("topic"),),
    C.GET_TOPIC_CONFIG: (_t("topic"),),
    C.QUERY_TOPIC_CONSUME_BY_WHO: (_t("topic"),),
    C.DELETE_SUBSCRIPTIONGROUP: (_g("groupName"),),
    # name server
    C.GET_ROUTEINFO_BY_TOPIC: (_t("topic"),),
    C.DELETE_TOPIC_IN_NAMESRV: (_t("topic"),),
    C.REGISTER_TOPIC_IN_NAMESRV: (_t("topic"),),
}
"""Header fields holding names, per request code. Codes whose names are in the body: HEART_BEAT
(34), UPDATE_AND_CREATE_TOPIC_LIST (18), UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200), LOCK_BATCH_MQ
(41), UNLOCK_BATCH_MQ (42) and REGISTER_BROKER (103), checked by their handlers."""

SEND_CODES = frozenset({C.SEND_MESSAGE, C.SEND_MESSAGE_V2, C.SEND_BATCH_MESSAGE})


def uses_short_send_keys(ext: dict[str, str]) -> bool:
    """Whether a send header uses the a–n keys of SEND_MESSAGE_V2 (the rule SendHeader.parse follows)."""
    return "b" in ext and "topic" not in ext


def name_fields(cmd: RemotingCommand) -> tuple[NameField, ...]:
    if cmd.code in SEND_CODES:
        return _SEND_SHORT if uses_short_send_keys(cmd.ext) else _SEND_LONG
    return NAME_FIELDS.get(cmd.code, ())


JSON_BODY_CODES = frozenset(
    {
        C.HEART_BEAT, C.UPDATE_AND_CREATE_TOPIC_LIST, C.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, C.LOCK_BATCH_MQ,
        C.UNLOCK_BATCH_MQ, C.REGISTER_BROKER, C.REGISTER_TOPIC_IN_NAMESRV, C.QUERY_DATA_VERSION,
    }
)  # fmt: skip
"""Requests whose body is JSON: checked for lone surrogates here too, so they get the same answer."""


def check_request(cmd: RemotingCommand) -> RemotingCommand | None:
    """The error response for a request that must not reach its handler, or None."""
    problem = text_problem(cmd)
    if problem is None and cmd.code in JSON_BODY_CODES and _SURROGATE_ESCAPE.search(cmd.body):
        problem = _json_body_problem(cmd.body)
    if problem is not None:
        return cmd.response(ResponseCode.INVALID_PARAMETER, problem)
    for nf in name_fields(cmd):
        value = cmd.ext.get(nf.field)
        if value is None or (nf.optional and value == ""):
            continue
        refusal = name_refusal(nf.kind, value)
        if refusal is not None:
            return cmd.response(refusal.code, refusal.remark)
    return None


def body_name_refusal(cmd: RemotingCommand, names: Iterable[tuple[NameKind, str]]) -> RemotingCommand | None:
    """The error response for the first illegal name among those a handler read from a body, or None."""
    for kind, name in names:
        refusal = name_refusal(kind, name)
        if refusal is not None:
            return cmd.response(refusal.code, refusal.remark)
    return None


# --- Unicode ---------------------------------------------------------------------------------


def bad_unicode(s: str) -> int | None:
    """Index of the first lone surrogate in ``s`` (text that cannot be encoded as UTF-8), or None."""
    if s.isascii():
        return None
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as e:
        return e.start
    return None


def text_problem(cmd: RemotingCommand) -> str | None:
    """Why the request's header text is not valid Unicode, or None."""
    ext = cmd.ext
    if "".join(ext).isascii() and "".join(ext.values()).isascii() and (cmd.remark or "").isascii():
        return None  # the common case, checked at C speed
    for key, value in ext.items():
        if bad_unicode(key) is not None:
            return f"a header field name is not valid Unicode: {ascii(key[:40])}"
        pos = bad_unicode(value)
        if pos is not None:
            return f"header field <{key}> is not valid Unicode (invalid UTF-8 or a lone surrogate at position {pos})"
    if cmd.remark is not None and bad_unicode(cmd.remark) is not None:
        return "the remark is not valid Unicode"
    return None


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _json_body_problem(body: bytes) -> str | None:
    try:
        obj = fastjson.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None  # not JSON: the handler answers that
    where = json_text_problem(body, obj)
    return None if where is None else f"the body is not valid Unicode at {where} (a lone surrogate)"


def json_text_problem(raw: bytes, obj: Any) -> str | None:
    """Where a decoded JSON body holds a lone surrogate (from a ``\\uD800``-style escape), or None."""
    if not _SURROGATE_ESCAPE.search(raw):
        return None
    try:
        return _find_bad_text(obj, "$")
    except RecursionError:
        return "$ (nested too deeply to check)"


def _key(k: str) -> str:
    return k if k.isascii() and k.isidentifier() and len(k) <= 40 else ascii(k[:40])


def _find_bad_text(obj: Any, path: str) -> str | None:
    if isinstance(obj, str):
        return None if bad_unicode(obj) is None else path
    if isinstance(obj, dict):
        for k, v in obj.items():
            if bad_unicode(k) is not None:
                return f"a key in {path}"
            found = _find_bad_text(v, f"{path}.{_key(k)}")
            if found is not None:
                return found
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            found = _find_bad_text(v, f"{path}[{i}]")
            if found is not None:
                return found
    return None
