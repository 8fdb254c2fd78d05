"""``mqadmin/model/apache_access.json`` is what ``python -m tests.realrmq.acl_table`` makes of Apache RocketMQ
5.5.0's jars today (the class-file reader reads them right), and the rules it holds are the ones issue 26 quotes."""

from __future__ import annotations

import json

import pytest

from tests.realrmq import acl_table
from tests.realrmq.apache import skip_reason
from tests.realrmq.classfile import ClassFormatError, parse

pytestmark = pytest.mark.conformance  # reads the downloaded Apache 5.5.0 jars


@pytest.fixture(scope="module")
def generated() -> str:
    if (reason := skip_reason(acl_table.VERSION)) is not None:
        pytest.skip(reason)
    from tests.realrmq.apache import ensure_distribution

    return acl_table.render(acl_table.build(ensure_distribution(acl_table.VERSION) / "lib"))


def test_the_committed_table_is_the_generated_one(generated: str):
    assert acl_table.OUTPUT.read_text() == generated, "run python -m tests.realrmq.acl_table"


def test_the_table_holds_apaches_rules(generated: str):
    table = json.loads(generated)
    assert table["switch"] == [10, 11, 12, 14, 15, 34, 35, 36, 37, 38, 41, 42, 105, 310, 320, 370]
    reset = table["annotated"]["222"]
    assert (reset["header"], reset["actions"]) == ("ResetOffsetRequestHeader", ["Update"])
    assert [(f["field"], f["type"]) for f in reset["fields"]] == [("group", "Group"), ("topic", "Topic")]
    assert table["annotated"]["328"]["resource"] == "Cluster" and table["annotated"]["328"]["fields"] == []
    topic_list = table["annotated"]["208"]["fields"][-1]
    assert (topic_list["field"], topic_list["splitter"]) == ("topicList", ";")
    assert "25" not in table["annotated"]  # UPDATE_BROKER_CONFIG: no annotated header


def test_a_file_that_is_not_a_class_is_refused():
    with pytest.raises(ClassFormatError, match="bad magic"):
        parse(b"PK\x03\x04 not a class")
    with pytest.raises(ClassFormatError, match="truncated"):
        parse(b"\xca\xfe\xba\xbe\x00\x00")
