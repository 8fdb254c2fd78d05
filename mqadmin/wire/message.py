"""Messages on the wire: the properties string, the stored-message layout, message ids.

The stored layout is what brokers return in PULL_MESSAGE, QUERY_MESSAGE and VIEW_MESSAGE_BY_ID
bodies and what the embedded broker writes to its commit log (magic v1, IPv4 hosts).
"""

from __future__ import annotations

import functools
import itertools
import os
import socket
import struct
import time
import zlib
from dataclasses import dataclass, field

NAME_SEP = "\x01"
PROP_SEP = "\x02"

MAGIC_V1 = 0xDAA320A7 - (1 << 32)  # signed int32, as Java writes it
MAGIC_V2 = 0xDAA320AB - (1 << 32)

SYSFLAG_COMPRESSED = 0x1
SYSFLAG_BORNHOST_V6 = 0x10
SYSFLAG_STOREHOST_V6 = 0x20

PROPERTY_KEYS = "KEYS"
PROPERTY_TAGS = "TAGS"
PROPERTY_UNIQ_KEY = "UNIQ_KEY"  # Java: PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX = "UNIQ_KEY"
PROPERTY_WAIT = "WAIT"
PROPERTY_SHARDING_KEY = "__SHARDINGKEY"


class MessageDecodeError(ValueError):
    pass


def encode_properties(props: dict[str, str]) -> str:
    """``name\\x01value\\x02`` for each pair, with the trailing separator Java writes."""
    return "".join([f"{k}{NAME_SEP}{v}{PROP_SEP}" for k, v in props.items()])


def decode_properties(text: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    if not text:
        return out
    for item in text.split(PROP_SEP):
        if not item:
            continue
        name, sep, value = item.partition(NAME_SEP)
        if sep:
            out[name] = value
    return out


def body_crc(body: bytes) -> int:
    return zlib.crc32(body) & 0x7FFFFFFF


@dataclass(slots=True)
class MessageExt:
    topic: str
    body: bytes
    queue_id: int = 0
    flag: int = 0
    queue_offset: int = 0
    commit_log_offset: int = 0
    sys_flag: int = 0
    born_timestamp: int = 0
    born_host: tuple[str, int] = ("127.0.0.1", 0)
    store_timestamp: int = 0
    store_host: tuple[str, int] = ("127.0.0.1", 0)
    reconsume_times: int = 0
    prepared_transaction_offset: int = 0
    properties: dict[str, str] = field(default_factory=dict)

    @property
    def msg_id(self) -> str:
        """The offset message id: store host and commit-log offset, in hex."""
        return offset_msg_id(self.store_host, self.commit_log_offset)

    @property
    def uniq_key(self) -> str | None:
        return self.properties.get(PROPERTY_UNIQ_KEY)

    @property
    def keys(self) -> list[str]:
        return [k for k in self.properties.get(PROPERTY_KEYS, "").split(" ") if k]

    @property
    def tags(self) -> str | None:
        return self.properties.get(PROPERTY_TAGS)


def offset_msg_id(store_host: tuple[str, int], commit_log_offset: int) -> str:
    """The host's 8 bytes and the offset as a signed 64-bit big-endian number, in upper-case hex."""
    return f"{host_hex(store_host)}{commit_log_offset & 0xFFFFFFFFFFFFFFFF:016X}"


@functools.lru_cache(maxsize=1024)
def host_hex(host: tuple[str, int]) -> str:
    """The host's part of an offset message id (upper-case hex of ``stored_host``)."""
    return stored_host(host).hex().upper()


def parse_offset_msg_id(msg_id: str) -> tuple[tuple[str, int], int]:
    """(store host, commit-log offset) from an offset message id: 32 hex digits (IPv4 broker) or 56 (IPv6)."""
    raw = _hex_id(msg_id, "message id")
    if len(raw) not in (16, 28):
        raise MessageDecodeError(f"message id {msg_id!r} is neither 32 nor 56 hex digits (an offset message id)")
    n = len(raw) - 12
    port, offset = struct.unpack(">iq", raw[n:])
    return (socket.inet_ntop(socket.AF_INET6 if n == 16 else socket.AF_INET, raw[:n]), port), offset


_uniq_counter = itertools.count()
_uniq_prefix = socket.inet_aton("127.0.0.1") + struct.pack(">H", os.getpid() & 0xFFFF) + os.urandom(4)


def new_uniq_key(now_ms: int | None = None) -> str:
    """A client-side unique message id (UNIQ_KEY) laid out as Java's ``MessageClientIDSetter`` does: client
    IP, pid, a per-process random number (Java: its class loader's hash), milliseconds since the start of
    the current month (local time) and a counter, so ``decode_uniq_key`` (and Java's tools) read it back."""
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    since_month = now_ms - month_start_ms(now_ms)
    tail = struct.pack(">IH", since_month & 0xFFFFFFFF, next(_uniq_counter) & 0xFFFF)  # Java's int overflows late in
    # a 31-day month; read back unsigned, as getNearlyTimeFromID reads it
    return (_uniq_prefix + tail).hex().upper()


def month_start_ms(at_ms: int, months_back: int = 0) -> int:
    """Midnight of the first day of the month (local time) that holds ``at_ms``, ``months_back`` months earlier."""
    t = time.localtime(at_ms / 1000)
    year, month = divmod(t.tm_year * 12 + (t.tm_mon - 1) - months_back, 12)
    return int(time.mktime((year, month + 1, 1, 0, 0, 0, 0, 0, -1)) * 1000)


@dataclass(frozen=True, slots=True)
class UniqKey:
    """What a unique message id (UNIQ_KEY, the msgId Java's SendResult gives) holds."""

    ip: str
    pid: int
    client_hash: int
    """Java: the class loader's hash code (a per-process constant)."""
    timestamp: int
    """When it was created, to the millisecond (the id holds the time since the start of a month; the month
    is taken to be the latest one that puts the time in the past, as Java's getNearlyTimeFromID does)."""
    counter: int


def decode_uniq_key(msg_id: str, now_ms: int | None = None) -> UniqKey:
    """Read a unique message id: 32 hex digits (IPv4 client) or 56 (IPv6)."""
    raw = _hex_id(msg_id, "unique message id")
    if len(raw) not in (16, 28):
        raise MessageDecodeError(f"unique message id {msg_id!r} is neither 32 nor 56 hex digits")
    n = len(raw) - 12
    ip = socket.inet_ntop(socket.AF_INET6 if n == 16 else socket.AF_INET, raw[:n])
    pid, client_hash, since_month, counter = struct.unpack(">HiIH", raw[n:])
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    start = month_start_ms(now_ms)
    if start + since_month > now_ms:  # not yet this month: made last month
        start = month_start_ms(now_ms, months_back=1)
    return UniqKey(ip, pid, client_hash, start + since_month, counter)


def _hex_id(msg_id: str, what: str) -> bytes:
    try:
        return bytes.fromhex(msg_id)
    except ValueError:
        raise MessageDecodeError(f"{what} {msg_id!r} is not hex") from None


_HEAD = struct.Struct(">iiiiiqqiq")  # size, magic, crc, queueId, flag, queueOffset, physOffset, sysFlag, born


MAX_PROPERTIES_BYTES = 32767
"""PROPERTIESLENGTH is a signed 16-bit number."""
STORED_LEAD = struct.Struct(">iiiiiqq")
"""TOTALSIZE, MAGICCODE, BODYCRC, QUEUEID, FLAG, QUEUEOFFSET, PHYSICALOFFSET: the fields that differ between
the records of one batch."""
STORED_SHARED = struct.Struct(">iq8sq8siq")
"""SYSFLAG, BORNTIMESTAMP, BORNHOST, STORETIMESTAMP, STOREHOST, RECONSUMETIMES, PREPAREDTRANSACTIONOFFSET: the
fields the records of one batch share (hosts as IPv4 address + port, ``stored_host``)."""
STORED_FIXED = struct.Struct(f">{STORED_LEAD.format[1:]}{STORED_SHARED.format[1:]}i")
"""Everything before the body: STORED_LEAD, STORED_SHARED and BODYLENGTH."""


def encode_message(m: MessageExt) -> bytes:
    """One message in the stored (magic v1, IPv4) layout."""
    topic = stored_topic(m.topic)
    props = encode_properties(m.properties).encode()
    if len(props) > MAX_PROPERTIES_BYTES:
        raise ValueError(f"message properties are longer than {MAX_PROPERTIES_BYTES} bytes")
    body = m.body
    size = STORED_FIXED.size + len(body) + len(topic) + 2 + len(props)
    return b"".join(
        (
            STORED_FIXED.pack(
                size, MAGIC_V1, body_crc(body), m.queue_id, m.flag, m.queue_offset, m.commit_log_offset,
                m.sys_flag & ~(SYSFLAG_BORNHOST_V6 | SYSFLAG_STOREHOST_V6), m.born_timestamp,
                stored_host(m.born_host), m.store_timestamp, stored_host(m.store_host), m.reconsume_times,
                m.prepared_transaction_offset, len(body),
            ),
            body,
            topic,
            _PROPS_LEN.pack(len(props)),
            props,
        )
    )  # fmt: skip


_TOPIC_LEN = struct.Struct(">B")
_PROPS_LEN = struct.Struct(">h")


@functools.lru_cache(maxsize=4096)
def stored_topic(topic: str) -> bytes:
    """TOPICLEN and TOPIC as stored (a store writes to few topics, so cached)."""
    raw = topic.encode()
    if len(raw) > 255:
        raise ValueError(f"topic {topic!r} is longer than 255 bytes")
    return _TOPIC_LEN.pack(len(raw)) + raw


@functools.lru_cache(maxsize=1024)
def stored_host(host: tuple[str, int]) -> bytes:
    """An IPv4 host as stored: 4 address bytes and the port (a connection's peer, the broker: few, so cached)."""
    return socket.inet_aton(host[0]) + struct.pack(">i", host[1])


def decode_messages(data: bytes, *, decompress: bool = True) -> list[MessageExt]:
    """All messages in a buffer of stored messages (a pull or query response body)."""
    out = []
    pos = 0
    while pos < len(data):
        msg, size = decode_message(data, pos, decompress=decompress)
        out.append(msg)
        pos += size
    return out


@dataclass(slots=True)
class StoredLayout:
    """One stored message read down to where its variable-length parts lie: the fixed fields, the
    topic, and the absolute positions of the hosts, body and properties in the buffer. Both the
    decoder below and the broker's store (which validates and indexes records) read records with it."""

    size: int
    magic: int
    body_crc: int
    queue_id: int
    flag: int
    queue_offset: int
    phys_offset: int
    sys_flag: int
    born_timestamp: int
    born_host_at: int
    store_timestamp: int
    store_host_at: int
    reconsume_times: int
    prepared_transaction_offset: int
    body_at: int
    body_len: int
    topic: str
    props_at: int
    props_len: int


STORE_TIMESTAMP_BYTES = _HEAD.size + 20 + 8
"""Leading bytes of a record enough to read its STORETIMESTAMP (``store_timestamp``), whatever its hosts."""
PHYS_OFFSET_POS = 28
"""Byte position of PHYSICALOFFSET inside a record (the store patches it once the record's place is known)."""
MIN_STORED_SIZE = _HEAD.size + 8 + 8 + 8 + 4 + 8 + 4 + 1 + 2
"""The smallest possible record: IPv4 hosts, empty body, topic and properties."""
_SIZE_MAGIC = struct.Struct(">ii")


def stored_size(data: bytes | memoryview, pos: int = 0, max_size: int = 1 << 31) -> int:
    """TOTALSIZE of the record at ``pos`` after checking its magic and size; MessageDecodeError otherwise."""
    if pos + 8 > len(data):
        raise MessageDecodeError("truncated record header")
    size: int
    magic: int
    size, magic = _SIZE_MAGIC.unpack_from(data, pos)
    if magic not in (MAGIC_V1, MAGIC_V2):
        raise MessageDecodeError(f"bad magic {magic & 0xFFFFFFFF:#x}")
    if size < MIN_STORED_SIZE or size > max_size:
        raise MessageDecodeError(f"bad record size {size}")
    return size


def store_timestamp(header: bytes | memoryview) -> int:
    """STORETIMESTAMP from the first STORE_TIMESTAMP_BYTES of a record."""
    (sysflag,) = struct.unpack_from(">i", header, 36)
    (ts,) = struct.unpack_from(">q", header, _HEAD.size + (16 if sysflag & SYSFLAG_BORNHOST_V6 else 4) + 4)
    return int(ts)


def read_layout(data: bytes | memoryview, pos: int = 0) -> StoredLayout:
    """The layout of the record at ``pos``; MessageDecodeError when its magic, size or field lengths
    do not fit in the buffer (the store also checks the properties end the record exactly)."""
    try:
        size, magic, crc, queue_id, flag, qoff, phys, sysflag, born = _HEAD.unpack_from(data, pos)
        if magic not in (MAGIC_V1, MAGIC_V2):
            raise MessageDecodeError(f"bad magic {magic & 0xFFFFFFFF:#x} at offset {pos}")
        if size <= 0 or pos + size > len(data):
            raise MessageDecodeError(f"message size {size} at offset {pos} runs past the buffer")
        born_at = pos + _HEAD.size
        p = born_at + (16 if sysflag & SYSFLAG_BORNHOST_V6 else 4) + 4
        (store_ts,) = struct.unpack_from(">q", data, p)
        store_at = p + 8
        p = store_at + (16 if sysflag & SYSFLAG_STOREHOST_V6 else 4) + 4
        reconsume, prepared, body_len = struct.unpack_from(">iqi", data, p)
        body_at = p + 16
        if body_len < 0 or body_at + body_len > pos + size:
            raise MessageDecodeError(f"body length {body_len} at offset {pos} runs past the record")
        p = body_at + body_len
        if magic == MAGIC_V2:
            (tlen,) = struct.unpack_from(">H", data, p)
            p += 2
        else:
            tlen = data[p]
            p += 1
        topic = bytes(data[p : p + tlen]).decode()
        p += tlen
        (plen,) = struct.unpack_from(">h", data, p)
    except (struct.error, UnicodeDecodeError, IndexError) as e:
        raise MessageDecodeError(f"bad stored message at offset {pos}: {e}") from None
    return StoredLayout(
        size, magic, crc, queue_id, flag, qoff, phys, sysflag, born, born_at, store_ts, store_at, reconsume,
        prepared, body_at, body_len, topic, p + 2, max(plen, 0),
    )  # fmt: skip


def stored_properties(data: bytes | memoryview, layout: StoredLayout) -> dict[str, str]:
    """The properties of the record ``layout`` describes (MessageDecodeError when not UTF-8)."""
    if not layout.props_len:
        return {}
    try:
        return decode_properties(bytes(data[layout.props_at : layout.props_at + layout.props_len]).decode())
    except UnicodeDecodeError as e:
        raise MessageDecodeError(f"properties are not UTF-8: {e}") from None


def decode_message(data: bytes, pos: int = 0, *, decompress: bool = True) -> tuple[MessageExt, int]:
    """The message at ``pos`` and its size; MessageDecodeError for one that cannot be read."""
    m = read_layout(data, pos)
    body = bytes(data[m.body_at : m.body_at + m.body_len])
    try:
        if decompress and m.sys_flag & SYSFLAG_COMPRESSED:
            body = zlib.decompress(body)
        born_host = _read_host(data, m.born_host_at, bool(m.sys_flag & SYSFLAG_BORNHOST_V6))
        store_host = _read_host(data, m.store_host_at, bool(m.sys_flag & SYSFLAG_STOREHOST_V6))
    except (struct.error, ValueError, zlib.error) as e:
        raise MessageDecodeError(f"bad stored message at offset {pos}: {e}") from None
    msg = MessageExt(
        topic=m.topic, body=body, queue_id=m.queue_id, flag=m.flag, queue_offset=m.queue_offset,
        commit_log_offset=m.phys_offset, sys_flag=m.sys_flag, born_timestamp=m.born_timestamp, born_host=born_host,
        store_timestamp=m.store_timestamp, store_host=store_host, reconsume_times=m.reconsume_times,
        prepared_transaction_offset=m.prepared_transaction_offset, properties=stored_properties(data, m),
    )  # fmt: skip
    return msg, m.size


def _read_host(data: bytes, p: int, v6: bool) -> tuple[str, int]:
    n = 16 if v6 else 4
    ip = socket.inet_ntop(socket.AF_INET6 if v6 else socket.AF_INET, bytes(data[p : p + n]))
    (port,) = struct.unpack_from(">i", data, p + n)
    return ip, port
