"""A broker's large tables (GET_ALL_TOPIC_CONFIG of tens of thousands of topics) are made off the event loop: the
broker answers a small request sent right after, on the same connection, before the large answer is done; and
the large answer is exactly the table, as the one-step encoding would write it, after changes too."""

from __future__ import annotations

import asyncio
import json

from mqadmin.model.rpc import brokers as broker_rpc
from mqadmin.model.rpc import topics as topic_rpc
from mqadmin.model.topic import TopicConfig
from mqadmin.server.bodies import INLINE, TableJson
from mqadmin.wire import fastjson
from mqadmin.wire.codes import ResponseCode as R

TOPICS = 30_000


async def test_a_small_request_is_answered_while_a_large_topic_table_is_written(cluster, transport) -> None:
    broker = cluster.brokers[0]
    await broker.topics.update_many(TopicConfig(f"Big_{i:05d}", 8, 8, 6) for i in range(TOPICS))
    order: list[str] = []

    async def ask(name: str, rpc) -> int:
        resp = await transport.request(broker.config.addr, rpc.request())
        order.append(name)
        return resp

    table, info = await asyncio.gather(
        ask("table", topic_rpc.GET_ALL_TOPIC_CONFIG), ask("runtime", broker_rpc.GET_BROKER_RUNTIME_INFO)
    )
    assert (table.code, info.code) == (R.SUCCESS, R.SUCCESS)
    assert order == ["runtime", "table"]  # the small answer was not held behind the large one
    held = json.loads(table.body)["topicConfigTable"]
    assert all(f"Big_{i:05d}" in held for i in range(TOPICS))
    assert held["Big_00042"]["writeQueueNums"] == 8


async def test_a_table_body_is_the_same_bytes_as_made_at_once_and_follows_changes() -> None:
    table = {f"T{i:06d}": {"n": i, "name": f"T{i:06d}", "attrs": {"+a": "é},{"}} for i in range(3 * INLINE, 0, -1)}
    fields = {"zeta": [1, 2], "dataVersion": {"counter": 3}}
    body = TableJson("table")
    assert await body.body(fields, table) == fastjson.dumps_bytes({**fields, "table": table})
    table["T000007"] = {"n": "changed"}  # replaced whole, as the brokers do
    del table["T000008"]
    table["A"] = {}
    assert await body.body(fields, table) == fastjson.dumps_bytes({**fields, "table": table})
    small = dict(list(table.items())[:3])
    assert await body.body(fields, small) == fastjson.dumps_bytes({**fields, "table": small})


def test_a_snapshot_from_kept_texts_is_the_file_the_plain_table_makes() -> None:
    """topics.json is written from the texts kept for the answers: the same file as from the table itself."""
    from mqadmin.server.durable import dumps_table

    table = {f"T{i:04d}": TopicConfig(f"T{i:04d}", 8, 8, 6, attributes={"+message.type": "FIFO"}) for i in range(900)}
    body = TableJson("topicConfigTable", TopicConfig.to_json)
    body.remember(list(table.items())[:10])
    plain = {"dataVersion": {"counter": 1}, "topicConfigTable": {k: v.to_json() for k, v in table.items()}}
    assert dumps_table({**plain, "topicConfigTable": body.entries(table)}) == dumps_table(plain)
    assert dumps_table({"t": body.entries({})}) == dumps_table({"t": {}})
