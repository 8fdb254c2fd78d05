"""SEND_BATCH_MESSAGE (320) bodies: read and turned into stored records in one pass, as one unit.

The body is ``MessageDecoder.encodeMessages``'s layout: per message ``TOTALSIZE | MAGICCODE | BODYCRC |
FLAG | BODYLEN | BODY | PROPLEN (i16) | PROPERTIES``. ``batch_records`` checks each message (lengths, the
broker's maxMessageSize, UTF-8 properties) and writes its stored record (``mqadmin.wire.message``'s
layout) at the queue offset and commit-log offset the store gives the batch
(``MessageStore.enqueue_records``): one commit-log write, one consume-queue extension and one response
per batch, and no per-message object. Each message keeps the properties text its producer sent, without
its WAIT and with the broker's CLUSTER last: decoded, the same properties the broker stores for a single
message. The properties the broker reads (TAGS, KEYS, UNIQ_KEY) are found by searching the text, never
decoded into a dict.
"""

from __future__ import annotations

import struct
from zlib import crc32

from mqadmin.model.tags import tags_code
from mqadmin.server.store.consumequeue import ENTRY
from mqadmin.server.store.types import Encoder, PutStatus, Records, Refused
from mqadmin.wire.message import (
    MAGIC_V1,
    MAX_PROPERTIES_BYTES,
    NAME_SEP,
    PROP_SEP,
    PROPERTY_KEYS,
    PROPERTY_TAGS,
    PROPERTY_UNIQ_KEY,
    PROPERTY_WAIT,
    STORED_FIXED,
    STORED_LEAD,
    STORED_SHARED,
    host_hex,
    stored_host,
    stored_topic,
)

PROPERTY_CLUSTER = "CLUSTER"

_HEAD = struct.Struct(">iiiii")  # totalSize magic bodyCrc flag bodyLen
_PROPS_LEN = struct.Struct(">h")
_WAIT, _CLUSTER = f"{PROP_SEP}{PROPERTY_WAIT}{NAME_SEP}", f"{PROP_SEP}{PROPERTY_CLUSTER}{NAME_SEP}"
_TAGS, _KEYS = f"{PROP_SEP}{PROPERTY_TAGS}{NAME_SEP}", f"{PROP_SEP}{PROPERTY_KEYS}{NAME_SEP}"
_UNIQ_KEY = f"{PROP_SEP}{PROPERTY_UNIQ_KEY}{NAME_SEP}"


def batch_records(
    body: bytes,
    *,
    topic: str,
    queue_id: int,
    sys_flag: int,
    born_timestamp: int,
    born_host: tuple[str, int],
    reconsume_times: int,
    cluster: str,
    max_body: int,
) -> Encoder:
    """The store's encoder for the batch ``body`` (not empty) to ``topic``/``queue_id``; it raises ``Refused``
    (MESSAGE_ILLEGAL or PROPERTIES_SIZE_EXCEEDED) for a malformed batch or a message the broker refuses."""
    cluster_item = f"{PROPERTY_CLUSTER}{NAME_SEP}{cluster}{PROP_SEP}"
    born_at, topic_field = stored_host(born_host), stored_topic(topic)
    fixed_size = STORED_FIXED.size + len(topic_field) + 2

    codes: dict[str, int] = {}  # tags codes of the batch's tags

    def encode(qoff: int, phys: int, now: int, store_host: tuple[str, int]) -> Records:
        head, head_size, props_len_at = _HEAD.unpack_from, _HEAD.size, _PROPS_LEN.unpack_from
        lead, pack_props_len, entry = STORED_LEAD.pack, _PROPS_LEN.pack, ENTRY.pack
        shared = STORED_SHARED.pack(sys_flag, born_timestamp, born_at, now, stored_host(store_host), reconsume_times, 0)
        view = memoryview(body)
        parts: list[bytes | memoryview] = []
        entries = bytearray()
        keys: list[tuple[str, int]] = []
        offsets: list[int] = []
        pos, end = 0, len(body)
        while pos < end:
            if pos + head_size > end:
                raise _malformed(f"truncated message header at byte {pos}")
            total, _magic, _crc, flag, body_len = head(body, pos)
            stop = pos + head_size + body_len
            if body_len < 0 or stop + 2 > end:
                raise _malformed(f"body length {body_len} at byte {pos} runs past the batch")
            (props_len,) = props_len_at(body, stop)
            nxt = stop + 2 + props_len
            if props_len < 0 or nxt > end:
                raise _malformed(f"properties length {props_len} at byte {pos} runs past the batch")
            if total != nxt - pos:
                raise _malformed(f"TOTALSIZE {total} at byte {pos} does not match the message ({nxt - pos} bytes)")
            if body_len > max_body:
                raise Refused(
                    PutStatus.MESSAGE_ILLEGAL,
                    f"the message body is {body_len} bytes, larger than this broker's maxMessageSize of "
                    f"{max_body} bytes",
                )
            try:
                text = body[stop + 2 : nxt].decode()
            except UnicodeDecodeError:
                raise _malformed(f"properties at byte {pos} are not UTF-8") from None
            # the text behind a separator, ending with one: every item, the first too, is found as
            # SEP name NAME_SEP, and the last one found is the one a decoder keeps (partition and
            # rpartition: the cheapest calls that find a string)
            text = PROP_SEP + text if not text or text[-1] == PROP_SEP else PROP_SEP + text + PROP_SEP
            _, found, after = text.rpartition(_TAGS)
            code: int | None = 0
            if found:
                tags = after.partition(PROP_SEP)[0]
                code = codes.get(tags)
                if code is None:
                    code = codes[tags] = tags_code(tags)
            _, found, after = text.rpartition(_UNIQ_KEY)
            if _KEYS in text:
                keys_text = text.rpartition(_KEYS)[2].partition(PROP_SEP)[0]
                keys.extend([(k, phys) for k in keys_text.split(" ") if k])
            if found:
                keys.append((after.partition(PROP_SEP)[0], phys))
            before, found, after = text.partition(_WAIT)
            if found and _WAIT not in after and _CLUSTER not in text:  # what producers send: one WAIT
                props = "".join((before, PROP_SEP, after.partition(PROP_SEP)[2], cluster_item))[1:].encode()
            else:
                props = (_without(_without(text, _WAIT), _CLUSTER)[1:] + cluster_item).encode()
            if len(props) > MAX_PROPERTIES_BYTES:
                raise Refused(
                    PutStatus.PROPERTIES_SIZE_EXCEEDED,
                    f"message properties are longer than {MAX_PROPERTIES_BYTES} bytes",
                )
            size = fixed_size + body_len + len(props)
            parts += (
                lead(size, MAGIC_V1, crc32(view[pos + head_size : stop]) & 0x7FFFFFFF, queue_id, flag, qoff, phys),
                shared,
                view[pos + head_size - 4 : stop],  # BODYLENGTH and BODY, as the batch holds them
                topic_field,
                pack_props_len(len(props)),
                props,
            )
            entries += entry(phys, size, code)
            offsets.append(phys)
            phys += size
            qoff += 1
            pos = nxt
        ids = struct.pack(f">{len(offsets)}q", *offsets).hex().upper()
        id_prefix = host_hex(store_host)
        return Records(b"".join(parts), entries, keys, [id_prefix + ids[i : i + 16] for i in range(0, len(ids), 16)])

    return encode


def _malformed(detail: str) -> Refused:
    return Refused(PutStatus.MESSAGE_ILLEGAL, f"the batch body is malformed: {detail}")


def _without(text: str, item: str) -> str:
    """``text`` (behind a separator, ending with one) without the items starting with ``item``."""
    before, found, after = text.partition(item)
    while found:
        text = before + PROP_SEP + after.partition(PROP_SEP)[2]
        before, found, after = text.partition(item)
    return text


def encode_batch(messages: list[tuple[int, bytes, str]]) -> bytes:
    """A SEND_BATCH_MESSAGE body of (flag, body, properties text) per message (what a producer sends)."""
    parts = []
    for flag, body, props in messages:
        pb = props.encode()
        total = _HEAD.size + len(body) + 2 + len(pb)
        parts.append(_HEAD.pack(total, 0, 0, flag, len(body)) + body + _PROPS_LEN.pack(len(pb)) + pb)
    return b"".join(parts)
