"""RocketMQ remoting frames: ``| int32 length | int32 type<<24|H | header | body |``.

Both header encodings are supported: JSON (type 0) and the binary ROCKETMQ form (type 1).
JSON headers are read and written with the standard ``json`` module (its C accelerator), which is all a
client making a few requests needs; the servers pass ``mqadmin.wire.orjson_headers``'s faster reader and
writer, which fall back to these for what orjson refuses or reads otherwise. Decoding is tolerant of what
real peers send (tests/data/captures; docs/protocol.md): a header JSON that ends in a newline, ext values
that are numbers or booleans, ``language`` as a name or an ordinal, a missing ``opaque``.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum

MAX_FRAME_LENGTH = 16 * 1024 * 1024
MAX_ANSWER_LENGTH = 512 * 1024 * 1024
"""What a client reads of an answer it asked for: a broker's topic table passes 16 MiB at about 80,000 topics
(Java's tools need -Dcom.rocketmq.remoting.frameMaxLength raised for that); servers keep MAX_FRAME_LENGTH."""
"""The largest ``length`` field accepted, as in Java's default ``frameMaxLength``."""

RESPONSE_FLAG = 1
ONEWAY_FLAG = 2

LANGUAGES = (
    "JAVA", "CPP", "DOTNET", "PYTHON", "DELPHI", "ERLANG", "RUBY", "OTHER",
    "HTTP", "GO", "PHP", "OMS", "RUST", "NODE_JS",
)  # fmt: skip
_LANGUAGE_CODES = {name: i for i, name in enumerate(LANGUAGES)}

MAX_HEADER_DEPTH = 16
"""JSON headers nested deeper than this are refused (a real header is two levels deep)."""

DEFAULT_VERSION = 479
"""MQVersion ordinal of 5.3.3; >= 401 makes name servers answer routes in standard JSON."""


class SerializeType(IntEnum):
    JSON = 0
    ROCKETMQ = 1


class FrameError(ValueError):
    """A frame that cannot be decoded. The connection it came from should be closed."""


@dataclass(slots=True)
class RemotingCommand:
    code: int
    opaque: int = 0
    flag: int = 0
    ext: dict[str, str] = field(default_factory=dict)
    remark: str | None = None
    body: bytes = b""
    language: str = "PYTHON"
    version: int = DEFAULT_VERSION
    serialize: SerializeType = SerializeType.JSON

    @property
    def is_response(self) -> bool:
        return bool(self.flag & RESPONSE_FLAG)

    @property
    def is_oneway(self) -> bool:
        return bool(self.flag & ONEWAY_FLAG)

    def response(
        self, code: int = 0, remark: str | None = None, ext: dict[str, str] | None = None, body: bytes = b""
    ) -> RemotingCommand:
        """A response to this request: same opaque and serialize type, flag bit 0 set."""
        return RemotingCommand(
            code=code,
            opaque=self.opaque,
            flag=RESPONSE_FLAG,
            ext=ext or {},
            remark=remark,
            body=body,
            language="JAVA",
            version=DEFAULT_VERSION,
            serialize=self.serialize,
        )


HeaderDumper = Callable[[dict[str, object]], bytes]
"""Writes a JSON header's object as UTF-8 (``dump_header_json``, or ``orjson_headers.dump_header_json``)."""
HeaderParser = Callable[[bytes, str], object]
"""Reads a JSON header with a text-error mode (``parse_header_json``, or ``orjson_headers.parse_header_json``)."""


def encode_frame(cmd: RemotingCommand, dump_json: HeaderDumper | None = None, limit: int = MAX_FRAME_LENGTH) -> bytes:
    """The frame of ``cmd``; FrameError when it would be longer than ``limit`` (a server's answers may be
    ``MAX_ANSWER_LENGTH``, as an Apache server's are not limited at all)."""
    if cmd.serialize == SerializeType.ROCKETMQ:
        header = _encode_binary_header(cmd)
    else:
        header = (dump_json or dump_header_json)(_json_header(cmd))
    h = len(header)
    length = 4 + h + len(cmd.body)
    if length > limit:
        raise FrameError(f"frame of {length} bytes exceeds the {limit}-byte limit")
    return struct.pack(">ii", length, (int(cmd.serialize) << 24) | h) + header + cmd.body


def decode_frame(
    frame: bytes | memoryview, text_errors: str = "strict", parse_json: HeaderParser | None = None
) -> RemotingCommand:
    """Decode one frame *without* its leading length field.

    ``text_errors="surrogateescape"`` (what a server passes) decodes invalid UTF-8 in the header to
    lone surrogates instead of failing the frame, so the request can be answered with an error that
    names the field (the servers refuse any text that is not valid Unicode before handling it)."""
    if len(frame) < 4:
        raise FrameError(f"frame of {len(frame)} bytes is shorter than its header-length field")
    (len_and_type,) = struct.unpack_from(">i", frame, 0)
    stype = (len_and_type >> 24) & 0xFF
    h = len_and_type & 0xFFFFFF
    if 4 + h > len(frame):
        raise FrameError(f"header length {h} exceeds the frame ({len(frame)} bytes)")
    header = bytes(frame[4 : 4 + h])
    body = bytes(frame[4 + h :])
    if stype == SerializeType.JSON:
        cmd = _decode_json_header(header, text_errors, parse_json or parse_header_json)
    elif stype == SerializeType.ROCKETMQ:
        cmd = _decode_binary_header(header, text_errors)
    else:
        raise FrameError(f"unknown serialize type {stype}")
    cmd.body = body
    return cmd


def check_length(length: int, limit: int = MAX_FRAME_LENGTH) -> None:
    """A frame's length field, checked before its bytes are read (mqadmin.transport.frames reads frames)."""
    if length < 4 or length > limit:
        raise FrameError(f"frame length {length} outside 4..{limit}")


# --- JSON header -------------------------------------------------------------------------------


def _json_header(cmd: RemotingCommand) -> dict[str, object]:
    obj: dict[str, object] = {
        "code": cmd.code,
        "flag": cmd.flag,
        "language": cmd.language,
        "opaque": cmd.opaque,
        "serializeTypeCurrentRPC": "JSON",
        "version": cmd.version,
    }
    if cmd.ext:
        obj["extFields"] = cmd.ext
    if cmd.remark:
        obj["remark"] = cmd.remark
    return obj


def dump_header_json(obj: dict[str, object]) -> bytes:
    """Compact, keys sorted, text as UTF-8 (UnicodeEncodeError for a lone surrogate)."""
    return _HEADER_ENCODER.encode(obj).encode()


_HEADER_ENCODER = json.JSONEncoder(separators=(",", ":"), sort_keys=True, ensure_ascii=False)
"""Built once: ``json.dumps`` with non-default options builds a new encoder on every call."""


def _ext_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, separators=(",", ":"))


def _language_name(value: object) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(LANGUAGES):
        return LANGUAGES[value]
    if isinstance(value, str) and value:
        return value
    return "OTHER"


def _int_field(obj: dict[str, object], key: str, default: int | None) -> int:
    value = obj.get(key, default)
    if isinstance(value, bool) or value is None:
        if default is None:
            raise FrameError(f"header field {key!r} is missing")
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            pass
    raise FrameError(f"header field {key!r} is not an integer: {value!r}")


def _check_depth(header: bytes) -> None:
    """Refuse a header nested deeper than MAX_HEADER_DEPTH, in linear time at C speed (a header may
    be megabytes long): drop escaped characters and the strings, keep the brackets, then strip
    innermost bracket pairs once per allowed level; any bracket left is nested too deep."""
    if header.count(b"{") + header.count(b"[") <= MAX_HEADER_DEPTH:
        return
    unescaped = header.replace(b"\\\\", b"").replace(b'\\"', b"")
    outside_strings = b"".join(unescaped.split(b'"')[0::2])
    brackets = outside_strings.translate(None, _NOT_BRACKETS)
    for _ in range(MAX_HEADER_DEPTH):
        brackets = brackets.replace(b"{}", b"").replace(b"[]", b"")
    if brackets:
        raise FrameError(f"header JSON is nested deeper than {MAX_HEADER_DEPTH} levels (or unbalanced)")


_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"{}[]")


def parse_header_json(header: bytes, text_errors: str) -> object:
    """The header's JSON, with its ext values (numbers, booleans, null) turned into text: an ext object holds
    text only. ``text_errors`` is how invalid UTF-8 is decoded (a server keeps it as surrogates)."""
    try:
        obj = json.loads(header.decode("utf-8", text_errors))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise FrameError(f"header is not JSON: {type(e).__name__}: {e}") from None
    ext = obj.get("extFields") if isinstance(obj, dict) else None
    if isinstance(ext, dict):
        obj["extFields"] = {k: _ext_value(v) for k, v in ext.items()}  # JSON keys are always text
    return obj


def _decode_json_header(header: bytes, text_errors: str, parse_json: HeaderParser) -> RemotingCommand:
    _check_depth(header)
    obj = parse_json(header, text_errors)
    if not isinstance(obj, dict):
        raise FrameError("header JSON is not an object")
    ext_raw = obj.get("extFields") or {}
    if not isinstance(ext_raw, dict):
        raise FrameError("extFields is not an object")
    remark = obj.get("remark")
    return RemotingCommand(
        code=_int_field(obj, "code", None),
        opaque=_int_field(obj, "opaque", 0),
        flag=_int_field(obj, "flag", 0),
        ext=ext_raw,
        remark=remark if isinstance(remark, str) and remark else None,
        language=_language_name(obj.get("language")),
        version=_int_field(obj, "version", 0),
        serialize=SerializeType.JSON,
    )


# --- ROCKETMQ binary header --------------------------------------------------------------------

_FIXED = struct.Struct(">hBhii")  # code, language, version, opaque, flag


def _encode_binary_header(cmd: RemotingCommand) -> bytes:
    parts = [_FIXED.pack(cmd.code, _LANGUAGE_CODES.get(cmd.language, 7), cmd.version, cmd.opaque, cmd.flag)]
    remark = (cmd.remark or "").encode()
    parts.append(struct.pack(">i", len(remark)) + remark)
    ext = bytearray()
    for k, v in cmd.ext.items():
        kb, vb = k.encode(), v.encode()
        ext += struct.pack(">H", len(kb)) + kb + struct.pack(">i", len(vb)) + vb
    parts.append(struct.pack(">i", len(ext)) + bytes(ext))
    return b"".join(parts)


def _decode_binary_header(header: bytes, text_errors: str = "strict") -> RemotingCommand:
    try:
        code, lang, version, opaque, flag = _FIXED.unpack_from(header, 0)
        pos = _FIXED.size
        (rlen,) = struct.unpack_from(">i", header, pos)
        pos += 4
        remark = _take(header, pos, rlen).decode("utf-8", text_errors) if rlen > 0 else None
        pos += max(rlen, 0)
        (elen,) = struct.unpack_from(">i", header, pos)
        pos += 4
        end = pos + elen
        if elen < 0 or end > len(header):
            raise FrameError(f"ext length {elen} exceeds the header")
        ext: dict[str, str] = {}
        while pos < end:
            (klen,) = struct.unpack_from(">H", header, pos)
            key = _take(header, pos + 2, klen).decode("utf-8", text_errors)
            pos += 2 + klen
            (vlen,) = struct.unpack_from(">i", header, pos)
            ext[key] = _take(header, pos + 4, vlen).decode("utf-8", text_errors) if vlen > 0 else ""
            pos += 4 + max(vlen, 0)
    except (struct.error, UnicodeDecodeError) as e:
        raise FrameError(f"bad binary header: {e}") from None
    return RemotingCommand(
        code=code,
        opaque=opaque,
        flag=flag,
        ext=ext,
        remark=remark,
        language=_language_name(lang),
        version=version,
        serialize=SerializeType.ROCKETMQ,
    )


def _take(buf: bytes, pos: int, n: int) -> bytes:
    if n < 0 or pos + n > len(buf):
        raise FrameError(f"field of {n} bytes at {pos} runs past the header ({len(buf)} bytes)")
    return buf[pos : pos + n]
