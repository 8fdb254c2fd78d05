"""The check every request passes before it is decoded (``RemotingServer(check=check_text)``): its
text must be valid Unicode.

Every header field (key and value) and the remark, and the body of a request whose declared body
is JSON, must be valid Unicode. A JSON header or body can carry a lone surrogate (``"\\ud800"``),
and invalid UTF-8 in a header arrives as lone surrogates too (the server decodes headers with
``surrogateescape``); neither may reach a handler, where it would be stored and make every later
write or response fail to encode. Such a request is answered INVALID_PARAMETER naming the field.

The other rules (required fields and their types, legal topic and group names in headers and
bodies) belong to each request's declaration in ``mqadmin.model.rpc`` and are checked when the
server decodes the request.
"""

from __future__ import annotations

import re
from typing import Any

from mqadmin.model.rpc import load_all
from mqadmin.wire import fastjson
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

JSON_BODY_CODES = frozenset(code for code, rpc in load_all().items() if rpc.body is not None and rpc.body.json)
"""Requests whose declared body is JSON: checked for lone surrogates too."""


def check_text(cmd: RemotingCommand) -> RemotingCommand | None:
    """The INVALID_PARAMETER answer for a request whose text is not valid Unicode, or None."""
    problem = text_problem(cmd)
    if problem is None and cmd.code in JSON_BODY_CODES and _SURROGATE_ESCAPE.search(cmd.body):
        problem = _json_body_problem(cmd.body)
    if problem is not None:
        return cmd.response(ResponseCode.INVALID_PARAMETER, problem)
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
        return None  # not JSON: decoding the request answers that
    where = json_text_problem(body, obj)
    return None if where is None else f"the body is not valid Unicode at {where} (a lone surrogate)"


def json_text_problem(raw: bytes, obj: Any) -> str | None:
    """Where a decoded JSON document holds a lone surrogate (from a ``\\uD800``-style escape), or None."""
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
