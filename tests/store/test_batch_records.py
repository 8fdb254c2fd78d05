"""A SEND_BATCH_MESSAGE body stored as one unit (``batch_records`` + ``MessageStore.enqueue_records``):
what each message is stored as, segment rolls, refusals that store nothing, recovery after a crash."""

from __future__ import annotations

import hashlib

import pytest

from mqadmin.model.tags import build_subscription
from mqadmin.server.broker.batch import batch_records, encode_batch
from mqadmin.server.store import PutStatus
from mqadmin.wire.message import decode_messages, decode_properties, parse_offset_msg_id

from .conftest import crash, message

BORN = ("10.1.2.3", 40001)


def encoder(body: bytes, *, queue_id: int = 0, max_body: int = 4 * 1024 * 1024):
    return batch_records(
        body, topic="T", queue_id=queue_id, sys_flag=0, born_timestamp=1700000000000, born_host=BORN,
        reconsume_times=0, cluster="DefaultCluster", max_body=max_body,
    )  # fmt: skip


async def put_batch_body(store, body: bytes, *, queue_id: int = 0, max_body: int = 4 * 1024 * 1024):
    encode = encoder(body, queue_id=queue_id, max_body=max_body)
    return await store.put_encoded(lambda stored: store.enqueue_records("T", queue_id, encode, stored))


def stored(store, queue_id: int = 0, offset: int = 0):
    return decode_messages(b"".join(store.get_messages("T", queue_id, offset, 32).messages))


PROPERTY_TEXTS = [
    "",
    "WAIT\x01true\x02",
    "TAGS\x01TagA\x02UNIQ_KEY\x017F0000011E832162BB318D75BA0A0000\x02WAIT\x01true\x02",  # as Java sends it
    "WAIT\x01false\x02KEYS\x01k1 k2\x02TAGS\x01b",  # no trailing separator
    "CLUSTER\x01theirs\x02TAGS\x01c\x02",  # the broker's replaces it
    "A\x01TAGS\x01x\x02TAGS\x01d\x02",  # a value holding a name
    "A\x01xTAGS\x01y\x02UNIQ_KEY\x01u1\x02",  # a name inside a value is not an item
    "TAGS\x01\x02KEYS\x01a\x02KEYS\x01b  c\x02WAIT\x01true",  # the last of each name counts
    "XWAIT\x01v\x02WAIT\x01true\x02noseparator\x02TAGS\x01e\x02TAGS\x01f\x02",
    "WAIT\x01true\x02WAIT\x01true\x02KEYS\x01dup\x02",
    "WAIT\x01true\x02TAGS\x01z\x02",  # WAIT first
    "WAIT\x01truex\x02TAGS\x01q\x02WAIT\x01true",  # a WAIT that is not "true", and one without separator
    "UNIQ_KEY\x01u2\x02WAIT\x01true\x02CLUSTER\x01theirs\x02",
    "TAGS\x01\u00e9t\u00e9\x02KEYS\x01cl\u00e9 \u00e9\x02WAIT\x01true\x02",  # UTF-8 beyond ASCII
]


@pytest.mark.parametrize("text", PROPERTY_TEXTS)
async def test_batched_message_is_stored_as_a_single_message_is(open_store, text: str):
    """Its properties as the broker stores one message (without WAIT, with the broker's CLUSTER), its tag
    filterable, its keys and unique key queryable, its body, flag and hosts as sent."""
    store = await open_store()
    r = await put_batch_body(store, encode_batch([(7, b"body", text), (0, b"second", "WAIT\x01true\x02")]))
    assert r.status == PutStatus.PUT_OK, r.detail
    first, second = stored(store)
    expected = decode_properties(text)
    expected.pop("WAIT", None)
    expected["CLUSTER"] = "DefaultCluster"
    assert first.properties == expected
    assert second.properties == {"CLUSTER": "DefaultCluster"}
    assert (first.body, first.flag, first.born_host, first.born_timestamp) == (b"body", 7, BORN, 1700000000000)
    assert [m.queue_offset for m in (first, second)] == [0, 1]
    assert [m.msg_id for m in (first, second)] == r.msg_ids
    assert parse_offset_msg_id(r.msg_ids[1])[1] == second.commit_log_offset
    if expected.get("TAGS"):
        tagged = store.get_messages("T", 0, 0, 32, build_subscription("T", expected["TAGS"]))
        assert [m.body for m in decode_messages(b"".join(tagged.messages))] == [b"body"]
    for key in [k for k in expected.get("KEYS", "").split(" ") if k]:
        assert [m.body for m in decode_messages(b"".join(store.query("T", key, 32)))] == [b"body"]
    if "UNIQ_KEY" in expected:
        found = store.query("T", expected["UNIQ_KEY"], 32, unique=True)
        assert [m.body for m in decode_messages(b"".join(found))] == [b"body"]


async def test_batch_that_does_not_fit_the_segment_starts_the_next_whole(open_store):
    store = await open_store(segment_size=4096)
    first = await store.put(message(body=bytes(3000)))
    batch = encode_batch([(0, b"%d" % i * 200, "WAIT\x01true\x02") for i in range(5)])
    r = await put_batch_body(store, batch)
    assert r.status == PutStatus.PUT_OK
    assert (r.queue_offset, r.phys_offset) == (1, 4096)  # the 1,096 bytes left were too few for the batch
    assert [m.commit_log_offset // 4096 for m in stored(store)] == [0, 1, 1, 1, 1, 1]
    assert [parse_offset_msg_id(i)[1] for i in r.msg_ids] == [m.commit_log_offset for m in stored(store)][1:]
    await crash(store)  # recovery validates every record (sizes, CRCs) from the last checkpoint on
    store = await open_store(segment_size=4096)
    assert [m.body for m in stored(store)] == [bytes(3000)] + [b"%d" % i * 200 for i in range(5)]
    assert first.phys_offset == 0 and store.max_offset("T", 0) == 6
    too_big = await put_batch_body(store, encode_batch([(0, bytes(1500), "")] * 3))
    assert too_big.status == PutStatus.MESSAGE_ILLEGAL and "commit-log segment" in too_big.detail


@pytest.mark.parametrize(
    ("body", "status", "detail"),
    [
        (encode_batch([(0, b"ok", "")])[:-1], PutStatus.MESSAGE_ILLEGAL, "runs past the batch"),
        (encode_batch([(0, b"ok", "")]) + b"\x00\x00", PutStatus.MESSAGE_ILLEGAL, "truncated message header"),
        (b"\x00\x00\x00\x63" + encode_batch([(0, b"ok", "")])[4:], PutStatus.MESSAGE_ILLEGAL, "TOTALSIZE 99"),
        (encode_batch([(0, b"ok", "")]).replace(b"\x00\x00\x00\x02ok", b"\x7f\x00\x00\x02ok"),
         PutStatus.MESSAGE_ILLEGAL, "body length 2130706434"),
        (encode_batch([(0, b"ok", "ab")]).replace(b"ab", b"\xff\xfe"), PutStatus.MESSAGE_ILLEGAL, "not UTF-8"),
        (encode_batch([(0, b"ok", ""), (0, bytes(2000), "")]), PutStatus.MESSAGE_ILLEGAL,
         "2000 bytes, larger than this broker's maxMessageSize of 1024"),
        (encode_batch([(0, b"ok", "K\x01" + "v" * 32760 + "\x02")]), PutStatus.PROPERTIES_SIZE_EXCEEDED,
         "longer than 32767 bytes"),
    ],
)  # fmt: skip
async def test_refused_batch_stores_nothing(open_store, body: bytes, status: PutStatus, detail: str):
    store = await open_store()
    await put_batch_body(store, encode_batch([(0, b"before", "")]))
    r = await put_batch_body(store, body, max_body=1024)
    assert r.status == status and detail in r.detail, r.detail
    after = await put_batch_body(store, encode_batch([(0, b"after", "")]))
    assert (after.status, after.queue_offset) == (PutStatus.PUT_OK, 1)
    assert [m.body for m in stored(store)] == [b"before", b"after"]


async def test_stored_records_are_the_layout_the_consume_path_reads(open_store):
    """The records' bytes, consume-queue entries and message ids for a fixed batch, place and time, as the
    broker has written them since batches became one unit (a change here changes the commit-log format)."""
    body = encode_batch(
        [
            (7, b"body", "TAGS\x01TagA\x02UNIQ_KEY\x017F0000011E832162BB318D75BA0A0000\x02WAIT\x01true\x02"),
            (0, bytes(range(256)), "WAIT\x01false\x02KEYS\x01k1 k2\x02TAGS\x01b"),
            (3, b"", "CLUSTER\x01theirs\x02WAIT\x01true\x02a\x01\xe9\u00e9\x02"),
        ]
    )
    encode = batch_records(
        body, topic="T", queue_id=2, sys_flag=0, born_timestamp=1700000000000, born_host=("10.1.2.3", 40001),
        reconsume_times=1, cluster="DefaultCluster", max_body=4 << 20,
    )  # fmt: skip
    r = encode(5, 4096, 1700000000123, ("127.0.0.1", 10911))
    assert len(r.data) == 682
    assert hashlib.sha256(r.data).hexdigest() == "a7c1e79866ebb4e6f32922f30ea8c646b398dab45226acaba95a9c6d23e4eeb5"
    assert bytes(r.entries).hex() == (
        "0000000000001000000000ab000000000027a807"
        "00000000000010ab000001850000000000000062"
        "00000000000012300000007a0000000000000000"
    )
    assert r.msg_ids == [f"7F00000100002A9F{offset:016X}" for offset in (4096, 4267, 4656)]
    assert {k.decode() for k, _ in r.keys} == {"7F0000011E832162BB318D75BA0A0000", "k1", "k2"}


async def test_a_key_named_twice_in_a_message_finds_it_once(open_store):
    """KEYS naming a key twice, or the unique key among the keys: a query returns the message once, before
    and after a restart (the key index is loaded from its file)."""
    store = await open_store()
    text = "KEYS\x01a b a\x02UNIQ_KEY\x01b\x02WAIT\x01true\x02"
    r = await put_batch_body(store, encode_batch([(0, b"one", text), (0, b"two", "KEYS\x01a\x02")]))
    assert r.status == PutStatus.PUT_OK
    for _ in range(2):
        assert [m.body for m in decode_messages(b"".join(store.query("T", "a", 32)))] == [b"two", b"one"]
        assert [m.body for m in decode_messages(b"".join(store.query("T", "b", 32)))] == [b"one"]
        assert [m.body for m in decode_messages(b"".join(store.query("T", "b", 32, unique=True)))] == [b"one"]
        await store.close()
        store = await open_store()
