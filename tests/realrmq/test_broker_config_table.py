"""``mqadmin/server/broker/apache_broker_config.json`` is what ``python -m tests.realrmq.broker_config_table``
makes of Apache RocketMQ 5.5.0's jars today, and holds the settings a running 5.5.0 broker reports."""

from __future__ import annotations

import json

import pytest

from tests.realrmq import broker_config_table
from tests.realrmq.apache import skip_reason

pytestmark = pytest.mark.conformance  # runs Java over the downloaded Apache 5.5.0 jars


@pytest.fixture(scope="module")
def generated() -> str:
    if (reason := skip_reason(broker_config_table.VERSION)) is not None:
        pytest.skip(reason)
    from tests.realrmq.apache import ensure_distribution

    return broker_config_table.render(
        broker_config_table.build(ensure_distribution(broker_config_table.VERSION) / "lib")
    )


def test_the_committed_table_is_the_generated_one(generated: str):
    assert broker_config_table.OUTPUT.read_text() == generated, "run python -m tests.realrmq.broker_config_table"


def test_the_table_holds_apaches_settings(generated: str):
    keys = json.loads(generated)["keys"]
    assert keys["flushIntervalCommitLog"] == ["int", "500"]
    assert keys["fileReservedTime"] == ["int", "72"] and keys["deleteWhen"] == ["String", "04"]
    assert keys["brokerRole"] == ["String", "ASYNC_MASTER"]  # a setter taking text beside the enum one
    assert keys["isBrokerContainer"] == ["start-only", "false"]  # a getter without a setter
    assert keys["brokerName"] == ["String", None]  # the host's name: left out
    # with the 3 host-dependent ones, namesrvAddr and storePathCommitLog set: the 487 a running broker reports
    assert len([k for k, (_, default) in keys.items() if default is not None]) == 482
