"""Property tests (hypothesis) of the codecs every request goes through: frames in both header forms,
typed header declarations, fastjson bodies with object keys, stored messages, Java properties text and
orderTopicConf."""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqadmin.audit import job
from mqadmin.model.names import topic_refusal
from mqadmin.model.order import (
    ORDER_CONF_ENTRY,
    format_order_conf,
    order_conf_entries,
    order_conf_problem,
    parse_order_conf,
)
from mqadmin.model.rpc import topics
from mqadmin.model.rpc.spec import RequestRefused
from mqadmin.model.topic import TopicConfig
from mqadmin.wire import fastjson, orjson_headers
from mqadmin.wire.frame import LANGUAGES, RemotingCommand, SerializeType, decode_frame, encode_frame
from mqadmin.wire.message import MessageExt, decode_messages, encode_message
from mqadmin.wire.properties import format_properties, parse_properties

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)  # no lone surrogates: not UTF-8
names = st.text(
    st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-%|"), min_size=1, max_size=30
)
int32 = st.integers(-(2**31), 2**31 - 1)


@st.composite
def commands(draw: st.DrawFn) -> RemotingCommand:
    return RemotingCommand(
        code=draw(st.integers(-(2**15), 2**15 - 1)),
        opaque=draw(int32),
        flag=draw(st.integers(0, 3)),
        ext=draw(st.dictionaries(text.filter(bool), text, max_size=8)),
        remark=draw(st.one_of(st.none(), text.filter(bool))),
        body=draw(st.binary(max_size=200)),
        language=draw(st.sampled_from(LANGUAGES)),
        version=draw(st.integers(0, 2**15 - 1)),
        serialize=draw(st.sampled_from(list(SerializeType))),
    )


@given(commands())
def test_frames_round_trip_in_both_header_forms(cmd: RemotingCommand) -> None:
    data = encode_frame(cmd)
    assert int.from_bytes(data[:4], "big") == len(data) - 4
    assert decode_frame(data[4:]) == cmd


@given(commands())
def test_the_servers_orjson_headers_give_the_same_frames(cmd: RemotingCommand) -> None:
    """The servers read and write JSON headers with orjson, clients with the standard json module."""
    data = encode_frame(cmd)
    assert encode_frame(cmd, orjson_headers.dump_header_json) == data
    assert decode_frame(data[4:], "strict", orjson_headers.parse_header_json) == cmd


@given(
    st.builds(
        topics.CreateTopicHeader,
        topic=names,
        default_topic=names,
        read_queue_nums=st.integers(0, 65535),
        write_queue_nums=st.integers(0, 65535),
        perm=st.integers(0, 7),
        topic_filter_type=st.sampled_from(["SINGLE_TAG", "MULTI_TAG"]),
        topic_sys_flag=st.one_of(st.none(), st.integers(0, 3)),
        order=st.booleans(),
        attributes=st.one_of(st.none(), st.just("+message.type=FIFO")),
        force=st.one_of(st.none(), st.booleans()),
    )
)
def test_declared_headers_round_trip_through_the_wire(header: topics.CreateTopicHeader) -> None:
    cmd = topics.UPDATE_AND_CREATE_TOPIC.request(header)
    assert topics.UPDATE_AND_CREATE_TOPIC.decode(decode_frame(encode_frame(cmd)[4:])).header == header


def _parses_as_int(value: str) -> bool:
    try:
        int(value)
    except ValueError:
        return False
    return True


@given(st.sampled_from(["readQueueNums", "perm", "topic"]), text)
def test_a_missing_or_malformed_field_is_refused_with_its_name(field: str, value: str) -> None:
    ext = topics.CreateTopicHeader.of(TopicConfig("T")).to_ext()
    del ext[field]
    with pytest.raises(RequestRefused, match=f"<{field}> is null"):
        topics.CreateTopicHeader.from_ext(ext)
    ext[field] = value
    if field == "topic" or _parses_as_int(value):
        topics.CreateTopicHeader.from_ext(ext, validate=False)  # any text is a topic name to the decoder
        if field == "topic" and (refusal := topic_refusal(value)) is not None:  # a server's decode refuses it
            with pytest.raises(RequestRefused, match=re.escape(refusal.remark)):
                topics.CreateTopicHeader.from_ext(ext)
    else:
        with pytest.raises(RequestRefused, match=f"<{field}> is (not a number|null)"):
            topics.CreateTopicHeader.from_ext(ext)


json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**53), 2**53), text)
json_values = st.recursive(
    json_scalars, lambda c: st.lists(c, max_size=4) | st.dictionaries(text, c, max_size=4), max_leaves=20
)


@given(json_values)
def test_fastjson_reads_what_it_writes(value: object) -> None:
    assert fastjson.loads(fastjson.dumps_bytes(value)) == value


@given(
    st.lists(
        st.tuples(names, st.integers(0, 1000), st.integers(0, 10**12)), max_size=10, unique_by=lambda t: (t[0], t[1])
    )
)
def test_object_keyed_maps_round_trip(rows: list[tuple[str, int, int]]) -> None:
    table = [({"brokerName": "b", "queueId": q, "topic": t}, {"maxOffset": o}) for t, q, o in rows]
    obj = fastjson.loads(fastjson.dumps_object_keyed({"consumeTps": 1.5}, table, "offsetTable"))
    back = sorted(
        (fastjson.object_key(k)["topic"], fastjson.object_key(k)["queueId"], v["maxOffset"])
        for k, v in obj["offsetTable"].items()
    )
    assert back == sorted(rows) and obj["consumeTps"] == 1.5


prop_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x01\x02"), max_size=20)


@given(
    st.builds(
        MessageExt,
        topic=names,
        body=st.binary(max_size=300),
        queue_id=st.integers(0, 1000),
        flag=int32,
        queue_offset=st.integers(0, 2**62),
        commit_log_offset=st.integers(0, 2**62),
        born_timestamp=st.integers(0, 2**45),
        store_timestamp=st.integers(0, 2**45),
        reconsume_times=st.integers(0, 16),
        properties=st.dictionaries(
            st.text(
                st.characters(blacklist_categories=("Cs",), blacklist_characters="\x01\x02"), min_size=1, max_size=10
            ),
            st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x01\x02"), max_size=20),
            max_size=5,
        ),
    )
)
@settings(max_examples=200)
def test_stored_messages_round_trip(m: MessageExt) -> None:
    (back,) = decode_messages(encode_message(m))
    assert back == dataclasses.replace(m)


java_key = st.text(
    st.characters(whitelist_categories=("Ll", "Lu", "Nd"), whitelist_characters="._-"), min_size=1, max_size=20
)
java_value = st.text(
    st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="\\"), max_size=30
).map(str.strip)


@given(st.dictionaries(java_key, java_value, max_size=10))
def test_properties_text_round_trips_what_java_writes(props: dict[str, str]) -> None:
    assert parse_properties(format_properties(props)) == props


@given(
    st.dictionaries(names.filter(lambda n: ":" not in n and ";" not in n), st.integers(0, 1024), min_size=1, max_size=6)
)
def test_order_conf_round_trips(entries: dict[str, int]) -> None:
    value = format_order_conf(entries)
    assert order_conf_problem(value) is None
    assert parse_order_conf(value) == entries


conf_text = st.text(alphabet=st.sampled_from("ab:;0189 \n٣_-"), max_size=30)


@given(conf_text)
def test_the_audit_job_reads_order_conf_as_the_admin_client_does(value: str) -> None:
    """The audit job imports nothing from mqadmin, so it carries a copy of the entry pattern; both
    engines of the job (Python and Spark SQL) use that copy, and it must say what model.order says."""
    assert job._ENTRY == ORDER_CONF_ENTRY
    assert job.order_conf_entries(value) == order_conf_entries(value)
    named = {job.conf_entry_broker(e) for e in job.order_conf_entries(value)} - {""}
    assert named == set(parse_order_conf(value))
