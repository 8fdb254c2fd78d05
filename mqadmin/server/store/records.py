"""Validating and indexing stored-message records (the wire's stored layout, magic v1/v2).

Recovery trusts nothing after the checkpoint: every record there is checked for a sane size, a
known magic code, internally consistent field lengths and its body CRC before it is re-indexed.
"""

from __future__ import annotations

from dataclasses import dataclass

from mqadmin.model.tags import tags_code
from mqadmin.wire.message import (
    PROPERTY_KEYS,
    PROPERTY_TAGS,
    PROPERTY_UNIQ_KEY,
    MessageDecodeError,
    body_crc,
    read_layout,
    stored_properties,
    stored_size,
)


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
    try:
        return stored_size(header, pos, max_size)
    except MessageDecodeError as e:
        raise BadRecord(str(e)) from None


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
        m = read_layout(buf, pos)
        if m.props_at + m.props_len != pos + size:
            raise BadRecord("properties length does not end the record")
        props = stored_properties(buf, m)
    except MessageDecodeError as e:
        raise BadRecord(str(e)) from None
    if check_crc and body_crc(bytes(buf[m.body_at : m.body_at + m.body_len])) != m.body_crc:
        raise BadRecord("body CRC mismatch")
    info = RecordInfo(
        topic=m.topic,
        queue_id=m.queue_id,
        queue_offset=m.queue_offset,
        phys_offset=m.phys_offset,
        size=size,
        tags_code=tags_code(props.get(PROPERTY_TAGS)),
        keys=[k for k in props.get(PROPERTY_KEYS, "").split(" ") if k],
        uniq_key=props.get(PROPERTY_UNIQ_KEY),
        store_timestamp=m.store_timestamp,
    )
    return info, props
