"""Trace records as Java's TraceDataEncoder writes them (fields split by \\x01, records by \\x02)."""

from __future__ import annotations

from mqadmin.model.trace import decode_trace_records

ID = "7F0000011C2A18B4AAC27A4D0C830000"


def record(*fields: object) -> str:
    return "\x01".join(str(f) for f in fields) + "\x02"


PUB = record("Pub", 1700000000000, "DefaultRegion", "PG", "Orders", ID, "TagA", "k1", "127.0.0.1:10911", 5, 3, 0,
             "7F00000100002A9F0000000000000042", "true")  # fmt: skip
SUB_BEFORE = record("SubBefore", 1700000000100, "DefaultRegion", "CG", "req-1", ID, 0, "k1")
SUB_AFTER = record("SubAfter", "req-1", ID, 12, "false", "k1", 0, 1700000000112, "CG")


def test_a_send_and_its_consumption_read_back_with_the_trace_messages_host():
    views = decode_trace_records(PUB + SUB_BEFORE + SUB_AFTER, ID, "127.0.0.1")
    pub, before, after = views
    assert (pub.type, pub.group, pub.timestamp, pub.cost_time, pub.status) == ("Pub", "PG", 1700000000000, 3, "success")
    assert (pub.topic, pub.tags, pub.keys, pub.store_host) == ("Orders", "TagA", "k1", "127.0.0.1:10911")
    assert (pub.offset_msg_id, pub.msg_type, pub.client_host) == ("7F00000100002A9F0000000000000042", "Normal_Msg",
                                                                  "127.0.0.1")  # fmt: skip
    assert (before.type, before.group, before.timestamp) == ("SubBefore", "CG", 1700000000100)
    assert (after.type, after.group, after.cost_time, after.status) == ("SubAfter", "CG", 12, "failed")


def test_older_layouts_other_messages_and_garbage():
    old_pub = record("Pub", 1, "R", "PG", "T", ID, "t", "k", "h", 1, 2, 3, "true")  # 13 fields: no offset id
    (pub,) = decode_trace_records(old_pub, ID)
    assert pub.success and pub.offset_msg_id is None and pub.msg_type == "Delay_Msg"
    cloud_after = record("SubAfter", "r", ID, 4, "true", "k", 0)  # no time or group (AccessChannel.CLOUD)
    (after,) = decode_trace_records(cloud_after, ID)
    assert (after.group, after.timestamp, after.success) == (None, 0, True)
    other = PUB.replace(ID, "OTHER")
    assert decode_trace_records(other + "Pub\x01not-a-number\x02" + "\x02\x02" + "Unknown\x01x\x02", ID) == []
