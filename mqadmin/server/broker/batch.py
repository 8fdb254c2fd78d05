"""SEND_BATCH_MESSAGE (320) bodies: read and turned into stored records in one pass, as one unit.

The body is ``MessageDecoder.encodeMessages``'s layout: per message ``TOTALSIZE | MAGICCODE | BODYCRC |
FLAG | BODYLEN | BODY | PROPLEN (i16) | PROPERTIES``. ``batch_records`` checks each message (lengths, the
broker's maxMessageSize, UTF-8 properties) and writes its stored record (``mqadmin.wire.message``'s
layout) at the queue offset and commit-log offset the store gives the batch
(``MessageStore.enqueue_records``): one commit-log write, one consume-queue extension and one response
per batch. Each message keeps the properties text its producer sent, without
its WAIT and with the broker's CLUSTER last: decoded, the same properties the broker stores for a single
message. The properties the broker reads (TAGS, KEYS, UNIQ_KEY) are found by searching the text, never
decoded into a dict.
"""

from __future__ import annotations

import struct

from isal.isal_zlib import crc32  # zlib's CRC-32, computed with carry-less multiplication

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
    STORED_LEAD,
    STORED_SHARED,
    host_hex,
    stored_host,
    stored_topic,
)

PROPERTY_CLUSTER = "CLUSTER"

_HEAD = struct.Struct(">iiiii")  # totalSize magic bodyCrc flag bodyLen
_PROPS_LEN = struct.Struct(">h")
_FIXED = struct.Struct(f">{STORED_LEAD.format[1:]}{STORED_SHARED.size}si")
"""A stored record up to its BODY: STORED_LEAD, the batch's packed STORED_SHARED, BODYLENGTH."""
_WAIT, _CLUSTER = f"{PROP_SEP}{PROPERTY_WAIT}{NAME_SEP}", f"{PROP_SEP}{PROPERTY_CLUSTER}{NAME_SEP}"
_TAGS, _KEYS = f"{PROP_SEP}{PROPERTY_TAGS}{NAME_SEP}", f"{PROP_SEP}{PROPERTY_KEYS}{NAME_SEP}"
_UNIQ_KEY = f"{PROP_SEP}{PROPERTY_UNIQ_KEY}{NAME_SEP}"
_WAIT_TRUE = f"{_WAIT}true{PROP_SEP}"


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
    (MESSAGE_ILLEGAL or PROPERTIES_SIZE_EXCEEDED) for a malformed batch or a message the broker refuses.

    The pass over the batch is the broker's busiest loop and makes few Python objects and calls per message:
    one comparison checks a message's lengths (``_refusal`` walks a batch that fails it, or whose properties
    are not UTF-8 or too long, again with every check in order and says what is wrong); the properties are
    searched with str's ``partition`` and ``in`` (bytes' ``find`` parses its arguments and bytes' ``in``
    first tries its operand as an int: both dearer); a producer's one ``WAIT=true`` is cut with one
    ``replace``; the record's head up to BODY is one pack, and the body a view of the batch for its CRC and
    the commit log's join."""
    cluster_item = f"{PROPERTY_CLUSTER}{NAME_SEP}{cluster}{PROP_SEP}"
    born_at, topic_field = stored_host(born_host), stored_topic(topic)
    fixed_size = _FIXED.size + len(topic_field) + 2

    codes: dict[str, int] = {}  # tags codes of the batch's tags

    def encode(qoff: int, phys: int, now: int, store_host: tuple[str, int]) -> Records:
        head, props_len_at, fixed, pack_props_len, entry = (
            _HEAD.unpack_from, _PROPS_LEN.unpack_from, _FIXED.pack, _PROPS_LEN.pack, ENTRY.pack
        )  # fmt: skip
        sep, tags_item, uniq_item, keys_item, wait_item, wait_true, cluster_found = (
            PROP_SEP, _TAGS, _UNIQ_KEY, _KEYS, _WAIT, _WAIT_TRUE, _CLUSTER
        )  # fmt: skip
        head_size = _HEAD.size
        shared = STORED_SHARED.pack(sys_flag, born_timestamp, born_at, now, stored_host(store_host), reconsume_times, 0)
        view = memoryview(body)
        parts: list[bytes | memoryview] = []
        entries = bytearray()
        keys: list[tuple[bytes, int]] = []
        offsets: list[int] = []
        pos, end = 0, len(body)
        try:
            while pos < end:
                total, _magic, _crc, flag, body_len = head(body, pos)
                at = pos + head_size
                stop = at + body_len
                nxt = pos + total
                text_at = stop + 2
                if (
                    nxt != text_at + props_len_at(body, stop)[0]
                    or nxt > end
                    or text_at > nxt
                    or not 0 <= body_len <= max_body
                ):  # one check for what ``_refusal`` tells apart: a malformed message, a body too big
                    raise _refusal(body, max_body, cluster_item)
                # the properties behind a separator, ending with one: every item, the first too, is found
                # as SEP name NAME_SEP, and the last one found is the one a decoder keeps (partition and
                # rpartition: the cheapest calls that find a string, and str's ``in``, unlike bytes')
                text = body[text_at:nxt].decode()
                text = sep + text if not text or text[-1] == sep else sep + text + sep
                _, found, after = text.rpartition(tags_item)
                code: int | None = 0
                if found:
                    tags = after.partition(sep)[0]
                    code = codes.get(tags)
                    if code is None:
                        code = codes[tags] = tags_code(tags)
                _, found, after = text.rpartition(uniq_item)
                if keys_item in text:
                    keys_text = text.rpartition(keys_item)[2].partition(sep)[0]
                    keys.extend([(k.encode(), phys) for k in keys_text.split(" ") if k])
                if found:
                    keys.append((after.partition(sep)[0].encode(), phys))
                kept = text.replace(wait_true, sep, 1)
                if kept is not text and wait_item not in kept and cluster_found not in kept:  # what producers send
                    props = (kept[1:] + cluster_item).encode()
                else:
                    props = (_without(_without(text, wait_item), cluster_found)[1:] + cluster_item).encode()
                props_len = len(props)
                if props_len > MAX_PROPERTIES_BYTES:
                    raise _refusal(body, max_body, cluster_item)
                size = fixed_size + body_len + props_len
                data = view[at:stop]
                parts += (
                    fixed(size, MAGIC_V1, crc32(data) & 0x7FFFFFFF, queue_id, flag, qoff, phys, shared, body_len),
                    data,
                    topic_field,
                    pack_props_len(props_len),
                    props,
                )
                entries += entry(phys, size, code)
                offsets.append(phys)
                phys += size
                qoff += 1
                pos = nxt
        except (struct.error, UnicodeDecodeError):
            raise _refusal(body, max_body, cluster_item) from None
        prefix = host_hex(store_host)  # each offset message id: the host's hex and the offset's
        ids = prefix + struct.pack(f">{len(offsets)}q", *offsets).hex(",", 8).upper().replace(",", "," + prefix)
        return Records(b"".join(parts), entries, keys, ids.split(",") if offsets else [])

    return encode


def _refusal(body: bytes, max_body: int, cluster_item: str) -> Refused:
    """Why the batch ``body`` is refused: its first message that is malformed, too big or has properties that
    are not UTF-8 or too long once stored (the checks in order, where the pass over the batch makes one)."""
    pos, end = 0, len(body)
    while pos < end:
        if pos + _HEAD.size > end:
            return _malformed(f"truncated message header at byte {pos}")
        total, _magic, _crc, _flag, body_len = _HEAD.unpack_from(body, pos)
        stop = pos + _HEAD.size + body_len
        if body_len < 0 or stop + 2 > end:
            return _malformed(f"body length {body_len} at byte {pos} runs past the batch")
        (props_len,) = _PROPS_LEN.unpack_from(body, stop)
        nxt = stop + 2 + props_len
        if props_len < 0 or nxt > end:
            return _malformed(f"properties length {props_len} at byte {pos} runs past the batch")
        if total != nxt - pos:
            return _malformed(f"TOTALSIZE {total} at byte {pos} does not match the message ({nxt - pos} bytes)")
        if body_len > max_body:
            return Refused(
                PutStatus.MESSAGE_ILLEGAL,
                f"the message body is {body_len} bytes, larger than this broker's maxMessageSize of {max_body} bytes",
            )
        try:
            text = body[stop + 2 : nxt].decode()
        except UnicodeDecodeError:
            return _malformed(f"properties at byte {pos} are not UTF-8")
        text = PROP_SEP + text if not text or text[-1] == PROP_SEP else PROP_SEP + text + PROP_SEP
        if len((_without(_without(text, _WAIT), _CLUSTER)[1:] + cluster_item).encode()) > MAX_PROPERTIES_BYTES:
            return Refused(
                PutStatus.PROPERTIES_SIZE_EXCEEDED, f"message properties are longer than {MAX_PROPERTIES_BYTES} bytes"
            )
        pos = nxt
    return _malformed("unreadable")


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
