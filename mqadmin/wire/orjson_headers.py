"""JSON remoting headers through orjson, for the servers, which read and write one per request: pass these to
``encode_frame``/``decode_frame`` (``mqadmin.wire.frame``). They give the same bytes and objects as the standard
reader and writer there, which still take what orjson refuses or reads otherwise.

A client leaves orjson alone: its import (which brings dataclasses, uuid, platform and datetime with it) costs
a one-request command more than the few headers it writes and reads.
"""

from __future__ import annotations

import orjson

from mqadmin.wire.frame import dump_header_json as dump_with_json
from mqadmin.wire.frame import parse_header_json as parse_with_json

_TEXT_ONLY = {str}


def dump_header_json(obj: dict[str, object]) -> bytes:
    try:
        return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:  # lone surrogates (UnicodeEncodeError from json's), keys that are not text
        return dump_with_json(obj)


def parse_header_json(header: bytes, text_errors: str) -> object:
    """orjson's reading when it is the usual one (text ext values, no floats), else the standard reader's,
    which takes what orjson refuses (invalid UTF-8 kept as surrogates, lone surrogate escapes, NaN) or reads
    otherwise (an integer beyond 64 bits, which orjson makes a float, ext values that are not text)."""
    try:
        obj = orjson.loads(header)
    except orjson.JSONDecodeError:
        pass
    else:
        if isinstance(obj, dict) and float not in {*map(type, obj.values())}:
            ext = obj.get("extFields")
            if not isinstance(ext, dict) or {*map(type, ext.values())} <= _TEXT_ONLY:
                return obj
    return parse_with_json(header, text_errors)
