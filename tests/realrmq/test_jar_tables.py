"""The tables generated from Apache RocketMQ 5.5.0's jars are what their generators make of the jars today:
``mqadmin/model/apache_access.json`` (``python -m tests.realrmq.acl_table``: the class-file reader reads them
right, and the rules it holds are the ones issue 26 quotes) and ``mqadmin/server/broker/apache_broker_config.json``
(``python -m tests.realrmq.broker_config_table``: the settings a 5.5.0 broker reports)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from tests.realrmq import acl_table, broker_config_table
from tests.realrmq.apache import skip_reason
from tests.realrmq.classfile import ClassFormatError, parse

pytestmark = pytest.mark.conformance  # reads (and runs Java over) the downloaded Apache 5.5.0 jars


@pytest.fixture(scope="module")
def lib() -> Path:
    if (reason := skip_reason("5.5.0")) is not None:
        pytest.skip(reason)
    from tests.realrmq.apache import ensure_distribution

    return ensure_distribution("5.5.0") / "lib"


@pytest.mark.parametrize("table", [acl_table, broker_config_table], ids=["access", "settings"])
def test_the_committed_table_is_the_generated_one(table: ModuleType, lib: Path):
    assert table.OUTPUT.read_text() == table.text(lib), f"run python -m {table.__name__}"


def test_the_access_table_holds_apaches_rules(lib: Path):
    table = json.loads(acl_table.text(lib))
    assert table["switch"] == [10, 11, 12, 14, 15, 34, 35, 36, 37, 38, 41, 42, 105, 310, 320, 370]
    reset = table["annotated"]["222"]
    assert (reset["header"], reset["actions"]) == ("ResetOffsetRequestHeader", ["Update"])
    assert [(f["field"], f["type"]) for f in reset["fields"]] == [("group", "Group"), ("topic", "Topic")]
    assert table["annotated"]["328"]["resource"] == "Cluster" and table["annotated"]["328"]["fields"] == []
    topic_list = table["annotated"]["208"]["fields"][-1]
    assert (topic_list["field"], topic_list["splitter"]) == ("topicList", ";")
    assert "25" not in table["annotated"]  # UPDATE_BROKER_CONFIG: no annotated header


def test_the_settings_table_holds_apaches_settings(lib: Path):
    keys = json.loads(broker_config_table.text(lib))["keys"]
    assert keys["flushIntervalCommitLog"] == ["int", "500"]
    assert keys["fileReservedTime"] == ["int", "72"] and keys["deleteWhen"] == ["String", "04"]
    assert keys["brokerRole"] == ["String", "ASYNC_MASTER"]  # a setter taking text beside the enum one
    assert keys["isBrokerContainer"] == ["start-only", "false"]  # a getter without a setter
    assert keys["brokerName"] == ["String", None]  # the host's name: left out
    # with the 3 host-dependent ones, namesrvAddr and storePathCommitLog set: the 487 a running broker reports
    assert len([k for k, (_, default) in keys.items() if default is not None]) == 482


def test_a_file_that_is_not_a_class_is_refused():
    with pytest.raises(ClassFormatError, match="bad magic"):
        parse(b"PK\x03\x04 not a class")
    with pytest.raises(ClassFormatError, match="truncated"):
        parse(b"\xca\xfe\xba\xbe\x00\x00")
