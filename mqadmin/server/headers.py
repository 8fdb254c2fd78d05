"""Reading request header (ext) fields the way Java's ``decodeCommandCustomHeader`` does.

A missing required field or a value of the wrong type raises ``HeaderError``; the remoting
server turns it into SYSTEM_ERROR with the message as remark, as a Java server answers.
"""

from __future__ import annotations

from typing import Any

from mqadmin.server.validation import json_text_problem
from mqadmin.wire import fastjson
from mqadmin.wire.frame import RemotingCommand


class HeaderError(ValueError):
    pass


def need(cmd: RemotingCommand, name: str) -> str:
    value = cmd.ext.get(name)
    if value is None:
        raise HeaderError(f"the custom field <{name}> is null")
    return value


def opt_int(cmd: RemotingCommand, name: str, default: int) -> int:
    value = cmd.ext.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise HeaderError(f"the custom field <{name}> is not a number: {value!r}") from None


def need_int(cmd: RemotingCommand, name: str) -> int:
    need(cmd, name)
    return opt_int(cmd, name, 0)


def opt_bool(cmd: RemotingCommand, name: str, default: bool = False) -> bool:
    """Java's ``Boolean.parseBoolean``: only ``true`` (any case) is true."""
    value = cmd.ext.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() == "true"


class BodyError(ValueError):
    pass


def json_body(cmd: RemotingCommand, what: str) -> Any:
    """The request body as JSON (fastjson's relaxed form accepted); BodyError naming ``what`` otherwise,
    including for bodies nested too deeply to parse and bodies whose text is not valid Unicode."""
    try:
        obj = fastjson.loads(cmd.body)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise BodyError(f"bad {what} body: {type(e).__name__}: {e}") from None
    where = json_text_problem(cmd.body, obj)
    if where is not None:
        raise BodyError(f"bad {what} body: the text at {where} is not valid Unicode (a lone surrogate)")
    return obj
