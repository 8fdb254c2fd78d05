"""Validating and indexing stored-message records (the wire's stored layout, magic v1/v2).

Recovery trusts nothing after the checkpoint: every record there is checked for a sane size, a
known magic code, internally consistent field lengths and its body CRC before it is re-indexed.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from mqadmin.model.tags import tags_code
from mqadmin.wire.message import (
    MAGIC_V1,
    MAGIC_V2,
    PROPERTY_KEYS,
    PROPERTY_TAGS,
    PROPERTY_UNIQ_KEY,
    SYSFLAG_BORNHOST_V6,
    SYSFLAG_STOREHOST_V6,
    body_crc,
    decode_properties,
)

_HEAD = struct.Struct(">iiiiiqqiq")  # size magic crc queueId flag queueOffset physOffset sysFlag bornTs
_SIZE_MAGIC = struct.Struct(">ii")
_I32 = struct.Struct(">i")
_I16 = struct.Struct(">h")
_U16 = struct.Struct(">H")
_Q = struct.Struct(">q")
MIN_RECORD_SIZE = _HEAD.size + 8 + 8 + 8 + 4 + 8 + 4 + 1 + 2
PHYS_OFFSET_POS = 28
"""Byte position of PHYSICALOFFSET inside a record (patched once the record's place is known)."""
STORE_TS_HEADER_BYTES = _HEAD.size + 20 + 8
"""Enough leading bytes of a record to read its STORETIMESTAMP."""


@dataclass(slots=True)
class RecordInfo:
    """What the indexes need from one stored message."""

    topic: str
    queue_id: int
    queue_offset: int
    phys_offset: int
    size: int
    tags_code: int
    keys: list[str]
    uniq_key: str | None
    store_timestamp: int


class BadRecord(ValueError):
    pass


def check_header(header: bytes | memoryview, pos: int = 0, max_size: int = 1 << 31) -> int:
    """The TOTALSIZE of the record starting at ``pos`` after checking its magic; raises BadRecord."""
    if pos + 8 > len(header):
        raise BadRecord("truncated record header")
    size, magic = _SIZE_MAGIC.unpack_from(header, pos)
    if magic not in (MAGIC_V1, MAGIC_V2):
        raise BadRecord(f"bad magic {magic & 0xFFFFFFFF:#x}")
    if size < MIN_RECORD_SIZE or size > max_size:
        raise BadRecord(f"bad record size {size}")
    return size


def parse_record(buf: bytes | memoryview, pos: int = 0, *, check_crc: bool = True) -> RecordInfo:
    """Validate the record at ``pos`` (lengths, magic, body CRC) and return its index fields."""
    info, _props = _parse(buf, pos, check_crc)
    return info


def record_properties(buf: bytes | memoryview, pos: int = 0) -> tuple[RecordInfo, dict[str, str]]:
    """The index fields and all properties of the record at ``pos`` (no CRC check)."""
    return _parse(buf, pos, False)


def _parse(buf: bytes | memoryview, pos: int, check_crc: bool) -> tuple[RecordInfo, dict[str, str]]:
    size = check_header(buf, pos, len(buf) - pos)
    try:
        _size, magic, crc, queue_id, _flag, queue_offset, phys, sysflag, _born = _HEAD.unpack_from(buf, pos)
        p = pos + _HEAD.size
        p += (16 if sysflag & SYSFLAG_BORNHOST_V6 else 4) + 4
        (store_ts,) = _Q.unpack_from(buf, p)
        p += 8 + (16 if sysflag & SYSFLAG_STOREHOST_V6 else 4) + 4
        p += 4 + 8
        (body_len,) = _I32.unpack_from(buf, p)
        p += 4
        if body_len < 0 or p + body_len > pos + size:
            raise BadRecord(f"body length {body_len} runs past the record")
        body_at = p
        p += body_len
        if magic == MAGIC_V2:
            (tlen,) = _U16.unpack_from(buf, p)
            p += 2
        else:
            tlen = buf[p]
            p += 1
        topic = bytes(buf[p : p + tlen]).decode()
        p += tlen
        (plen,) = _I16.unpack_from(buf, p)
        p += 2
        if plen < 0 or p + plen != pos + size:
            raise BadRecord("properties length does not end the record")
        props = decode_properties(bytes(buf[p : p + plen]).decode()) if plen else {}
    except (struct.error, UnicodeDecodeError, IndexError) as e:
        raise BadRecord(str(e)) from None
    if check_crc and body_crc(bytes(buf[body_at : body_at + body_len])) != crc:
        raise BadRecord("body CRC mismatch")
    tags = props.get(PROPERTY_TAGS)
    info = RecordInfo(
        topic=topic,
        queue_id=queue_id,
        queue_offset=queue_offset,
        phys_offset=phys,
        size=size,
        tags_code=tags_code(tags),
        keys=[k for k in props.get(PROPERTY_KEYS, "").split(" ") if k],
        uniq_key=props.get(PROPERTY_UNIQ_KEY),
        store_timestamp=store_ts,
    )
    return info, props


def phys_offset_of(header: bytes) -> int:
    return _Q.unpack_from(header, PHYS_OFFSET_POS)[0]


def store_timestamp_of(header: bytes) -> int:
    """STORETIMESTAMP from the first STORE_TS_HEADER_BYTES of a record."""
    sysflag = _I32.unpack_from(header, 36)[0]
    p = _HEAD.size + (16 if sysflag & SYSFLAG_BORNHOST_V6 else 4) + 4
    return _Q.unpack_from(header, p)[0]
